"""Every exception type steadypress raises, each carrying the data needed to act on it.

Errors are classified where they happen (a target, a parser, a store, the API client) and acted
upon in the core: a transient error is retried with backoff, a permanent one goes to the dead
letters, a conflict re-runs a compare-and-swap, a state or configuration error stops the command
with its own exit code before anything is written.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

__all__ = [
    "AmbiguousWrite",
    "ArticleError",
    "AuthFailed",
    "ConfigError",
    "Conflict",
    "GitFailed",
    "GitHubError",
    "GitHubUnreachable",
    "GraphQLErrors",
    "NotInContent",
    "PermanentError",
    "PublishError",
    "RateLimited",
    "StateError",
    "SteadypressError",
    "Superseded",
    "TemplateFailed",
    "TransientError",
    "UsageError",
]


class SteadypressError(Exception):
    """Base of every error steadypress raises on purpose."""


class ConfigError(SteadypressError):
    """The configuration or the command line is wrong (exit code 2)."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


class UsageError(ConfigError):
    """The command line asks for something that cannot be done (exit code 2): a path that is no
    article, a commit that does not exist. Not a configuration problem, and not called one."""


class StateError(SteadypressError):
    """The ledger could not be read or written; nothing was changed (exit code 3)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


class Conflict(SteadypressError):
    """Another writer moved a branch (the state's or the site's) since it was read: an ordinary
    outcome of compare-and-swap, answered by reading again."""

    def __init__(self, expected: str | None, actual: str | None) -> None:
        super().__init__(f"branch moved: expected {expected}, found {actual}")
        self.expected = expected
        self.actual = actual
        # What kept the write out when that is more than another writer (a lock left behind).
        self.reason: str | None = None


class PublishError(SteadypressError):
    """A target could not publish an article. `depends_on` names the repository paths (a missing
    image, a theme folder) whose change may fix it: a commit that changes one retries it."""

    def __init__(self, message: str, *, depends_on: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.depends_on = tuple(depends_on)


class TransientError(PublishError):
    """Worth retrying later; `retry_after` (seconds) is the server's own hint when it gave one."""

    def __init__(
        self, message: str, *, retry_after: float | None = None, depends_on: Sequence[str] = ()
    ) -> None:
        super().__init__(message, depends_on=depends_on)
        self.retry_after = retry_after


class Superseded(PublishError):
    """The target holds the work of a later commit than this run's (a site written with a newer
    theme), which this run's write would undo: it writes nothing, and lets its articles go at
    once, no attempt counted, to a run of that commit or a later one."""


class PermanentError(PublishError):
    """Retrying the same article version cannot help: it goes to the dead letters at once."""


class TemplateFailed(PermanentError):
    """A theme template could not be rendered: `file` is the template the fault is in (the
    repository's file, or the name of one steadypress ships) and `line` its line there."""

    def __init__(
        self, message: str, *, file: str, line: int, depends_on: Sequence[str] = ()
    ) -> None:
        super().__init__(message, depends_on=depends_on)
        self.file = file
        self.line = line

    def __reduce__(self) -> tuple[Any, ...]:
        # Pages render in worker processes, whose errors come back pickled.
        rebuild = functools.partial(
            TemplateFailed, file=self.file, line=self.line, depends_on=self.depends_on
        )
        return rebuild, (str(self),)


class ArticleError(PermanentError):
    """An article cannot be read or its front matter is invalid; names the file and the problem."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


class NotInContent(ArticleError):
    """The ledger names a file the content holds neither at the item's commit nor at the head
    (a hand-edited or foreign ledger): there is nothing to publish, and the item is dropped."""


class GitFailed(SteadypressError):
    """A git command exited non-zero; `stderr` says why."""

    def __init__(self, args: Sequence[str], returncode: int, stderr: str) -> None:
        super().__init__(f"git {' '.join(args)} failed ({returncode}): {stderr.strip()}")
        self.returncode = returncode
        self.stderr = stderr


class GitHubError(SteadypressError):
    """GitHub answered with an error that retrying the same request cannot fix."""

    def __init__(self, status: int, message: str, *, method: str = "", path: str = "") -> None:
        super().__init__(f"GitHub answered {status} to {method} {path}: {message}".strip())
        self.status = status
        self.message = message


class GitHubUnreachable(GitHubError):
    """No answer from GitHub to a read after every try it gets (refused, dropped, timed out)."""

    def __init__(self, label: str, tries: int, cause: str) -> None:
        SteadypressError.__init__(self, f"GitHub not reached: {label}, {tries} tries ({cause})")
        self.status = 0
        self.message = f"not reached ({cause})"


class AuthFailed(GitHubError):
    """401: no token, or a wrong one. A configuration problem, not a transient one."""


class RateLimited(SteadypressError):
    """GitHub asked us to wait longer than this run may wait."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"GitHub rate limit: asked to wait {wait:.0f} s, more than this run may")
        self.wait = wait


class AmbiguousWrite(SteadypressError):
    """A write whose answer was lost (timeout, connection reset, 5xx): it may have happened."""


class GraphQLErrors(SteadypressError):
    """A GraphQL response with `errors`; `types` are GitHub's error types (e.g. STALE_DATA)."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(str(error.get("message", error)) for error in errors))
        self.errors = errors
        self.types = {str(error.get("type", "")) for error in errors}
