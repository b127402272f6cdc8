"""The pending ledger's transitions of work entering and leaving it: enqueued, retried, revived,
withdrawn, retired; an alert recorded, the next wake. Pure functions of a `Ledger`, the facts
given and `now`, each returning a new `Ledger` that shares the sections it did not touch, so
the store writes only the files that changed. The rules they keep are `ledger.py`'s; a run's
claims and outcomes are `claiming.py`'s."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from steadypress.ledger import (
    ABSENT,
    DeadItem,
    Ledger,
    PendingItem,
    item_key,
)

__all__ = [
    "Sighting",
    "enqueue",
    "next_wake",
    "record_alert",
    "retire",
    "retry",
    "revive",
    "withdraw",
]


@dataclass(frozen=True, slots=True)
class Sighting:
    """An article version seen in a commit of the content branch, to be published to `target`."""

    target: str
    path: str
    blob: str
    commit: str
    not_before: datetime | None = None
    republish: bool = False  # even the version the target holds: its look changed

    @property
    def key(self) -> str:
        return item_key(self.target, self.path)


def enqueue(
    ledger: Ledger, sightings: Iterable[Sighting], *, now: datetime
) -> tuple[Ledger, list[str]]:
    """Record article versions as unfinished work; returns the keys that are newly pending.

    Idempotent: a blob already pending, published or dead is not enqueued again; so is `ABSENT`
    for an article the ledger knows nothing of. A sighting to `republish` is enqueued though
    the target holds its version.
    """
    pending = dict(ledger.pending)
    dead = dict(ledger.dead)
    fresh: list[str] = []
    sightings = list(sightings)
    # Only what is not pending asks what the target holds: those records, read together.
    ledger.published.preload(sighting.key for sighting in sightings if sighting.key not in pending)
    for sighting in sightings:
        key = sighting.key
        current = pending.get(key)
        if current is not None:
            if current.blob == sighting.blob:
                continue
            # A newer version replaces the older one with fresh chances, but keeps its lease: the
            # holder may be writing the old version right now, and the new one must follow it.
            # This holds even when the article went back to what the target holds: an attempt at
            # the version replaced may have reached the target before it failed.
            pending[key] = replace(
                current,
                blob=sighting.blob,
                commit=sighting.commit,
                enqueued_at=now,
                not_before=sighting.not_before,
                attempts=0,
                lapses=0,
                next_attempt_at=None,
                last_error=None,
                history=(),
            )
            fresh.append(key)
            continue
        dead_item = dead.get(key)
        if dead_item is not None and dead_item.blob == sighting.blob:
            continue
        published = ledger.published.get(key)
        on_target = published.blob if published is not None else ABSENT
        if dead_item is None and on_target == sighting.blob and not sighting.republish:
            continue
        if dead_item is not None:
            # The dead version is no longer the newest: the new one carries its alert, which
            # finishing it closes (even when the target already holds it).
            del dead[key]
        pending[key] = PendingItem(
            target=sighting.target,
            path=sighting.path,
            blob=sighting.blob,
            commit=sighting.commit,
            enqueued_at=now,
            not_before=sighting.not_before,
            alert=dead_item.alert if dead_item is not None else None,
        )
        fresh.append(key)
    if not fresh:
        return ledger, []
    new_dead = dead if len(dead) != len(ledger.dead) else ledger.dead
    return replace(ledger, pending=pending, dead=new_dead), fresh


def retry(ledger: Ledger, keys: Iterable[str], *, now: datetime) -> tuple[Ledger, list[str]]:
    """Give dead or waiting items a fresh start now; returns the keys that were retried.

    A dead item comes back with attempts reset and its alert number, so a success closes that
    alert and a second death reuses it. A pending item becomes due at once. A live lease is kept.
    """
    pending = dict(ledger.pending)
    dead = dict(ledger.dead)
    retried: list[str] = []
    for key in keys:
        corpse = dead.pop(key, None)
        if corpse is not None:
            pending[key] = PendingItem(
                target=corpse.target,
                path=corpse.path,
                blob=corpse.blob,
                commit=corpse.commit,
                enqueued_at=now,
                history=corpse.history,
                alert=corpse.alert,
            )
            retried.append(key)
        elif key in pending:
            pending[key] = replace(pending[key], attempts=0, next_attempt_at=None)
            retried.append(key)
    if not retried:
        return ledger, []
    return replace(ledger, pending=pending, dead=dead), retried


def revive(
    ledger: Ledger, versions: Mapping[str, str], *, now: datetime
) -> tuple[Ledger, list[str]]:
    """Retry the dead items named in `versions` (key -> blob) that are still dead at that
    version: something they depended on changed, so the fix may be in. Returns the keys."""
    keys = [
        key
        for key, blob in versions.items()
        if key in ledger.dead and ledger.dead[key].blob == blob
    ]
    return retry(ledger, keys, now=now)


def withdraw(ledger: Ledger, keys: Iterable[str], *, now: datetime) -> tuple[Ledger, list[str]]:
    """Drop pending work for articles that are no longer to be published (deleted, or turned
    into drafts); returns the keys dropped. An item under a live lease is left to its holder:
    it may be writing right now, and what it writes is recorded as what happened."""
    dropped = [
        key for key in keys if key in ledger.pending and not ledger.pending[key].is_leased(now)
    ]
    if not dropped:
        return ledger, []
    pending = {key: item for key, item in ledger.pending.items() if key not in set(dropped)}
    return replace(ledger, pending=pending), dropped


def retire(
    ledger: Ledger, keys: Iterable[str], *, now: datetime
) -> tuple[Ledger, list[DeadItem | PendingItem]]:
    """Forget items no executor can ever take again (their target is no longer configured),
    dead or pending (a pending one under a live lease is left to its holder); returns them,
    so that their alerts can be closed."""
    keys = set(keys)
    dead_gone = [ledger.dead[key] for key in keys if key in ledger.dead]
    pending_gone = [
        ledger.pending[key]
        for key in keys
        if key in ledger.pending and not ledger.pending[key].is_leased(now)
    ]
    if not dead_gone and not pending_gone:
        return ledger, []
    retired: list[DeadItem | PendingItem] = [*dead_gone, *pending_gone]
    gone = {item.key for item in retired}
    dead = {k: item for k, item in ledger.dead.items() if k not in gone} if dead_gone else None
    pending = (
        {k: item for k, item in ledger.pending.items() if k not in gone} if pending_gone else None
    )
    return (
        replace(
            ledger,
            dead=ledger.dead if dead is None else dead,
            pending=ledger.pending if pending is None else pending,
        ),
        sorted(retired, key=lambda item: item.key),
    )


def record_alert(ledger: Ledger, key: str, alert: int) -> Ledger:
    """Remember the dead-letter alert opened for a dead item. The first number recorded stays:
    an executor that finds another number already there opened a duplicate, and closes it."""
    corpse = ledger.dead.get(key)
    if corpse is None or corpse.alert is not None:
        return ledger
    return replace(ledger, dead={**ledger.dead, key: replace(corpse, alert=alert)})


def next_wake(ledger: Ledger, *, now: datetime) -> datetime | None:
    """The earliest moment after `now` at which some pending item becomes claimable."""
    moments: list[datetime] = []
    for item in ledger.pending.values():
        blockers = [
            moment
            for moment in (
                item.next_attempt_at,
                item.not_before,
                item.lease.expires_at if item.lease else None,
            )
            if moment is not None and moment > now
        ]
        moments.append(max(blockers) if blockers else now)
    return min(moments) if moments else None
