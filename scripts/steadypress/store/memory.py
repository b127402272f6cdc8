"""An in-memory LedgerStore for unit tests: the same CAS contract, no I/O."""

from __future__ import annotations

from collections.abc import Collection

from steadypress.errors import Conflict
from steadypress.ledger import Ledger
from steadypress.store.base import Snapshot

__all__ = ["MemoryStore"]


class MemoryStore:
    def __init__(self, ledger: Ledger | None = None) -> None:
        self._version: int | None = None if ledger is None else 1
        self._ledger = ledger or Ledger()
        self.saves = 0

    @property
    def where(self) -> str:
        return "memory"

    def last_known(self) -> Snapshot | None:
        return None  # nothing to save: a load costs nothing here

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        version = None if self._version is None else str(self._version)
        return Snapshot(version=version, ledger=self._ledger)

    def save(self, ledger: Ledger, *, based_on: Snapshot, message: str) -> str:
        current = None if self._version is None else str(self._version)
        if based_on.version != current:
            raise Conflict(based_on.version, current)
        self._version = (self._version or 0) + 1
        self._ledger = ledger
        self.saves += 1
        return str(self._version)
