"""The executor: claim, publish, verify, complete; written against the protocols only.

State writes do not grow with the work: one transaction claims a batch, one checkpoint records
its outcomes (and renews the leases still held), so a push of 100 articles costs a handful of
commits. A crash between checkpoints costs a republish, which idempotent targets make harmless.
"""

from __future__ import annotations

import random
import secrets
import sys
import time
import traceback
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from steadypress.alerts import AlertChannel
from steadypress.config import Config
from steadypress.content import Article, ContentSource
from steadypress.errors import ArticleError, PermanentError, TransientError
from steadypress.ledger import (
    ABSENT,
    Completion,
    DeadItem,
    Failure,
    Ledger,
    PendingItem,
    PublishedRecord,
    Resolution,
    claim,
    complete,
    fail,
    renew,
    select,
    set_issue,
)
from steadypress.store import LedgerStore, TransactionStats, transact
from steadypress.targets import BatchTarget, Receipt, Target
from steadypress.timefmt import utc_now

__all__ = ["CHECKPOINT_SECONDS", "CLAIM_BATCH", "Pipeline", "Report", "drain", "raise_alerts"]

# How many items one claim takes: small enough that racing executors share a big push, large
# enough that a push of 100 articles is four claims.
CLAIM_BATCH = 25
# Outcomes are recorded at least this often within a batch, renewing the leases still held.
CHECKPOINT_SECONDS = 20.0

Prepare = Callable[[Ledger, datetime], tuple[Ledger, list[str]]]


@dataclass
class Pipeline:
    """Everything an executor works with; the CLI wires it, tests build it from fakes."""

    config: Config
    store: LedgerStore
    content: ContentSource
    targets: Mapping[str, Target]
    alerts: AlertChannel
    holder: str
    clock: Callable[[], datetime] = utc_now
    rng: random.Random = field(default_factory=random.Random)
    stats: TransactionStats = field(default_factory=TransactionStats)
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr)

    @property
    def lease_ttl(self) -> timedelta:
        return self.config.timings.lease


@dataclass
class Report:
    """What one command did, for the terminal, the job summary and the exit code."""

    enqueued: list[str] = field(default_factory=list)
    published: list[tuple[str, str | None]] = field(default_factory=list)
    unpublished: list[str] = field(default_factory=list)
    deferred: list[tuple[str, str]] = field(default_factory=list)
    dead: list[DeadItem] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)
    skipped_targets: dict[str, str] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """1 when an item failed this run and stays pending; dead letters are not errors."""
        return 1 if self.deferred else 0


def _usable_targets(p: Pipeline, report: Report) -> set[str]:
    usable = set()
    for name, target in p.targets.items():
        reason = target.unavailable_reason()
        if reason is None:
            usable.add(name)
        elif name not in report.skipped_targets:
            report.skipped_targets[name] = reason
            p.log(f"target {name} skipped by this executor: {reason}")
    return usable


def drain(
    p: Pipeline,
    report: Report,
    *,
    grace: timedelta | None = None,
    prepare: Prepare | None = None,
    just_read: bool = False,
) -> Report:
    """Claim and publish what is claimable now, batch after batch, until nothing is left.

    `prepare` runs inside the first claim's transaction (enqueue and claim in one write) and
    returns the keys it enqueued; with `grace`, only those and items older than the grace period
    are taken. A version that failed in this run is not tried again by it: its backoff decides.

    The first claim starts from the store's last read when the caller has just read the ledger
    (`just_read`, or a `prepare`, which is planned on a read): with nothing to take, that costs
    no request at all, and a stale start costs one conflict. Later claims start from this
    executor's own last write.
    """
    usable = _usable_targets(p, report)
    attempted: set[tuple[str, str]] = set()
    exempt: set[str] = set()
    first_round = True

    def accept(item: PendingItem) -> bool:
        return item.target in usable and (item.key, item.blob) not in attempted

    while True:
        token = secrets.token_hex(8)
        run_prepare = prepare if first_round else None

        def take(
            ledger: Ledger, run_prepare: Prepare | None = run_prepare, token: str = token
        ) -> tuple[Ledger, tuple[list[str], list[tuple[PendingItem, PublishedRecord | None]]]]:
            now = p.clock()
            fresh: list[str] = []
            if run_prepare is not None:
                ledger, fresh = run_prepare(ledger, now)
            keys = select(
                ledger,
                now=now,
                grace=grace,
                exempt=exempt | set(fresh),
                accept=accept,
                limit=CLAIM_BATCH,
            )
            ledger, items = claim(
                ledger, keys, holder=p.holder, token=token, now=now, lease_ttl=p.lease_ttl
            )
            return ledger, (fresh, [(item, ledger.published.get(item.key)) for item in items])

        fresh, claimed = transact(
            p.store, take, message=f"steadypress: claim ({p.holder})", stats=p.stats, rng=p.rng,
            optimistic=just_read or prepare is not None or not first_round,
        )  # fmt: skip
        first_round = False
        exempt.update(fresh)
        report.enqueued.extend(fresh)
        if not claimed:
            return report
        attempted.update((item.key, item.blob) for item, _ in claimed)
        newer_pending = _work(p, report, claimed, token)
        if len(claimed) < CLAIM_BATCH and not newer_pending:
            # Everything claimable was in this batch; reading again would find nothing but the
            # work others enqueued since, which is theirs to take (or the sweeper's).
            return report


def _work(
    p: Pipeline,
    report: Report,
    claimed: list[tuple[PendingItem, PublishedRecord | None]],
    token: str,
) -> bool:
    """Publish a claimed batch; True when a completion left a newer version pending."""
    completions: list[Completion] = []
    failures: list[Failure] = []
    remaining = [item.key for item, _ in claimed]
    newer_pending = False
    last_checkpoint = time.monotonic()
    together = _publish_together(p, claimed, token)
    for item, previous in claimed:
        outcome = together.get(item.key) or _attempt(p, item, previous, token)
        if isinstance(outcome, Completion):
            completions.append(outcome)
        else:
            failures.append(outcome)
        remaining.remove(item.key)
        if not remaining or time.monotonic() - last_checkpoint >= CHECKPOINT_SECONDS:
            newer_pending |= _checkpoint(
                p, report, completions=completions, failures=failures, still_working=remaining,
                token=token,
            )  # fmt: skip
            completions, failures = [], []
            last_checkpoint = time.monotonic()
    return newer_pending


def _publish_together(
    p: Pipeline, claimed: list[tuple[PendingItem, PublishedRecord | None]], token: str
) -> dict[str, Completion | Failure]:
    """The outcomes of the batch's items whose target publishes many at once, by key."""
    groups: dict[str, tuple[BatchTarget, list[tuple[PendingItem, PublishedRecord | None]]]] = {}
    for item, previous in claimed:
        target = p.targets[item.target]
        if not item.unpublishes and isinstance(target, BatchTarget):
            groups.setdefault(item.target, (target, []))[1].append((item, previous))
    outcomes: dict[str, Completion | Failure] = {}
    for target, work in groups.values():
        ready: list[tuple[PendingItem, Article, PublishedRecord | None]] = []
        for item, previous in work:
            try:
                ready.append((item, p.content.read(item.path, item.blob, commit=item.commit),
                              previous))  # fmt: skip
            except ArticleError as error:
                outcomes[item.key] = _failure(p, item, token, error)
        results: list[Receipt | Exception]
        try:
            results = [*target.publish_batch([(article, prior) for _, article, prior in ready])]
            written = [(n, r) for n, r in enumerate(results) if isinstance(r, Receipt)]
            problems = target.verify_batch([(ready[n][1], receipt) for n, receipt in written])
            for (n, _receipt), problem in zip(written, problems, strict=True):
                results[n] = problem or results[n]
        except Exception as error:  # the whole write failed: each article failed with it
            results = [error] * len(ready)
        for (item, _article, _prior), result in zip(ready, results, strict=True):
            outcomes[item.key] = (
                _failure(p, item, token, result)
                if isinstance(result, Exception)
                else _completion(item, token, result)
            )
    return outcomes


def _attempt(
    p: Pipeline, item: PendingItem, previous: PublishedRecord | None, token: str
) -> Completion | Failure:
    target = p.targets[item.target]
    try:
        if item.unpublishes:
            target.unpublish(item.path, previous)
            receipt = Receipt(url=None, id=None)
        else:
            article = p.content.read(item.path, item.blob, commit=item.commit)
            receipt = target.publish(article, previous)
            target.verify(article, receipt)
    except Exception as error:  # a bug behind one article must not stop the others
        return _failure(p, item, token, error)
    return _completion(item, token, receipt)


def _completion(item: PendingItem, token: str, receipt: Receipt) -> Completion:
    return Completion(
        key=item.key,
        blob=item.blob,
        commit=item.commit,
        token=token,
        url=receipt.url,
        id=receipt.id,
    )


def _failure(p: Pipeline, item: PendingItem, token: str, error: Exception) -> Failure:
    """What an attempt's error means: permanent (a dead letter now), transient (with the
    server's hint of when to come back), or a bug, logged with its traceback and retried."""
    permanent, retry_after = False, None
    if isinstance(error, ArticleError):  # names its file already
        return Failure(item.key, item.blob, token, str(error), permanent=True)
    if isinstance(error, PermanentError):  # targets describe the problem; the file is named here
        message, permanent = f"{item.path}: {error}", True
    elif isinstance(error, TransientError):
        message, retry_after = f"{item.path}: {error}", error.retry_after
    else:
        p.log("".join(traceback.format_exception(error)).rstrip())
        message = f"{item.path}: unexpected {type(error).__name__}: {error}"
    return Failure(
        item.key, item.blob, token, message, permanent=permanent, retry_after=retry_after
    )


def _checkpoint(
    p: Pipeline,
    report: Report,
    *,
    completions: list[Completion],
    failures: list[Failure],
    still_working: Collection[str],
    token: str,
) -> bool:
    """Record a batch's outcomes (and renew the leases still held) in one transaction; True
    when a completion left a newer version of its article pending."""

    def record(ledger: Ledger) -> tuple[Ledger, tuple[list[DeadItem], list[Resolution], bool]]:
        now = p.clock()
        ledger, resolutions = complete(ledger, completions, now=now)
        ledger, buried = fail(ledger, failures, now=now, policy=p.config.retry_policy, rng=p.rng)
        ledger = renew(ledger, still_working, token=token, now=now, lease_ttl=p.lease_ttl)
        newer = any(done.key in ledger.pending for done in completions)
        return ledger, (buried, resolutions, newer)

    if not completions and not failures and not still_working:
        return False
    # Optimistic: this write always changes the ledger, so a stale start only costs a conflict.
    buried, resolutions, newer_pending = transact(
        p.store,
        record,
        message=f"steadypress: record outcomes ({p.holder})",
        stats=p.stats,
        rng=p.rng,
        optimistic=True,
    )
    for done in completions:
        if done.blob == ABSENT:
            report.unpublished.append(done.key)
            p.log(f"unpublished {done.key}")
        else:
            report.published.append((done.key, done.url))
            p.log(f"published {done.key}" + (f" -> {done.url}" if done.url else ""))
    dead_keys = {item.key for item in buried}
    for failure in failures:
        if not failure.permanent and failure.key not in dead_keys:
            report.deferred.append((failure.key, failure.error))
            p.log(f"deferred {failure.key}: {failure.error}")
    for resolution in resolutions:
        _resolve_alert(p, resolution)
    report.dead.extend(raise_alerts(p, buried))
    return newer_pending


def _resolve_alert(p: Pipeline, resolution: Resolution) -> None:
    try:
        p.alerts.resolve(resolution.issue, resolution.key, resolution.record)
    except Exception as error:  # the publication stands; a stale alert is only noise
        p.log(f"could not close dead letter #{resolution.issue} of {resolution.key}: {error}")


def raise_alerts(p: Pipeline, items: list[DeadItem]) -> list[DeadItem]:
    """Open an alert per dead item, then record the alert numbers in one transaction; returns
    the items with the numbers they now have.

    The ledger already holds the dead item, so an alert that cannot be opened now is not lost:
    the item keeps `issue: null` and every sweep tries again.
    """
    opened: dict[str, int] = {}
    for item in items:
        try:
            opened[item.key] = p.alerts.open(item)
        except Exception as error:  # any channel failure: the sweeper opens it later
            p.log(f"could not open a dead letter for {item.key} (the sweeper will retry): {error}")
    if not opened:
        return items

    def remember(ledger: Ledger) -> tuple[Ledger, dict[str, int | None]]:
        for key, issue in opened.items():
            ledger = set_issue(ledger, key, issue)
        recorded = {key: ledger.dead[key].issue if key in ledger.dead else None for key in opened}
        return ledger, recorded

    recorded = transact(
        p.store, remember, message="steadypress: record dead letters", stats=p.stats, rng=p.rng
    )
    for key, issue in opened.items():
        winner = recorded[key]
        if winner is not None and winner != issue:
            p.log(f"dead letter #{issue} of {key} duplicates #{winner}; retiring it")
            p.alerts.discard(issue, duplicate_of=winner)
    return [replace(item, issue=recorded.get(item.key) or item.issue) for item in items]
