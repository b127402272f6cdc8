"""The one way to change the ledger: read, apply a pure change, compare-and-swap, repeat."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from steadypress.cas import retry_conflicts
from steadypress.errors import Conflict, StateError
from steadypress.ledger import Ledger
from steadypress.store.base import LedgerStore

if TYPE_CHECKING:
    import random

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
    announce: Callable[[R], None] | None = None,
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
    `announce` is told the change's result before it is written, so that what the result is
    for may ask to read ahead with the write (the claim's commit carries the site's read).
    """
    stats = stats if stats is not None else TransactionStats()
    transaction_id = os.urandom(16).hex()  # uuid's module is some 3 ms of every start
    stats.transactions += 1
    known = store.last_known() if optimistic else None

    def attempt(number: int) -> R:
        snapshot = (known if number == 1 else None) or store.load()
        ledger, result = change(snapshot.ledger)
        if ledger == snapshot.ledger:
            return result
        if announce is not None:
            announce(result)
        try:
            store.save(
                ledger, based_on=snapshot, message=f"{message}\n\ntransaction: {transaction_id}\n"
            )
        except Conflict:
            stats.conflicts += 1
            raise
        stats.commits += 1
        return result

    if rng is None:
        import random  # noqa: PLC0415 - loaded once a transaction is made (not for `status`)

        rng = random.Random()
    return retry_conflicts(
        attempt,
        tries=max_conflicts + 1,
        sleep=sleep,
        rng=rng,
        wait_initial=wait_initial,
        wait_max=wait_max,
        gave_up=lambda last: StateError(
            store.where,
            f"gave up after {max_conflicts} conflicting writes"
            + (f": {last.reason}" if last.reason else ""),
        ),
    )
