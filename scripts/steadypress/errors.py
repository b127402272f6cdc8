"""The handful of exception types steadypress raises; each carries the data needed to act on it.

Errors are classified where they happen (a target, a parser, a store) and acted upon in the core:
a transient error is retried with backoff, a permanent one goes to the dead letters, a state or
configuration error stops the command with its own exit code before anything is written.
"""

from __future__ import annotations

__all__ = [
    "ArticleError",
    "ConfigError",
    "LedgerConflict",
    "PermanentError",
    "PublishError",
    "StateError",
    "SteadypressError",
    "TransientError",
]


class SteadypressError(Exception):
    """Base of every error steadypress raises on purpose."""


class ConfigError(SteadypressError):
    """The configuration or the command line is wrong (exit code 2)."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.message = message


class StateError(SteadypressError):
    """The ledger could not be read or written; nothing was changed (exit code 3)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


class LedgerConflict(SteadypressError):
    """Another writer moved the state branch since it was read: an ordinary outcome of CAS."""

    def __init__(self, expected: str | None, actual: str | None) -> None:
        super().__init__(f"state branch moved: expected {expected}, found {actual}")
        self.expected = expected
        self.actual = actual


class PublishError(SteadypressError):
    """A target could not publish an article."""


class TransientError(PublishError):
    """Worth retrying later; `retry_after` (seconds) is the server's own hint when it gave one."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class PermanentError(PublishError):
    """Retrying the same article version cannot help: it goes to the dead letters at once."""


class ArticleError(PermanentError):
    """An article cannot be read or its front matter is invalid; names the file and the problem."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message
