"""A claimed batch's outcomes and their record: what an attempt's error means, the ledger change
that records the outcomes and renews or gives back the leases still held (written alone, or
carried by the next claim's write), and what the executor then tells and raises."""

from __future__ import annotations

import traceback
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace

from steadypress.alerts.lifecycle import raise_alerts, settle_alerts
from steadypress.claiming import Completion, Failure, Resolution, complete, fail, release, renew
from steadypress.config import CONFIG_FILE
from steadypress.errors import (
    ArticleError,
    NotInContent,
    PermanentError,
    PublishError,
    Superseded,
    TransientError,
)
from steadypress.ledger import ABSENT, DeadItem, Ledger, PendingItem, split_key
from steadypress.pipeline import Pipeline
from steadypress.report import Report
from steadypress.targets.base import Receipt

__all__ = ["BatchOutcomes", "Record", "Recorded"]


@dataclass(frozen=True)
class Recorded:
    """What a write recording a batch's outcomes did."""

    completions: list[Completion]
    failures: list[Failure]
    still_working: list[str]  # the keys whose leases it renewed
    newly_dead: list[DeadItem]
    resolutions: list[Resolution]
    newer_pending: bool  # a newer version of an article it completed is waiting
    held: set[str]  # the keys still leased to the batch
    given_back: bool = False  # the leases still working were given back, not renewed


Record = Callable[[Ledger], tuple[Ledger, Recorded]]


@dataclass
class BatchOutcomes:
    """The outcomes of a batch claimed under `token` so far, and the keys still leased to it
    (`held`); `head` gives the content's head commit, read once for the batch."""

    pipeline: Pipeline
    report: Report
    token: str
    held: list[str]
    head: Callable[[], str]
    completions: list[Completion] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    newer_pending: bool = False  # a newer version of an article it completed is waiting
    # Per failed key, the repository paths its error said a fix may change (an image).
    depends_on: dict[str, Sequence[str]] = field(default_factory=dict)

    def completed(self, item: PendingItem, receipt: Receipt) -> Completion:
        return Completion(
            key=item.key,
            blob=item.blob,
            commit=item.commit,
            token=self.token,
            url=receipt.url,
            id=receipt.id,
        )

    def failed(self, item: PendingItem, error: Exception) -> Failure:
        """What an attempt's error means: permanent (a dead letter now), transient (with the
        server's hint of when to come back), or a bug, logged with its traceback and retried.
        Whatever the message quotes, no secret of this run is recorded."""
        redact = self.pipeline.redact
        permanent, retry_after = False, None
        if isinstance(error, PublishError):
            self.depends_on[item.key] = error.depends_on
        if isinstance(error, NotInContent):
            return Failure(item.key, item.blob, self.token, redact(str(error)), gone=True)
        if isinstance(error, ArticleError):  # names its file already
            return Failure(item.key, item.blob, self.token, redact(str(error)), permanent=True)
        if isinstance(error, Superseded):
            message = redact(f"{item.path}: {error}")
            return Failure(item.key, item.blob, self.token, message, superseded=True)
        if isinstance(error, PermanentError):  # targets describe the problem; the file is named
            message, permanent = f"{item.path}: {error}", True
        elif isinstance(error, TransientError):
            message, retry_after = f"{item.path}: {error}", error.retry_after
        else:
            self.pipeline.log(redact("".join(traceback.format_exception(error)).rstrip()))
            message = f"{item.path}: unexpected {type(error).__name__}: {error}"
        return Failure(
            item.key,
            item.blob,
            self.token,
            redact(message),
            permanent=permanent,
            retry_after=retry_after,
        )

    def add(self, outcome: Completion | Failure) -> None:
        if isinstance(outcome, Completion):
            self.completions.append(outcome)
        else:
            self.failures.append(outcome)

    def _with_depends(self, failures: list[Failure]) -> list[Failure]:
        """The failures with what each depended on, as the content head has it now: the
        article, the configuration, and what its error named. A commit that changes one of
        them is what retries the item if it dies (one `ls-tree` for the whole batch)."""
        if not failures:
            return failures
        watched = {
            failure.key: {
                path.strip("/")
                for path in (split_key(failure.key)[1], CONFIG_FILE,
                             *self.depends_on.pop(failure.key, ()))
            } - {""}
            for failure in failures
        }  # fmt: skip
        found = self.pipeline.content.versions(self.head(), set().union(*watched.values()))
        return [
            replace(
                failure, depends=tuple((path, found[path]) for path in sorted(watched[failure.key]))
            )
            for failure in failures
        ]

    def checkpoint(self) -> None:
        """Record the outcomes so far and renew the leases still held, in one transaction."""
        if (record := self.record()) is not None:
            self._write(record)

    def stop(self) -> None:
        """Asked to stop: record the outcomes so far and give back the leases still held (no
        attempt counted, no lapse: another run takes them at once), in one transaction."""
        if (record := self.record(give_back=True)) is not None:
            self._write(record)

    def record_alone(self, record: Record, *, after: Exception) -> None:
        """Write `record`, which the next claim's write was to carry, in a write of its own:
        that claim failed (`after`), and what this batch published is still recorded."""
        try:
            self._write(record)
        except Exception as error:  # the claim's own failure is the one reported
            self.pipeline.log(f"recording outcomes after a failed claim ({after}) failed: {error}")

    def _write(self, record: Record) -> None:
        # Optimistic: this write always changes the ledger, so a stale start only costs a conflict.
        recorded = self.pipeline.transact(
            record,
            message=f"steadypress: record outcomes ({self.pipeline.holder})",
            optimistic=True,
        )
        self.recorded(recorded)

    def record(self, *, give_back: bool = False) -> Record | None:
        """The ledger change that records the outcomes so far and renews the leases still
        held (gives them back, with `give_back`), for one transaction (`recorded` then takes
        its result); None when there is nothing to record. The outcomes are handed over: a
        second call has none of them."""
        pipeline = self.pipeline
        completions, still_working = self.completions, list(self.held)
        failures = self._with_depends(self.failures)
        self.completions, self.failures = [], []
        if not completions and not failures and not still_working:
            return None

        def record(ledger: Ledger) -> tuple[Ledger, Recorded]:
            now = pipeline.clock.now()
            ledger, resolutions = complete(ledger, completions, now=now)
            ledger, newly_dead = fail(
                ledger, failures, now=now, policy=pipeline.config.retry_policy, rng=pipeline.rng
            )
            if give_back:
                ledger = release(ledger, still_working, token=self.token)
            else:
                ledger = renew(
                    ledger, still_working, token=self.token, now=now, lease_ttl=pipeline.lease_ttl
                )
            newer = any(done.key in ledger.pending for done in completions)
            return ledger, Recorded(
                completions=completions,
                failures=failures,
                still_working=still_working,
                newly_dead=newly_dead,
                resolutions=resolutions,
                newer_pending=newer,
                held=_held(ledger, self.token),
                given_back=give_back,
            )

        return record

    def recorded(self, outcome: Recorded) -> None:
        """After the write that recorded outcomes: what the executor tells and raises."""
        pipeline, report = self.pipeline, self.report
        lost = [key for key in outcome.still_working if key not in outcome.held]
        if outcome.given_back:
            report.given_back.extend(lost)
            if lost:
                pipeline.log(f"asked to stop: given back, not worked: {', '.join(lost)}")
        elif lost:
            pipeline.log(f"leases taken over by another executor, left to it: {', '.join(lost)}")
        self.held = [key for key in self.held if key in outcome.held]
        if not outcome.given_back:
            pipeline.lease.renewed()
        self.newer_pending |= outcome.newer_pending
        _tell(pipeline, report, outcome.completions, outcome.failures, outcome.newly_dead)
        settle_alerts(pipeline, outcome.resolutions)
        report.dead.extend(raise_alerts(pipeline, outcome.newly_dead))


def _held(ledger: Ledger, token: str) -> set[str]:
    return {
        key
        for key, item in ledger.pending.items()
        if item.lease is not None and item.lease.token == token
    }


def _tell(
    pipeline: Pipeline,
    report: Report,
    completions: Collection[Completion],
    failures: Collection[Failure],
    newly_dead: Collection[DeadItem],
) -> None:
    for done in completions:
        if done.blob == ABSENT:
            report.unpublished.append(done.key)
            pipeline.log(f"unpublished {done.key}")
        else:
            report.published.append((done.key, done.url))
            pipeline.log(f"published {done.key}" + (f" -> {done.url}" if done.url else ""))
    dead_keys = {item.key for item in newly_dead}
    for failure in failures:
        if failure.superseded:
            report.handed_over.append((failure.key, failure.error))
            pipeline.log(f"left to a newer run: {failure.key}: {failure.error}")
        elif failure.gone:
            report.dropped.append((failure.key, failure.error))
            pipeline.log(f"dropped {failure.key}: {failure.error}")
        elif not failure.permanent and failure.key not in dead_keys:
            report.deferred.append((failure.key, failure.error))
            pipeline.log(f"deferred {failure.key}: {failure.error}")
