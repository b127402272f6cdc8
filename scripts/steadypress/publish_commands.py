"""The commands that publish (`run`, `enqueue`, `drain`, `sweep`, `retry`, `live`), run on a
pipeline `commands.py` built: the executor, the sweeper and live mode wired to the command
line. Imported only by a command that publishes, so `status` loads none of them."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import TextIO

from steadypress.config import CONFIG_FILE
from steadypress.errors import UsageError
from steadypress.executor import drain
from steadypress.ledger import Ledger, item_key
from steadypress.live import live
from steadypress.pipeline import Pipeline
from steadypress.planning import article_path, paths_prepare, push_prepare, reconcile
from steadypress.report import Report
from steadypress.sweeper import sweep
from steadypress.timefmt import format_time
from steadypress.transitions import retry

__all__ = ["publish", "sites_disagreeing"]


def publish(
    pipeline: Pipeline,
    args: argparse.Namespace,
    report: Report,
    *,
    stop: threading.Event,
    rebuild: Callable[[], Pipeline],
) -> Pipeline:
    """The publishing command `args` names, run on `pipeline`: the pipeline it ended with
    (live mode builds a new one with `rebuild` when the configuration changes; `stop` is set
    when the command is asked to stop)."""
    command = args.command
    if command == "run":
        drain(pipeline, report, prepare=reconcile(pipeline))
    elif command == "enqueue":
        _enqueue(pipeline, args, report)
    elif command == "drain":
        prepare = push_prepare(pipeline, *args.push) if args.push else None
        # A push's plan read the ledger, even when it found nothing to enqueue.
        drain(pipeline, report, prepare=prepare, just_read=bool(args.push))
    elif command == "sweep":
        sweep(pipeline, report, grace=pipeline.config.timings.grace)
        if args.repair_site:
            sites_disagreeing(pipeline, repair=True)
    elif command == "retry":
        _retry(pipeline, args, report)
    elif command == "live":
        pipeline = _live(pipeline, args, report, stop=stop, rebuild=rebuild)
    return pipeline


def _enqueue(pipeline: Pipeline, args: argparse.Namespace, report: Report) -> None:
    if args.push and args.paths:
        raise UsageError("enqueue", "give either --push BEFORE AFTER or article paths, not both")
    if not args.push and not args.paths:
        raise UsageError("enqueue", "give --push BEFORE AFTER or one or more article paths")
    prepare = (
        push_prepare(pipeline, *args.push) if args.push else paths_prepare(pipeline, args.paths)
    )
    if prepare is not None:
        fresh = pipeline.transact(
            lambda ledger: prepare(ledger, pipeline.clock.now()),
            message=f"steadypress: enqueue ({pipeline.holder})",
        )
        report.enqueued.extend(fresh)


def _retry(pipeline: Pipeline, args: argparse.Namespace, report: Report) -> None:
    ledger = pipeline.store.load().ledger
    if args.all_dead:
        keys = sorted(ledger.dead)
    elif args.issue is not None:
        keys = _letter_keys(pipeline, ledger, args.issue)
    else:
        keys = _retry_keys(pipeline, ledger, args.paths)
    retried = pipeline.transact(
        lambda current: retry(current, keys, now=pipeline.clock.now()),
        message=f"steadypress: retry ({pipeline.holder})",
    )
    report.retried.extend(retried)
    if args.issue is not None:
        pipeline.alerts.acknowledge_retry(args.issue)
    if not retried:
        pipeline.log("nothing to retry: no dead or pending item matches")
    now = pipeline.clock.now()
    for key in retried:
        item = pipeline.store.last_known()
        waiting = item.ledger.pending.get(key) if item is not None else None
        if waiting is not None and waiting.not_before is not None and waiting.not_before > now:
            pipeline.log(f"{key} is scheduled: it publishes at {format_time(waiting.not_before)}")
    drain(pipeline, report)


def _letter_keys(pipeline: Pipeline, ledger: Ledger, alert: int) -> list[str]:
    """The items a letter is about: those the ledger says carry its number, else (a letter
    whose number was never recorded) the items of the article its marker names."""
    keys = sorted(
        key
        for section in (ledger.dead, ledger.pending)
        for key, item in section.items()
        if item.alert == alert
    )
    if keys:
        return keys
    path = pipeline.alerts.article_of(alert)
    if path is None:
        raise UsageError("--issue", f"no dead letter #{alert} names an item")
    return sorted(
        item_key(target, path)
        for target in pipeline.targets
        if item_key(target, path) in ledger.dead or item_key(target, path) in ledger.pending
    )


def _retry_keys(pipeline: Pipeline, ledger: Ledger, raw_paths: list[str]) -> list[str]:
    """The items of the articles named; a path with none, or a fix that is not committed yet,
    is said before anything changes."""
    paths = [article_path(raw, pipeline.config) for raw in raw_paths]
    keys = []
    for path in paths:
        found = [item_key(target, path) for target in pipeline.targets]
        found = [key for key in found if key in ledger.pending or key in ledger.dead]
        if not found:
            raise UsageError(path, "nothing to retry: no pending or dead item for this article")
        keys += found
    uncommitted = pipeline.content.uncommitted(CONFIG_FILE)
    if uncommitted:
        shown = ", ".join(uncommitted[:3]) + (" ..." if len(uncommitted) > 3 else "")
        raise UsageError(
            "retry",
            f"changes that are not committed ({shown}): a retry publishes what is committed, "
            "so commit the fix first; nothing was changed",
        )
    return keys


def _live(
    pipeline: Pipeline,
    args: argparse.Namespace,
    report: Report,
    *,
    stop: threading.Event,
    rebuild: Callable[[], Pipeline],
) -> Pipeline:
    if pipeline.watch is None:
        raise UsageError("live", "live mode on GitHub watches a branch, not a --ref commit")
    # A configuration given as a file is not the one pushed: there is nothing to follow.
    return live(pipeline, report, watch=pipeline.watch, interval=args.interval,
                ticks=args.ticks, stop=stop, rebuild=None if args.config else rebuild)  # fmt: skip


def sites_disagreeing(pipeline: Pipeline, *, repair: bool, out: TextIO | None = None) -> int:
    """How many files of the pipeline's sites disagree with their index (`agreement.py`),
    each named on `out` (stdout unless said); `repair`: and written again from it."""
    from steadypress.targets.site.target import SiteTarget  # noqa: PLC0415

    found = 0
    for name, target in pipeline.targets.items():
        if not isinstance(target, SiteTarget):
            continue
        lines = target.disagreements(repair=repair)
        found += len(lines)
        for line in lines:
            print(f"{name}: {line}", file=out)
        if not lines:
            print(f"{name}: the sitemaps and listing pages agree with the site's index", file=out)
        elif repair:
            print(f"{name}: {len(lines)} file(s) written again from the site's index", file=out)
        else:
            repair_hint = "`steadypress sweep --repair-site` writes them again from it"
            print(f"{name}: {len(lines)} file(s) disagree with the site's index; {repair_hint}",
                  file=out)  # fmt: skip
    return found
