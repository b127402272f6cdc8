"""The commands behind the command line: the pipeline built, `status` and `check` run, the
commands that publish handed to `publish_commands.py`, exit codes per DESIGN.md. `cli.py`
parses the command line and imports this only to run a command.

0 done (dead letters are reported, not crashes); 1 some item failed this run and stays pending;
2 usage or configuration error; 3 the state could not be read or written (nothing was changed).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import signal
import sys
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from signal import SIGINT, SIGTERM
from types import FrameType
from typing import TYPE_CHECKING, TextIO

from steadypress.clock import Clock, SystemClock
from steadypress.commandline import (
    EXIT_OK,
    EXIT_PENDING,
    EXIT_STATE,
    EXIT_USAGE,
    default_backend,
)
from steadypress.config import CONFIG_FILE, Config, committed_config, load_config
from steadypress.contentref import ContentRef, choose_ref, elsewhere_notice
from steadypress.credentials import RedactingStream, Redactor, Secrets
from steadypress.errors import (
    ArticleError,
    ConfigError,
    GitFailed,
    GitHubError,
    GitHubUnreachable,
    StateError,
    SteadypressError,
    UsageError,
)
from steadypress.gitio import Git, SettledGit
from steadypress.localstate import local_state
from steadypress.status import describe, status_document
from steadypress.store import TransactionStats

if TYPE_CHECKING:
    from steadypress.alerts import AlertChannel
    from steadypress.check import Problem
    from steadypress.content import ContentSource
    from steadypress.pipeline import Pipeline
    from steadypress.runcontext import RunContext
    from steadypress.store import LedgerStore

__all__ = ["run"]


def _holder(environ: Mapping[str, str]) -> str:
    """Who is working, for humans reading the ledger; never used to decide anything."""
    run_id = environ.get("GITHUB_RUN_ID")
    if run_id:
        return f"actions:{run_id}/{environ.get('GITHUB_RUN_ATTEMPT', '1')}"
    return f"{os.uname().nodename}:{os.getpid()}"  # the host name, as gethostname() gives it


@dataclass(frozen=True)
class _Shell:
    """What the command line hands down: the clock, the environment, the redactor."""

    clock: Clock
    environ: Mapping[str, str]
    redact: Redactor
    # Inside GitHub Actions, the token that turns workflow commands back on: until then a file
    # name or a server's message that reads `::error::...` is printed as text, not obeyed.
    commands_token: str | None = None
    # What this run's transactions did, for the exit message: "nothing was changed" is said
    # only when it is true.
    stats: TransactionStats = field(default_factory=TransactionStats)
    # Set by the first SIGINT or SIGTERM (`_stopped_by_signals`); `stopped_by` names it.
    stopping: threading.Event = field(default_factory=threading.Event)
    stopped_by: list[int] = field(default_factory=list)

    def run_context(self, content: ContentRef | None = None) -> RunContext:
        from steadypress.runcontext import RunContext  # noqa: PLC0415 - not for `status`

        return RunContext(
            holder=_holder(self.environ),
            clock=self.clock,
            environ=self.environ,
            redact=self.redact,
            stats=self.stats,
            content_revision=content.revision if content else "HEAD",
            content_branch=content.name if content and not content.explicit else None,
            stopping=self.stopping,
        )


def _committed_config(git: Git, revision: str = "HEAD") -> Config:
    """The configuration committed at `revision`, with a word when the working copy of that
    commit says something else (an edit not committed yet does not apply, as with articles)."""
    repo = git.repo
    config = committed_config(git, revision)
    working = repo / CONFIG_FILE
    commit = git.resolve(f"{revision}^{{commit}}")
    if working.is_file() and not working.is_symlink() and commit == git.resolve("HEAD^{commit}"):
        committed = git.read_file(revision, CONFIG_FILE)
        if committed is None or committed[2] != working.read_bytes():
            print(
                f"steadypress: {CONFIG_FILE} has changes that are not committed; "
                "this run uses the committed version",
                file=sys.stderr,
            )
    return config


def _repository(folder: Path) -> Path:
    """The root of the repository `folder` is in: any subfolder works exactly like the root
    (the site and the dead letters go where they always go, never into the subfolder)."""
    try:
        return Path(Git(folder.resolve()).text("rev-parse", "--show-toplevel"))
    except (GitFailed, FileNotFoundError, NotADirectoryError):
        raise UsageError("--repo", f"{folder.resolve()} is not in a git repository") from None


def _configured(repo: Path, args: argparse.Namespace) -> tuple[Config, ContentRef]:
    """The configuration and the content branch it names, read from that branch: a
    `content_branch` committed on the default branch moves both to the branch it names."""
    with SettledGit(repo) as git:  # the refs it reads are read once, here
        asked = getattr(args, "ref", None)
        if args.config:
            config = load_config(args.config)
            chosen = choose_ref(git, asked=asked, configured=config.content_branch)
        else:
            chosen = choose_ref(git, asked=asked, configured=None)
            config = _committed_config(git, chosen.revision)
            if asked is None and config.content_branch not in (None, chosen.name):
                chosen = choose_ref(git, asked=None, configured=config.content_branch)
                config = _committed_config(git, chosen.revision)
        notice = elsewhere_notice(git, chosen)
    if notice:
        print(f"steadypress: {notice}", file=sys.stderr)
    return config, chosen


def _on_github(args: argparse.Namespace, shell: _Shell) -> bool:
    return (args.backend or default_backend(shell.environ)) == "github"


def _pipeline(args: argparse.Namespace, shell: _Shell) -> Pipeline:
    repo = _repository(args.repo)
    config, chosen = _configured(repo, args)
    on_github = _on_github(args, shell)
    if on_github and args.command == "live" and not chosen.explicit:
        # A live executor on GitHub fetches the branch as it moves; it reads what it fetched,
        # its configuration too (`live` reads it again when a fetch changes it).
        chosen = replace(chosen, revision=f"refs/remotes/origin/{chosen.name}")
        git = Git(repo)
        if not args.config and git.resolve(f"{chosen.revision}^{{commit}}") is not None:
            config = _committed_config(git, chosen.revision)
    if not on_github:
        # Everything that publishes, imported once a command publishes (not for `status`).
        from steadypress.backends import local_pipeline  # noqa: PLC0415

        return local_pipeline(repo, config, shell.run_context(chosen))
    from steadypress.github.backend import github_pipeline  # noqa: PLC0415 (GitHub only)

    return github_pipeline(repo, config, shell.run_context(chosen))


def _status(args: argparse.Namespace, shell: _Shell) -> int:
    """What is stuck and why, read from the state alone; with `--site`, the sites compared
    with their indexes too (the one part that builds the targets)."""
    pipeline = _pipeline(args, shell) if args.site or _on_github(args, shell) else None
    if pipeline is not None:
        store, alerts = pipeline.store, pipeline.alerts
    else:
        repo = _repository(args.repo)
        store, alerts = local_state(repo, _configured(repo, args)[0])
    _show_state(store, alerts, args, shell.clock)
    if pipeline is None or not args.site:
        return EXIT_OK
    from steadypress.publish_commands import sites_disagreeing  # noqa: PLC0415

    out = sys.stderr if args.json else sys.stdout
    return EXIT_PENDING if sites_disagreeing(pipeline, repair=False, out=out) else EXIT_OK


def _show_state(
    store: LedgerStore, alerts: AlertChannel, args: argparse.Namespace, clock: Clock
) -> None:
    snapshot = store.load()
    if args.json:
        print(
            json.dumps(status_document(snapshot.version, snapshot.ledger), indent=2, sort_keys=True)
        )
    else:
        version = snapshot.version
        where = store.where + (f" at {version[:12]}" if version else " (not created yet)")
        print(describe(snapshot.ledger, now=clock.now(), where=where, alerts=alerts))


def _check(args: argparse.Namespace, shell: _Shell) -> int:
    # The check renders through the theme: the renderers are loaded for it alone.
    from steadypress.backends import local_pipeline  # noqa: PLC0415
    from steadypress.check import (  # noqa: PLC0415
        check_articles,
        check_site,
        config_problem,
        look_changed,
    )
    from steadypress.planning import article_path  # noqa: PLC0415
    from steadypress.targets.generated.checking import (  # noqa: PLC0415
        check_generated_site,
        generated_sites,
    )
    from steadypress.targets.site.target import SiteTarget  # noqa: PLC0415

    repo = _repository(args.repo)
    git = Git(repo)
    try:
        config = load_config(args.config) if args.config else _committed_config(git)
    except ConfigError as error:
        committed = None if args.config else git.read_file("HEAD", CONFIG_FILE)
        if committed is None:
            raise
        # A pull request's own steadypress.yml: a problem on its line, as an article's is.
        return _report_check([config_problem(error, committed[2])], 0, shell, whole_site=False)
    # The theme is read from the commit checked, as its articles are.
    revision = git.worktree_commit() if args.worktree else "HEAD"
    pipeline = local_pipeline(repo, config, replace(shell.run_context(), content_revision=revision))
    content = pipeline.content
    commit = content.head()
    at_commit = content.list_articles(commit)
    chosen: Collection[str] = at_commit
    sites = {name: t for name, t in pipeline.targets.items() if isinstance(t, SiteTarget)}
    whole_site = not args.paths
    if args.paths:
        chosen = [article_path(raw, config) for raw in args.paths]
        missing = [path for path in chosen if path not in at_commit]
        if missing:
            raise UsageError(missing[0], "not an article here (is it committed? --worktree)")
    elif args.base:
        changes = content.changed_articles(args.base, commit)
        chosen = at_commit if changes is None else changes.changed
        whole_site = changes is None or look_changed(content, sites.values(), args.base, commit)
    problems = check_articles(content, commit, chosen, targets=pipeline.targets, sites=sites)
    for generated in generated_sites(pipeline.targets):
        problems += check_generated_site(generated, commit, chosen)
    if whole_site:
        for name, site in sites.items():
            problems += [p for p in check_site(content, commit, name, site) if p not in problems]
    if not args.worktree:
        _name_uncommitted(content)
    return _report_check(problems, len(chosen), shell, whole_site=whole_site and bool(sites))


def _name_uncommitted(content: ContentSource) -> None:
    """Articles the working tree holds that are not committed, new ones too: what a run
    publishes, and a check checks, is the commit, so they are named, not passed over."""
    waiting = [path for path in content.uncommitted() if content.is_article(path)]
    if not waiting:
        return
    shown = ", ".join(waiting[:5]) + (f" and {len(waiting) - 5} more" if len(waiting) > 5 else "")
    print(
        f"steadypress: {len(waiting)} article(s) with changes not committed, left out until "
        f"they are: {shown}",
        file=sys.stderr,
    )


def _report_check(
    problems: Sequence[Problem], checked: int, shell: _Shell, *, whole_site: bool
) -> int:
    from steadypress.check import job_summary, problem_annotations  # noqa: PLC0415
    from steadypress.report import append_job_summary  # noqa: PLC0415

    for problem in problems:
        print(f"{problem.path}:{problem.line}: {problem.message}")
    _annotate(problem_annotations(problems), shell)
    append_job_summary(job_summary(problems, checked, whole_site=whole_site),
                       redact=shell.redact, environ=shell.environ)  # fmt: skip
    built = ", the whole site built" if whole_site else ""
    print(f"steadypress check: {checked} article(s){built}, {len(problems)} problem(s)")
    return EXIT_PENDING if problems else EXIT_OK


def _from_here(paths: Sequence[str], repository: Path) -> list[str]:
    """Article paths as a shell completes them in a subfolder (`a.md` in `content/`): each
    made relative to the repository's root where that file is there from the current folder;
    any other as given (from the root, as the documentation and the workflows write them)."""
    here = os.getcwd()
    if Path(here) == repository:
        return list(paths)
    found = []
    for raw in paths:
        local = os.path.normpath(os.path.join(here, raw))
        relative = os.path.relpath(local, repository)
        inside = relative != ".." and not relative.startswith("../") and not os.path.isabs(raw)
        found.append(relative.replace(os.sep, "/") if inside and os.path.lexists(local) else raw)
    return found


def _execute(args: argparse.Namespace, shell: _Shell) -> int:
    if getattr(args, "paths", None):
        args.paths = _from_here(args.paths, _repository(args.repo))
    if args.command == "check":
        return _check(args, shell)
    if args.command == "init":
        from steadypress.init_command import init_blog  # noqa: PLC0415 - its own modules

        init_blog(_repository(args.repo), args)
        return EXIT_OK
    if args.command == "keep-schedule":
        from steadypress.github.auth import github_client_from  # noqa: PLC0415 - not the backend
        from steadypress.github.schedule import keep_schedule_alive  # noqa: PLC0415

        client, repository = github_client_from(
            shell.environ, clock=shell.clock, secrets=Secrets(shell.environ, shell.redact)
        )
        print(keep_schedule_alive(client, repository=repository, workflow=args.workflow))
        return EXIT_OK
    command = args.command
    if command == "status":
        return _status(args, shell)
    pipeline = _pipeline(args, shell)
    # The publishing modules, and the report of what they did.
    from steadypress.publish_commands import publish  # noqa: PLC0415
    from steadypress.report import Report, annotate, closing_line, write_job_summary  # noqa: PLC0415

    report = Report()

    pipeline = publish(pipeline, args, report, stop=shell.stopping,
                       rebuild=functools.partial(_pipeline, args, shell))  # fmt: skip
    report.deferred += pipeline.unfinished
    _annotate(annotate(report, environ=shell.environ), shell)
    write_job_summary(command, report, redact=shell.redact, environ=shell.environ)
    print(closing_line(command, report, pipeline.stats))
    if command == "run":
        _name_uncommitted(pipeline.content)
    if shell.stopped_by:
        signal_name = signal.Signals(shell.stopped_by[0]).name
        print(f"steadypress {command}: stopped by {signal_name}; what finished is recorded")
        return 128 + shell.stopped_by[0]
    return EXIT_OK if command in ("enqueue", "live") else report.exit_code


def run(
    args: argparse.Namespace,
    *,
    clock: Clock | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    """Run the command `args` names. `clock` and `environ` come from outside (the real ones by
    default), so tests drive time and the environment instead of waiting on them."""
    environ = os.environ if environ is None else environ
    in_actions = environ.get("GITHUB_ACTIONS") == "true"
    shell = _Shell(
        clock=clock or SystemClock(),
        environ=environ,
        redact=Redactor(),
        commands_token=os.urandom(16).hex() if in_actions else None,
    )
    # Whatever is printed from here on (our messages, a library's traceback, a server's
    # answer) passes the redactor, which learns each secret as it is read.
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(out, shell.redact), RedactingStream(err, shell.redact)
    if shell.commands_token:  # GitHub's "Stopping and starting workflow commands"
        _stop_commands(shell.commands_token)
    try:
        with _stopped_by_signals(shell, enabled=args.command in _STOPPABLE):
            code = _run(args, shell)
        sys.stdout.flush()
    except BrokenPipeError:  # `steadypress status | head`: the reader left; end quietly
        code = _quiet_after_broken_pipe(out)
    finally:
        sys.stdout, sys.stderr = out, err
    return code


# The commands that publish: asked to stop, they record what they finished and give back what
# they hold. The others end as the signal's default says.
_STOPPABLE = frozenset({"run", "drain", "sweep", "retry", "enqueue", "live"})


@contextlib.contextmanager
def _stopped_by_signals(shell: _Shell, *, enabled: bool) -> Iterator[None]:
    """SIGINT and SIGTERM ask the command to stop (`Pipeline.stopping`): the article in hand is
    finished, what finished is recorded, the leases held are given back, and the command
    exits 128 + the signal's number. A second signal stops the article in hand too (Actions
    sends SIGINT, then SIGTERM 7.5 s later, then kills). The handlers before are restored."""
    if not enabled or threading.current_thread() is not threading.main_thread():
        yield
        return

    def request_stop(signum: int, _frame: FrameType | None) -> None:
        if shell.stopping.is_set():
            raise KeyboardInterrupt  # the second: stop the article in hand too
        shell.stopped_by.append(signum)
        shell.stopping.set()

    before = {number: signal.signal(number, request_stop) for number in (SIGINT, SIGTERM)}
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def _stop_commands(token: str) -> None:
    """Workflow commands off until `::TOKEN::`. Sent at once: stdout is buffered on a runner
    while stderr is not, and a line of stderr naming an author's file must not reach the log
    before the stop does."""
    print(f"::stop-commands::{token}", flush=True)


def _annotate(annotations: Sequence[str], shell: _Shell) -> None:
    """steadypress's own annotations, the only workflow commands it lets through: commands on
    for them alone, then off again under a new token, before anything else is printed."""
    if not annotations or shell.commands_token is None:  # outside Actions, no annotation
        return
    print(f"::{shell.commands_token}::")
    for line in annotations:
        print(line)
    _stop_commands(os.urandom(16).hex())


def _quiet_after_broken_pipe(stream: TextIO) -> int:
    """Point the closed stream at /dev/null, so the interpreter's own flush at exit finds
    nothing to complain about (Python's documented recipe for SIGPIPE)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    return EXIT_OK


def _run(args: argparse.Namespace, shell: _Shell) -> int:
    try:
        return _execute(args, shell)
    except (ConfigError, ArticleError, StateError, GitHubError, GitFailed) as error:
        message, code = _explained(error, shell)
        print(f"steadypress: {message}", file=sys.stderr)
        return code
    except KeyboardInterrupt:  # a second signal, or ^C in a command that is not stoppable
        number = shell.stopped_by[0] if shell.stopped_by else SIGINT
        print(f"steadypress: stopped by {signal.Signals(number).name}, {_what_changed(shell)}",
              file=sys.stderr)  # fmt: skip
        return 128 + number


def _explained(error: SteadypressError, shell: _Shell) -> tuple[str, int]:
    """What a command that stopped says, and its exit code (DESIGN.md's contract)."""
    if isinstance(error, UsageError | ArticleError):
        return str(error), EXIT_USAGE
    if isinstance(error, ConfigError):
        return f"configuration error: {error}", EXIT_USAGE
    if isinstance(error, GitHubUnreachable):
        return f"{error}; {_what_changed(shell)}", EXIT_STATE
    if isinstance(error, GitHubError):
        return f"GitHub refused, {_what_changed(shell)}: {error}", EXIT_STATE
    if isinstance(error, GitFailed):
        return f"git failed, {_what_changed(shell)}: {error}", EXIT_STATE
    return f"state error, {_what_changed(shell)}: {error}", EXIT_STATE


def _what_changed(shell: _Shell) -> str:
    commits = shell.stats.commits
    if not commits:
        return "nothing was changed"
    return f"after {commits} state commit(s) of this run, which stand"
