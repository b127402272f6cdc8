"""The one way to change the ledger: read, apply a pure change, compare-and-swap, repeat."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from steadypress.backoff import backoff_seconds
from steadypress.errors import Conflict, StateError
from steadypress.ledger import Ledger
from steadypress.store.base import LedgerStore

__all__ = ["Change", "TransactionStats", "transact"]

R = TypeVar("R")
Change = Callable[[Ledger], tuple[Ledger, R]]


@dataclass
class TransactionStats:
    """What a command's transactions cost; printed by the CLI and counted by the benchmarks."""

    transactions: int = 0
    commits: int = 0
    conflicts: int = 0


def transact(
    store: LedgerStore,
    change: Change[R],
    *,
    message: str,
    stats: TransactionStats | None = None,
    max_conflicts: int = 25,
    optimistic: bool = False,
    wait_initial: float = 0.01,
    wait_max: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> R:
    """Apply `change` to the current ledger and store the result atomically; returns its result.

    On conflict the ledger is read again and the same pure change re-applied to it, after a
    jittered backoff so racing writers spread out. Nothing is written when the change changes
    nothing. Every commit carries a transaction id, so two writers never build identical commits.

    `optimistic` starts from the snapshot the store last read or wrote instead of reading: for a
    change that always writes, a stale start costs one conflict, and saves a read otherwise.
    """
    stats = stats if stats is not None else TransactionStats()
    rng = rng or random.Random()
    transaction_id = uuid.uuid4().hex
    stats.transactions += 1
    known = store.last_known() if optimistic else None
    for conflict in range(max_conflicts + 1):
        snapshot = known or store.load()
        known = None
        ledger, result = change(snapshot.ledger)
        if ledger == snapshot.ledger:
            return result
        try:
            store.save(
                ledger, based_on=snapshot, message=f"{message}\n\ntransaction: {transaction_id}\n"
            )
        except Conflict:
            stats.conflicts += 1
            sleep(
                backoff_seconds(
                    conflict + 1, wait_initial=wait_initial, wait_max=wait_max, jitter=rng.random()
                )
            )
            continue
        stats.commits += 1
        return result
    raise StateError(store.where, f"gave up after {max_conflicts} conflicting writes")
