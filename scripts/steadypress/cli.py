"""The command line: argparse in front, the executor and sweeper behind, exit codes per DESIGN.md.

0 done (dead letters are reported, not crashes); 1 some item failed this run and stays pending;
2 usage or configuration error; 3 the state could not be read or written (nothing was changed).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys
import threading
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from types import FrameType

from steadypress import __version__
from steadypress.backends import (
    default_backend,
    github_client_from,
    github_pipeline,
    local_pipeline,
)
from steadypress.codec import ledger_document
from steadypress.config import Config, load_config
from steadypress.errors import ArticleError, ConfigError, GitFailed, GitHubError, StateError
from steadypress.executor import Pipeline, Prepare, Report, drain
from steadypress.github.schedule import keep_schedule_alive
from steadypress.gitio import Git
from steadypress.ledger import Ledger, item_key, retry
from steadypress.live import live
from steadypress.report import annotate, closing_line, write_job_summary
from steadypress.store import transact
from steadypress.sweeper import enqueue_prepare, push_prepare, reconcile, sweep
from steadypress.timefmt import format_time

__all__ = ["main"]

EXIT_OK, EXIT_PENDING, EXIT_USAGE, EXIT_STATE = 0, 1, 2, 3


def _holder() -> str:
    """Who is working, for humans reading the ledger; never used to decide anything."""
    run_id = os.environ.get("GITHUB_RUN_ID")
    if run_id:
        return f"actions:{run_id}/{os.environ.get('GITHUB_RUN_ATTEMPT', '1')}"
    return f"{socket.gethostname()}:{os.getpid()}"


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--config", type=Path, help="configuration file (default: REPO/steadypress.yml)"
    )
    common.add_argument(
        "--backend",
        choices=["local", "github"],
        help="where state and targets live: local (the state branch of --repo, local output) or "
        "github (the repository on GitHub); default: github inside GitHub Actions, else local",
    )
    common.add_argument("--repo", type=Path, default=Path(), help="the git repository (default: .)")

    parser = argparse.ArgumentParser(prog="steadypress", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"steadypress {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "run",
        parents=[common],
        help="enqueue every unpublished article, then publish (the default job)",
    )
    enqueue = commands.add_parser("enqueue", parents=[common], help="record articles as pending")
    enqueue.add_argument(
        "--push",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="the articles changed between two commits of a push",
    )
    enqueue.add_argument("paths", nargs="*", metavar="PATH", help="articles at HEAD")
    drain_cmd = commands.add_parser(
        "drain", parents=[common], help="claim and publish what is claimable now"
    )
    drain_cmd.add_argument(
        "--push",
        nargs=2,
        metavar=("BEFORE", "AFTER"),
        help="first enqueue the articles a push changed, in the same write as the first claim",
    )
    commands.add_parser(
        "sweep",
        parents=[common],
        help="reconcile, publish stale or due items, re-open missing alerts",
    )
    retry_cmd = commands.add_parser(
        "retry", parents=[common], help="retry dead or waiting items now"
    )
    chosen = retry_cmd.add_mutually_exclusive_group(required=True)
    chosen.add_argument("paths", nargs="*", default=[], metavar="PATH")
    chosen.add_argument("--all-dead", action="store_true", help="every dead item")
    chosen.add_argument("--issue", type=int, metavar="N", help="the item named by dead letter N")
    status = commands.add_parser(
        "status", parents=[common], help="what is pending, published, dead"
    )
    status.add_argument("--json", action="store_true", help="the whole ledger as JSON")
    keep = commands.add_parser(
        "keep-schedule",
        parents=[common],
        help="re-enable the sweep workflow if GitHub disabled it for inactivity (GitHub backend)",
    )
    keep.add_argument(
        "--workflow", default="sweep.yml", help="the workflow file (default: sweep.yml)"
    )
    live_cmd = commands.add_parser("live", parents=[common], help="poll and publish until stopped")
    live_cmd.add_argument("--interval", type=float, default=30.0, metavar="SECONDS")
    live_cmd.add_argument("--ticks", type=int, metavar="N", help="stop after N polls")
    return parser


def _pipeline(args: argparse.Namespace) -> Pipeline:
    repo = args.repo.resolve()
    if not Git(repo).is_repository():
        raise ConfigError("--repo", f"{repo} is not a git repository")
    config = load_config(args.config or repo / "steadypress.yml")
    if (args.backend or default_backend(os.environ)) == "github":
        return github_pipeline(repo, config, holder=_holder())
    return local_pipeline(repo, config, holder=_holder())


def _article_path(path: str, config: Config) -> str:
    """A path named on the command line: inside the content folder, a Markdown file, no `..`."""
    posix = PurePosixPath(path)
    if (
        posix.is_absolute()
        or ".." in posix.parts
        or posix.suffix != ".md"
        or not str(posix).startswith(f"{config.content_dir}/")
    ):
        raise ConfigError(
            path, f"not an article path: must be a .md file under {config.content_dir}/"
        )
    return str(posix)


def _paths_prepare(p: Pipeline, paths: list[str]) -> Prepare | None:
    """The change enqueuing named articles as they are at HEAD."""
    commit = p.content.head()
    at_head = p.content.list_articles(commit)
    articles = {}
    for raw in paths:
        path = _article_path(raw, p.config)
        if path not in at_head:
            raise ConfigError(path, "not an article at HEAD (is it committed?)")
        articles[path] = at_head[path]
    return enqueue_prepare(p, articles, commit)


def _enqueue(p: Pipeline, args: argparse.Namespace, report: Report) -> None:
    if args.push and args.paths:
        raise ConfigError("enqueue", "give either --push BEFORE AFTER or article paths, not both")
    if not args.push and not args.paths:
        raise ConfigError("enqueue", "give --push BEFORE AFTER or one or more article paths")
    prepare = push_prepare(p, *args.push) if args.push else _paths_prepare(p, args.paths)
    if prepare is not None:
        fresh = transact(
            p.store,
            lambda ledger: prepare(ledger, p.clock()),
            message=f"steadypress: enqueue ({p.holder})",
            stats=p.stats,
            rng=p.rng,
        )
        report.enqueued.extend(fresh)


def _retry(p: Pipeline, args: argparse.Namespace, report: Report) -> None:
    ledger = p.store.load().ledger
    if args.all_dead:
        keys = sorted(ledger.dead)
    elif args.issue is not None:
        key = p.alerts.key_of(args.issue)
        if key is None:
            raise ConfigError("--issue", f"no dead letter #{args.issue} names an item")
        keys = [key]
    else:
        paths = [_article_path(raw, p.config) for raw in args.paths]
        keys = [item_key(target, path) for path in paths for target in p.targets]
    retried = transact(
        p.store,
        lambda current: retry(current, keys, now=p.clock()),
        message=f"steadypress: retry ({p.holder})",
        stats=p.stats,
        rng=p.rng,
    )
    report.retried.extend(retried)
    if args.issue is not None:
        p.alerts.acknowledge_retry(args.issue)
    if not retried:
        p.log("nothing to retry: no dead or pending item matches")
    drain(p, report)


def _status(p: Pipeline, args: argparse.Namespace) -> None:
    snapshot = p.store.load()
    if args.json:
        document = {"state_version": snapshot.version, **ledger_document(snapshot.ledger)}
        print(json.dumps(document, indent=2, sort_keys=True))
        return
    print(_describe(p, snapshot.version, snapshot.ledger))


def _describe(p: Pipeline, version: str | None, ledger: Ledger) -> str:
    now = p.clock()
    where = (
        f"{p.store.where} at {version[:12]}" if version else f"{p.store.where} (not created yet)"
    )
    unpublished = sum(record.unpublished for record in ledger.published.values())
    lines = [
        where,
        f"published: {len(ledger.published) - unpublished}"
        + (f" (and {unpublished} unpublished)" if unpublished else ""),
        f"pending: {len(ledger.pending)}",
    ]
    for key, item in sorted(ledger.pending.items()):
        notes = ["to unpublish"] if item.unpublishes else []
        if item.lease and item.lease.is_live(now):
            notes.append(
                f"leased by {item.lease.holder} until {format_time(item.lease.expires_at)}"
            )
        elif item.lease:
            notes.append(f"expired lease of {item.lease.holder}")
        if item.not_before and item.not_before > now:
            notes.append(f"scheduled for {format_time(item.not_before)}")
        if item.next_attempt_at and item.next_attempt_at > now:
            notes.append(f"attempt {item.attempts + 1} at {format_time(item.next_attempt_at)}")
        if item.last_error:
            notes.append(f"last error: {item.last_error}")
        lines.append(f"  {key}: {'; '.join(notes) or 'due now'}")
    lines.append(f"dead: {len(ledger.dead)}")
    for key, dead in sorted(ledger.dead.items()):
        issue = f"#{dead.issue}" if dead.issue else "no alert yet"
        shown = ledger.published.get(key)
        still = (
            f"; the target still shows an older version ({shown.url or shown.blob[:12]})"
            if shown is not None and not shown.unpublished and not dead.unpublishes
            else ""
        )
        lines.append(f"  {key} ({issue}): {dead.last_error}{still}")
    return "\n".join(lines)


def _live(p: Pipeline, args: argparse.Namespace, report: Report) -> None:
    stop = threading.Event()

    def request_stop(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    live(p, report, interval=args.interval, ticks=args.ticks, stop=stop)


def _execute(args: argparse.Namespace) -> int:
    if args.command == "keep-schedule":
        client, repository = github_client_from(os.environ)
        print(keep_schedule_alive(client, repository=repository, workflow=args.workflow))
        return EXIT_OK
    p = _pipeline(args)
    report = Report()
    command = args.command
    if command == "status":
        _status(p, args)
        return EXIT_OK
    if command == "run":
        drain(p, report, prepare=reconcile(p))
    elif command == "enqueue":
        _enqueue(p, args, report)
    elif command == "drain":
        drain(p, report, prepare=push_prepare(p, *args.push) if args.push else None)
    elif command == "sweep":
        sweep(p, report, grace=p.config.timings.grace)
    elif command == "retry":
        _retry(p, args, report)
    elif command == "live":
        _live(p, args, report)
    for line in annotate(report):
        print(line)
    write_job_summary(command, report)
    print(closing_line(command, report, p.stats))
    return EXIT_OK if command in ("enqueue", "live") else report.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _execute(args)
    except ConfigError as error:
        print(f"steadypress: configuration error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ArticleError as error:
        print(f"steadypress: {error}", file=sys.stderr)
        return EXIT_USAGE
    except StateError as error:
        print(f"steadypress: state error, nothing was changed: {error}", file=sys.stderr)
        return EXIT_STATE
    except GitHubError as error:
        print(f"steadypress: GitHub refused: {error}", file=sys.stderr)
        return EXIT_STATE
    except GitFailed as error:
        print(f"steadypress: git failed, nothing was changed: {error}", file=sys.stderr)
        return EXIT_STATE
