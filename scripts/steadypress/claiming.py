"""The pending ledger's transitions of a run's work: the items it chooses and claims under a
lease, renews and gives back, and the outcomes it records. Pure functions of a `Ledger`, the
facts a run reports and `now`, each returning a new `Ledger` that shares the sections it did
not touch, so the store writes only the files that changed. The rules they keep are
`ledger.py`'s; work entering and leaving the ledger is `transitions.py`'s."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from steadypress.backoff import backoff_seconds
from steadypress.ledger import (
    ABSENT,
    HISTORY_LIMIT,
    LAPSES_FATAL,
    Attempt,
    DeadItem,
    Depends,
    Lease,
    Ledger,
    PendingItem,
    PublishedRecord,
    RetryPolicy,
    split_key,
)
from steadypress.timefmt import format_time

__all__ = [
    "Completion",
    "Failure",
    "Resolution",
    "claim",
    "complete",
    "fail",
    "release",
    "renew",
    "select",
]


@dataclass(frozen=True, slots=True)
class Completion:
    key: str
    blob: str
    commit: str
    token: str
    url: str | None = None
    id: str | None = None


@dataclass(frozen=True, slots=True)
class Failure:
    key: str
    blob: str
    token: str
    error: str
    permanent: bool = False
    retry_after: float | None = None
    depends: Depends = ()
    superseded: bool = False  # not a failure of the version: let go, due at once (`Superseded`)
    gone: bool = False  # the item names no file of the content: dropped (`NotInContent`)


@dataclass(frozen=True, slots=True)
class Resolution:
    """A dead-letter alert that a completion made obsolete: the shell closes it. `record.blob` is
    `ABSENT` when the completion unpublished the article."""

    key: str
    alert: int
    record: PublishedRecord


def _renewed(
    mapping: Mapping[str, PendingItem],
    updates: Mapping[str, PendingItem | None],
) -> Mapping[str, PendingItem]:
    """`mapping` with `updates` applied (None removes); the same object when nothing changed."""
    changed = {key: item for key, item in updates.items() if mapping.get(key) != item}
    if not changed:
        return mapping
    result = dict(mapping)
    for key, item in changed.items():
        if item is None:
            result.pop(key, None)
        else:
            result[key] = item
    return result


def select(
    ledger: Ledger,
    *,
    now: datetime,
    grace: timedelta | None = None,
    exempt: Collection[str] = (),
    first: Collection[str] = (),
    accept: Callable[[PendingItem], bool] = lambda _item: True,
    limit: int | None = None,
) -> list[str]:
    """Keys an executor may take now: `first` before the rest (a push's own articles, however
    much older work waits), then oldest first.

    An item is taken when it is pending, due, not under a live lease and accepted by the executor
    (it can run that target). With `grace`, only items enqueued at least that long ago are taken,
    so a sweeper does not race the event-path executor that enqueued them; `exempt` keys (those
    the sweeper enqueued itself) are taken at once.
    """
    horizon = now - grace if grace is not None else None
    chosen = [
        item
        for key, item in ledger.pending.items()
        if item.is_claimable(now)
        and (horizon is None or item.enqueued_at <= horizon or key in exempt)
        and accept(item)
    ]

    def order(item: PendingItem) -> tuple[bool, datetime, str]:
        return (item.key not in first, item.next_attempt_at or item.enqueued_at, item.key)

    # A partial sort: a claim takes a few dozen of what may be 10^5 waiting items.
    ranked = sorted(chosen, key=order) if limit is None else heapq.nsmallest(limit, chosen, order)
    return [item.key for item in ranked]


def claim(
    ledger: Ledger,
    keys: Iterable[str],
    *,
    holder: str,
    token: str,
    now: datetime,
    lease_ttl: timedelta,
) -> tuple[Ledger, list[PendingItem], list[DeadItem]]:
    """Lease the claimable items among `keys` (in that order) to `holder`; returns the items as
    claimed, and those buried instead.

    An item whose lease ran out is a lapse: its holder never completed, failed or released it.
    The claim that takes it counts it and tells it in the item's history, and grows no larger
    than its lapsed items allow (`PendingItem.claimed_with_at_most`). An item that would not
    fit is left as it is for a later claim: its holder may be alive, only slow, and may still
    renew it. An item lapsing `LAPSES_FATAL` times is buried, not claimed.
    """
    lease = Lease(holder=holder, token=token, expires_at=now + lease_ttl)
    updates: dict[str, PendingItem | None] = {}
    claimed: list[PendingItem] = []
    buried: list[DeadItem] = []
    most: int | None = None  # the largest this claim may grow, by the lapsed items it holds
    for key in keys:
        item = ledger.pending.get(key)
        if item is None or not item.is_claimable(now) or key in updates:
            continue
        if (ran_out := item.lease) is not None:
            item = _lapsed(item, ran_out, now)
            if item.lapses >= LAPSES_FATAL:
                # The last runs had it alone: the article itself stops them, and trying again
                # would only stop another (a maintainer retries it once its cause is fixed).
                corpse = _dead(item, now, attempts=item.attempts + item.lapses,
                               history=item.history, permanent=True)  # fmt: skip
                buried.append(corpse)
                updates[key] = None
                continue
        allowed = item.claimed_with_at_most
        size = len(claimed) + 1
        if (most is not None and size > most) or (allowed is not None and size > allowed):
            continue
        if allowed is not None:
            most = allowed if most is None else min(most, allowed)
        claimed.append(replace(item, lease=lease))
        updates[key] = claimed[-1]
    if not updates:
        return ledger, [], []
    pending = _renewed(ledger.pending, updates)
    dead = {**ledger.dead, **{corpse.key: corpse for corpse in buried}} if buried else ledger.dead
    return replace(ledger, pending=pending, dead=dead), claimed, buried


def _lapsed(item: PendingItem, ran_out: Lease, now: datetime) -> PendingItem:
    """`item`, its lease that ran out counted as a lapse and dropped; due now (it was when
    claimed, and the lease's length was its wait)."""
    said = (
        f"the run publishing it ({ran_out.holder}) stopped before it finished: killed, "
        "out of memory or out of time"
    )
    history = (*item.history, Attempt(at=now, error=said))[-HISTORY_LIMIT:]
    return replace(
        item,
        lapses=item.lapses + 1,
        history=history,
        last_error=said,
        lease=None,
        next_attempt_at=None,
    )


def _dead(
    item: PendingItem,
    now: datetime,
    *,
    attempts: int,
    history: tuple[Attempt, ...],
    permanent: bool,
    depends: Depends = (),
) -> DeadItem:
    """`item` buried now, after `attempts` told by `history`; its alert goes with it."""
    return DeadItem(
        target=item.target,
        path=item.path,
        blob=item.blob,
        commit=item.commit,
        died_at=now,
        attempts=attempts,
        history=history,
        permanent=permanent,
        alert=item.alert,
        depends=depends,
    )


def renew(
    ledger: Ledger, keys: Iterable[str], *, token: str, now: datetime, lease_ttl: timedelta
) -> Ledger:
    """Extend the leases `token` still holds on `keys`; one taken over by another is left alone."""
    updates: dict[str, PendingItem | None] = {}
    for key in keys:
        item = ledger.pending.get(key)
        if item is not None and item.lease is not None and item.lease.token == token:
            updates[key] = replace(item, lease=replace(item.lease, expires_at=now + lease_ttl))
    pending = _renewed(ledger.pending, updates)
    return ledger if pending is ledger.pending else replace(ledger, pending=pending)


def release(ledger: Ledger, keys: Iterable[str], *, token: str) -> Ledger:
    """Give back leases without counting an attempt (the executor could not run the target)."""
    updates: dict[str, PendingItem | None] = {}
    for key in keys:
        item = ledger.pending.get(key)
        if item is not None and item.lease is not None and item.lease.token == token:
            updates[key] = replace(item, lease=None)
    pending = _renewed(ledger.pending, updates)
    return ledger if pending is ledger.pending else replace(ledger, pending=pending)


def complete(
    ledger: Ledger, completions: Iterable[Completion], *, now: datetime
) -> tuple[Ledger, list[Resolution]]:
    """Record what was published, even if the lease was lost meanwhile: the result is the truth.

    The current version of an article is its pending blob, else its dead blob, else its published
    blob. Completing the current version finishes it (and resolves its dead-letter alert). A
    completion of an older version (a slow executor whose lease was taken over) is recorded too,
    since that write happened, but the current version is then pending again: the late write may
    have overwritten it on the target. Completing `ABSENT` leaves a record whose blob is
    `ABSENT` (a tombstone): a late write of an older version is then known to need undoing.
    A late write of work the ledger no longer held at all clears the reconcile's marker.
    """
    completions = list(completions)
    if not completions:
        return ledger, []
    pending = dict(ledger.pending)
    published: dict[str, PublishedRecord] = {}  # what these completions record
    ledger.published.preload(done.key for done in completions)
    dead = dict(ledger.dead)
    reconciled = ledger.reconciled
    resolutions: list[Resolution] = []
    for done in completions:
        record = PublishedRecord(
            blob=done.blob,
            commit=done.commit,
            id=done.id,
            published_at=format_time(now),
            url=done.url,
        )
        previous = published.get(done.key) or ledger.published.get(done.key)
        if done.blob == ABSENT and previous is not None:
            # The remote id is kept: an article that comes back returns to its old post.
            record = record._replace(id=previous.id)
        published[done.key] = record
        item = pending.get(done.key)
        dead_item = dead.get(done.key)
        if item is not None and item.blob == done.blob:
            del pending[done.key]
            if item.alert is not None:
                resolutions.append(Resolution(key=done.key, alert=item.alert, record=record))
        elif item is not None:
            if item.lease is not None and item.lease.token == done.token:
                pending[done.key] = replace(item, lease=None)
        elif dead_item is not None and dead_item.blob == done.blob:
            del dead[done.key]
            if dead_item.alert is not None:
                resolutions.append(Resolution(key=done.key, alert=dead_item.alert, record=record))
        elif dead_item is None and previous is not None and previous.blob != done.blob:
            target, path = split_key(done.key)
            pending[done.key] = PendingItem(
                target=target,
                path=path,
                blob=previous.blob,
                commit=previous.commit,
                enqueued_at=now,
            )
        elif dead_item is None and previous is None and done.blob != ABSENT:
            # A write of work the ledger had let go of (withdrawn after its lease ran out, while
            # its holder was still at it): only the content knows whether the article still
            # wants it (the configuration may have changed since, or the article gone), so the
            # next sweep compares everything instead of taking the content head as settled.
            reconciled = None
    return (
        replace(
            ledger,
            pending=ledger.pending if pending == ledger.pending else pending,
            published=ledger.published.renewed(published),
            dead=ledger.dead if len(dead) == len(ledger.dead) else dead,
            reconciled=reconciled,
        ),
        resolutions,
    )


def fail(
    ledger: Ledger,
    failures: Iterable[Failure],
    *,
    now: datetime,
    policy: RetryPolicy,
    rng: random.Random,
) -> tuple[Ledger, list[DeadItem]]:
    """Count failed attempts, schedule the next with backoff, and bury what keeps failing.

    A failure counts only against the version it was about and only if its lease was not taken
    over by another executor; otherwise it is news about old work and changes nothing but the
    lease it held. So does a `superseded` one: the executor was too old to do the work, which
    any newer one may take at once. A `gone` one is dropped: it names no file to publish.
    Returns the items that died.
    """
    pending_updates: dict[str, PendingItem | None] = {}
    dead = dict(ledger.dead)
    newly_dead: list[DeadItem] = []
    for failure in failures:
        if failure.key in pending_updates:
            item = pending_updates[failure.key]
        else:
            item = ledger.pending.get(failure.key)
        if item is None or item.lease is None or item.lease.token != failure.token:
            continue
        if item.blob != failure.blob or failure.superseded:
            pending_updates[failure.key] = replace(item, lease=None)
            continue
        if failure.gone:
            pending_updates[failure.key] = None
            continue
        attempts = item.attempts + 1
        history = (*item.history, Attempt(at=now, error=failure.error))[-HISTORY_LIMIT:]
        if failure.permanent or attempts >= policy.max_attempts:
            corpse = _dead(item, now, attempts=attempts, history=history,
                           permanent=failure.permanent, depends=failure.depends)  # fmt: skip
            dead[failure.key] = corpse
            newly_dead.append(corpse)
            pending_updates[failure.key] = None
            continue
        wait = backoff_seconds(
            attempts,
            wait_initial=policy.backoff_initial,
            wait_max=policy.backoff_max,
            jitter=rng.random(),
        )
        if failure.retry_after is not None:
            # The server said when it will take the request again; waiting less is wasted work.
            wait = max(wait, min(failure.retry_after, policy.backoff_max))
        pending_updates[failure.key] = replace(
            item,
            attempts=attempts,
            next_attempt_at=now + timedelta(seconds=wait),
            last_error=failure.error,
            history=history,
            lease=None,
        )
    pending = _renewed(ledger.pending, pending_updates)
    if pending is ledger.pending and not newly_dead:
        return ledger, []
    return replace(ledger, pending=pending, dead=dead if newly_dead else ledger.dead), newly_dead
