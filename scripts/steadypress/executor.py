"""The executor: claim, publish, verify, complete; written against the protocols only.

State writes do not grow with the work: one transaction claims a batch and records the outcomes
of the batch before (a checkpoint of their own where no claim follows), so a push of 100
articles costs a handful of commits. A crash between checkpoints costs a republish, which
idempotent targets make harmless.

A lease protects an item only while it is renewed, so renewal follows the lease, not the work:
a checkpoint falls due a third of a lease after the last one, measured on the pipeline's clock
before each article (within a batch target's one call, as each of its pages is laid out),
however slowly this process is being run. An item whose lease another
executor took over meanwhile is left to it, never published a second time here. What a batch's
outcomes mean and how they are recorded is `outcomes.py`'s.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta

from steadypress.alerts.lifecycle import raise_alerts
from steadypress.articles import Article, require_configured_targets
from steadypress.claiming import Completion, Failure, claim, select
from steadypress.claims import MAX_CLAIM, claim_size
from steadypress.errors import (
    ArticleError,
    PublishError,
)
from steadypress.ledger import DeadItem, Ledger, PendingItem, PublishedRecord
from steadypress.lookahead import READ_AHEAD_MOST, batch_targets, read_ahead, render_ahead
from steadypress.outcomes import BatchOutcomes, Record, Recorded
from steadypress.pipeline import Pipeline
from steadypress.planning import Prepare, admission, upcoming
from steadypress.report import Report
from steadypress.targets.base import BatchTarget, Receipt

__all__ = ["CHECKPOINT_SECONDS", "drain"]

# Outcomes are recorded at least this often within a batch, renewing the leases still held
# (and sooner when a third of the lease has passed).
CHECKPOINT_SECONDS = 20.0

Claimed = list[tuple[PendingItem, PublishedRecord | None]]
# Articles read for one write: the item, the article, what the target held before.
_Ready = Sequence[tuple[PendingItem, Article, PublishedRecord | None]]


def _usable_targets(pipeline: Pipeline, report: Report) -> set[str]:
    usable = set()
    for name, target in pipeline.targets.items():
        reason = target.unavailable_reason()
        if reason is None:
            usable.add(name)
        elif name not in report.skipped_targets:
            report.skipped_targets[name] = reason
            pipeline.log(f"target {name} skipped by this executor: {reason}")
    return usable


def drain(
    pipeline: Pipeline,
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
    Each later claim enqueues the next window of a large import (`admission`), so one drain
    publishes all of it while the ledger holds one window at a time.

    The first claim starts from the store's last read when the caller has just read the ledger
    (`just_read`, or a `prepare`, which is planned on a read): with nothing to take, that costs
    no request at all, and a stale start costs one conflict. Later claims start from this
    executor's own last write.
    """
    usable = _usable_targets(pipeline, report)
    attempted: set[tuple[str, str]] = set()
    exempt: set[str] = set()
    first_round = True
    claimed_before = 0  # the size of this drain's first claim
    admit = admission(pipeline)
    # Batch targets whose last batch was not final: their `finish` ends the drain.
    unfinished: dict[str, BatchTarget] = {}

    def accept(item: PendingItem) -> bool:
        return item.target in usable and (item.key, item.blob) not in attempted

    # The batch before, when its last outcomes are to be recorded by the next claim's write
    # (one state commit less a batch).
    unrecorded: BatchOutcomes | None = None
    while True:
        if _stopped(pipeline, unrecorded):
            return report
        record = unrecorded.record() if unrecorded is not None else None
        try:
            token, taken = _claim(
                pipeline,
                prepare=prepare if first_round else admit,
                record=record,
                earlier=claimed_before,
                choose=functools.partial(select, grace=grace, accept=accept),
                exempt=exempt,
                optimistic=just_read or prepare is not None or not first_round,
            )
        except Exception as error:
            if unrecorded is not None and record is not None:
                unrecorded.record_alone(record, after=error)
            raise
        if unrecorded is not None and taken.recorded is not None:
            unrecorded.recorded(taken.recorded)
        unrecorded = None
        _bury(pipeline, report, taken.buried)
        first_round = False
        claimed_before = claimed_before or taken.limit
        exempt.update(taken.fresh)
        report.enqueued.extend(taken.fresh)
        if not taken.claimed and not (taken.more and taken.fresh):
            break
        attempted.update((item.key, item.blob) for item, _ in taken.claimed)
        last = not taken.more
        if taken.more:
            _render_next_window(pipeline)
        batch = _Batch(pipeline, report, taken.claimed, token=token, final=last)
        batch.work()
        for name, target in batch.batched.items():
            if last:
                unfinished.pop(name, None)
            else:
                unfinished[name] = target
        if not last or pipeline.stopping.is_set():
            unrecorded = batch.outcomes  # recorded by the next claim, or given back by the stop
            continue
        batch.outcomes.checkpoint()
        if not batch.outcomes.newer_pending:
            # Reading again would find nothing but the work others enqueued since, which is
            # theirs to take (or the sweeper's).
            break
    _finish(pipeline, unfinished)
    return report


def _stopped(pipeline: Pipeline, unrecorded: BatchOutcomes | None) -> bool:
    """Whether the drain was asked to stop; if so the batch not recorded yet is, and its leases
    still held are given back. Nothing more is claimed, and what waits for a target's `finish`
    is kept by the target for its next write."""
    if not pipeline.stopping.is_set():
        return False
    if unrecorded is not None:
        unrecorded.stop()
    return True


@dataclass(frozen=True)
class _Taken:
    """What a claim's write did."""

    fresh: list[str]  # the keys its plan enqueued
    claimed: Claimed
    limit: int  # the most it could take
    more: bool  # whether more is waiting for a later claim of the drain
    recorded: Recorded | None  # the outcomes of the batch before it recorded, if any
    buried: list[DeadItem]  # items whose runs kept stopping, buried instead of claimed


def _claim(
    pipeline: Pipeline,
    *,
    prepare: Prepare | None,
    record: Record | None,
    earlier: int,
    choose: Callable[..., list[str]],
    exempt: set[str],
    optimistic: bool,
) -> tuple[str, _Taken]:
    """One write: record the batch before's outcomes (`record`), enqueue what `prepare`
    plans, and claim a batch (`choose`: `select` with the drain's filters; at least as many
    as the drain's `earlier` claim took) under a new lease token, returned with what the write
    did."""
    token = secrets.token_hex(8)

    def take(ledger: Ledger) -> tuple[Ledger, _Taken]:
        recorded = None
        if record is not None:
            ledger, recorded = record(ledger)
        now = pipeline.clock.now()
        fresh: list[str] = []
        if prepare is not None:
            ledger, fresh = prepare(ledger, now)
        backlog = ledger.reconciled is not None and ledger.reconciled.backlog is not None
        # Behind a backlog there is more waiting work than pending.json shows.
        limit = MAX_CLAIM if backlog else claim_size(len(ledger.pending), earlier=earlier)
        chosen = functools.partial(choose, now=now, exempt=exempt | set(fresh),
                                   first=exempt | set(fresh))  # fmt: skip
        keys = chosen(ledger, limit=limit)
        ledger, items, buried = claim(
            ledger, keys, holder=pipeline.holder, token=token, now=now,
            lease_ttl=pipeline.lease_ttl,
        )  # fmt: skip
        ledger.published.preload(item.key for item in items)
        claimed = [(item, ledger.published.get(item.key)) for item in items]
        # A full choice may leave more, and so may one the claim took only part of (items that
        # lapsed keep it small).
        left_some = len(keys) == limit or len(items) + len(buried) < len(keys)
        more = backlog or (left_some and bool(chosen(ledger, limit=1)))
        return ledger, _Taken(fresh, claimed, limit, more, recorded, buried)

    taken = pipeline.transact(
        take,
        message=f"steadypress: {'record outcomes and ' if record else ''}claim ({pipeline.holder})",
        optimistic=optimistic,
        announce=lambda taken: _ahead_of_claim(pipeline, taken.claimed, more=taken.more),
    )
    return token, taken


def _bury(pipeline: Pipeline, report: Report, buried: list[DeadItem]) -> None:
    """After a claim's write: the dead letters of the items it buried."""
    for item in buried:
        pipeline.log(f"gave up on {item.key}: {item.last_error}")
    if buried:
        report.dead.extend(raise_alerts(pipeline, buried))


def _ahead_of_claim(pipeline: Pipeline, claimed: Claimed, *, more: bool) -> None:
    """Before a claim is written: what its batch will publish and remove, for the targets to
    read ahead (a push) or, when more batches follow it (an import), to render meanwhile."""
    versions = [(i.target, i.path, i.blob, i.commit) for i, _ in claimed if not i.unpublishes]
    read_ahead(
        pipeline,
        versions,
        [(i.target, i.path, previous) for i, previous in claimed if i.unpublishes],
    )
    if more and len(versions) > READ_AHEAD_MOST:
        render_ahead(pipeline, versions)


def _render_next_window(pipeline: Pipeline) -> None:
    """Before a batch that more will follow: the articles the next claim is likely to take
    (the backlog's next window), for batch targets to render while this batch is written."""
    batched = batch_targets(pipeline)
    known = pipeline.store.last_known()
    if not batched or known is None:
        return
    try:
        likely = upcoming(pipeline, known.ledger)
    except Exception as error:  # a saving lost, never the work: the next claim plans its own
        pipeline.log(f"rendering ahead failed, rendered when written: {error}")
        return
    # In the order the claim will hand them over, for the first page laid out not to wait for
    # the last body rendered: a window is enqueued at one moment, so `select` takes its items
    # by key, which for one target is by path (the window's own order is newest first).
    render_ahead(pipeline, [(target, *version) for version in sorted(likely) for target in batched])


def _finish(pipeline: Pipeline, unfinished: Mapping[str, BatchTarget]) -> None:
    """Let each batch target write what the drain's batches left waiting. A failure here loses
    nothing: the target keeps a record of what waits, and its next write does it."""
    for name, target in unfinished.items():
        try:
            target.finish()
        except Exception as error:
            pipeline.log(
                f"target {name}: finishing the run failed, left to its next write: {error}"
            )


class _Batch:
    """One claimed batch being worked; its outcomes so far, and the leases it still holds, are
    `outcomes`."""

    def __init__(
        self,
        pipeline: Pipeline,
        report: Report,
        claimed: Claimed,
        *,
        token: str,
        final: bool = True,
    ) -> None:
        self.pipeline = pipeline
        self.final = final  # no batch of this drain follows
        self.batched: dict[str, BatchTarget] = {}  # the batch targets it published to
        self.claimed = claimed
        # Leased to us, not yet worked: every item claimed, to begin with.
        held = [item.key for item, _ in claimed]
        self.outcomes = BatchOutcomes(pipeline, report, token, held=held, head=self._head)
        pipeline.lease.renewed()  # claimed just now
        self.every = min(CHECKPOINT_SECONDS, pipeline.lease_ttl.total_seconds() / 3)
        self.head: str | None = None  # the content head, read once for the batch

    def work(self) -> None:
        """Each item worked, one after the other, until the command is asked to stop (then
        the items not worked stay held, for `stop` to give back). A second signal stops the
        article in hand too: its outcome is unknown, and it is given back with the rest (a
        target looks for what it wrote before writing again)."""
        stopping, outcomes = self.pipeline.stopping, self.outcomes
        try:
            together = self._publish_together()
            for item, previous in self.claimed:
                outcome = together.get(item.key)
                if outcome is None and stopping.is_set():
                    continue  # not started: given back; what was done together is recorded
                self._keep_leases()
                if item.key not in outcomes.held:
                    continue  # its lease lapsed and another executor took it over: theirs now
                self.pipeline.lease.working_on(taken_over=item.lapses > 0)
                outcomes.add(outcome or self._attempt(item, previous))
                outcomes.held.remove(item.key)
        except KeyboardInterrupt:
            stopping.set()

    def _keep_leases(self) -> None:
        """Record outcomes and renew the leases when a checkpoint is due."""
        # On the monotonic clock: a UTC time stepped back would put the renewal off for good.
        if self.pipeline.lease.since_renewed() >= self.every:
            self.outcomes.checkpoint()

    def _publish_together(self) -> dict[str, Completion | Failure]:
        """The outcomes of the batch's items whose target publishes many at once, by key."""
        pipeline = self.pipeline
        groups: dict[str, tuple[BatchTarget, Claimed]] = {}
        removals: dict[str, tuple[BatchTarget, Claimed]] = {}
        # Asked once a target, not once an item: a protocol's isinstance takes some 14 µs.
        together = batch_targets(pipeline)
        for item, previous in self.claimed:
            if (target := together.get(item.target)) is not None:
                chosen = removals if item.unpublishes else groups
                chosen.setdefault(item.target, (target, []))[1].append((item, previous))
        outcomes: dict[str, Completion | Failure] = self._remove_together(removals)
        for name, (target, work) in groups.items():
            if pipeline.stopping.is_set():
                break
            ready: list[tuple[PendingItem, Article, PublishedRecord | None]] = []
            for item, previous in work:
                try:
                    article = self._read(item)
                except ArticleError as error:
                    outcomes[item.key] = self.outcomes.failed(item, error)
                else:
                    ready.append((item, article, previous))
            self._keep_leases()
            ready = [entry for entry in ready if entry[0].key in self.outcomes.held]
            self.batched[name] = target
            results = self._publish_apart(target, ready)
            for (item, _article, _prior), result in zip(ready, results, strict=True):
                outcomes[item.key] = (
                    self.outcomes.failed(item, result)
                    if isinstance(result, Exception)
                    else self.outcomes.completed(item, result)
                )
        return outcomes

    def _publish_apart(self, target: BatchTarget, ready: _Ready) -> list[Receipt | Exception]:
        """Each article's result of one write of them all. A write that fails whole with an
        error that is no verdict on the write (a `PublishError`: weather, a refusal, a newer
        run's work) but something one article may meet (a name a file system refuses, a bug)
        wrote nothing, so it is made again in halves: the article behind it fails alone and
        the others publish. Where both halves fail as the whole did, the fault is the write's
        own, and splitting stops (3 writes, not one an article)."""
        return self._results(target, ready, self._publish_batch(target, ready))

    def _results(
        self, target: BatchTarget, ready: _Ready, outcome: list[Receipt | Exception] | Exception
    ) -> list[Receipt | Exception]:
        """The results of `ready` from the `outcome` of its write, split as `_publish_apart`
        says where the write failed whole."""
        if not isinstance(outcome, Exception):
            return outcome
        if isinstance(outcome, PublishError) or len(ready) == 1:
            return [outcome] * len(ready)
        half = len(ready) // 2
        parts = [ready[:half], ready[half:]]
        outcomes = [self._publish_batch(target, part) for part in parts]
        if all(isinstance(o, Exception) and str(o) == str(outcome) for o in outcomes):
            return [outcome] * len(ready)
        return [
            result
            for part, part_outcome in zip(parts, outcomes, strict=True)
            for result in self._results(target, part, part_outcome)
        ]

    def _publish_batch(
        self, target: BatchTarget, ready: _Ready
    ) -> list[Receipt | Exception] | Exception:
        """Each article's result of one write of `ready`, or the error the whole write failed
        with."""
        try:
            results: list[Receipt | Exception] = [
                *target.publish_batch(
                    [(article, prior) for _, article, prior in ready],
                    final=self.final,
                    keep_alive=self._keep_leases,
                )
            ]
            written = [(n, r) for n, r in enumerate(results) if isinstance(r, Receipt)]
            problems = target.verify_batch([(ready[n][1], receipt) for n, receipt in written])
            for (n, _receipt), problem in zip(written, problems, strict=True):
                results[n] = problem or results[n]
        except Exception as error:  # the whole write failed: each article failed with it
            return error
        return results

    def _remove_together(
        self, removals: dict[str, tuple[BatchTarget, Claimed]]
    ) -> dict[str, Completion | Failure]:
        """Removals from a target that removes many at once: one write each target, all
        done or all failed together."""
        outcomes: dict[str, Completion | Failure] = {}
        for target, claimed in removals.values():
            self._keep_leases()
            work = [(item, previous) for item, previous in claimed
                    if item.key in self.outcomes.held]  # fmt: skip
            try:
                target.unpublish_batch([(item.path, previous) for item, previous in work])
            except Exception as error:  # the one write failed: each removal failed with it
                outcomes.update((item.key, self.outcomes.failed(item, error)) for item, _ in work)
            else:
                done = Receipt(url=None, id=None)
                outcomes.update((item.key, self.outcomes.completed(item, done)) for item, _ in work)
        return outcomes

    def _attempt(self, item: PendingItem, previous: PublishedRecord | None) -> Completion | Failure:
        target = self.pipeline.targets[item.target]
        try:
            if item.unpublishes:
                target.unpublish(item.path, previous)
                receipt = Receipt(url=None, id=None)
            else:
                article = self._read(item)
                receipt = target.publish(article, previous)
                target.verify(article, receipt)
        except Exception as error:  # a bug behind one article must not stop the others
            return self.outcomes.failed(item, error)
        return self.outcomes.completed(item, receipt)

    def _head(self) -> str:
        if self.head is None:
            self.head = self.pipeline.content.head()
        return self.head

    def _read(self, item: PendingItem) -> Article:
        # A retried or swept item is read at the content's head when it is still the version
        # there, so a fix committed since (an image, say) is what it is published with.
        article = self.pipeline.content.read(
            item.path, item.blob, commit=item.commit, newest=self._head()
        )
        require_configured_targets(article, self.pipeline.targets)
        return article
