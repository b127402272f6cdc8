"""The storage protocol: load a versioned ledger, save it only if the version is unchanged."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from steadypress.codec import LEGACY_PUBLISHED_FILE
from steadypress.ledger import Ledger
from steadypress.published import Layout

__all__ = ["LastSnapshot", "LedgerStore", "Snapshot"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A ledger as read at `version` (the state branch head; None before the branch exists).

    `handles` lets a backend reuse what it already stored for a section the change did not touch
    (the local store keeps each file's blob id), so an unchanged 20 MB `published.json` is neither
    re-encoded nor re-hashed.
    """

    version: str | None
    ledger: Ledger
    handles: Mapping[str, str] = field(default_factory=dict)

    @property
    def written_over(self) -> Ledger | None:
        """The ledger a write on this snapshot changes, when it writes only what changed: None
        when there is no state yet or it moves from version 1's single file, and every shard
        is written."""
        if self.version is None or LEGACY_PUBLISHED_FILE in self.handles:
            return None
        return self.ledger

    def layout_of(self, ledger: Ledger) -> Layout:
        """The shard files a write of `ledger` on this snapshot makes (every shard, when it
        is `written_over` nothing)."""
        previous = self.written_over
        return ledger.published.laid_out_since(None if previous is None else previous.published)


class LastSnapshot:
    """The snapshot a store last read or wrote. A commit id names immutable content, so it is
    reused while the branch still points at it: a drain's checkpoint after its own claim does
    not re-read and re-parse a 30 MB published.json."""

    def __init__(self) -> None:
        self.snapshot: Snapshot | None = None

    def at(self, version: str) -> Snapshot | None:
        """The kept snapshot if it is of `version`."""
        return (
            self.snapshot
            if self.snapshot is not None and self.snapshot.version == version
            else None
        )

    def keep(self, snapshot: Snapshot) -> Snapshot:
        self.snapshot = snapshot
        return snapshot


class LedgerStore(Protocol):
    """A ledger with one atomic primitive: compare-and-swap on the version.

    `save` raises `Conflict` when the stored version is no longer `based_on.version`;
    losing that race is an ordinary outcome, handled by `transact`, never by callers.
    """

    @property
    def where(self) -> str:
        """Where the state lives, for messages."""
        ...

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        """The ledger at the head; `hint` names keys whose published records the caller will
        look at, read in the same request when the store can."""
        ...

    def last_known(self) -> Snapshot | None:
        """The snapshot this store last read or wrote, without asking anyone: possibly stale."""
        ...

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        """Store `ledger` if nothing moved since `based_on`; returns the new version."""
        ...
