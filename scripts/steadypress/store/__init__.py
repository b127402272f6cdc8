"""Where the ledger lives: one protocol, one transaction loop, interchangeable backends."""

from steadypress.store.base import LedgerStore, Snapshot
from steadypress.store.transaction import TransactionStats, transact

__all__ = ["LedgerStore", "Snapshot", "TransactionStats", "transact"]
