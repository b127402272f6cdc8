"""The pipeline: everything an executor works with, behind protocols. `backends` wires it for
the embedded default or for GitHub; tests build it from fakes."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TypeVar

from steadypress.alerts import AlertChannel
from steadypress.clock import Clock, SystemClock
from steadypress.config import Config
from steadypress.content import ContentSource
from steadypress.credentials import Redactor
from steadypress.store import LedgerStore, TransactionStats, transact
from steadypress.store.transaction import Change
from steadypress.targets.base import Target
from steadypress.watch import Watch
from steadypress.worklease import WorkLease

__all__ = ["Pipeline"]

R = TypeVar("R")


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


@dataclass
class Pipeline:
    config: Config
    store: LedgerStore
    content: ContentSource
    targets: Mapping[str, Target]
    alerts: AlertChannel
    holder: str  # who is working, for humans reading the ledger; never used to decide anything
    lease: WorkLease  # the lease each article is worked under, shared with the targets
    clock: Clock = field(default_factory=SystemClock)
    rng: random.Random = field(default_factory=random.Random)
    stats: TransactionStats = field(default_factory=TransactionStats)
    log: Callable[[str], None] = _stderr
    # Every secret this run read, taken out of any text before it is recorded or shown.
    redact: Redactor = field(default_factory=Redactor)
    # What live mode polls for the branches' heads (None: this pipeline cannot run live).
    watch: Watch | None = None
    # Work outside the ledger that failed in this run and that the next one does again (a
    # site's stylesheet), as (what, why): the command reports each as deferred.
    unfinished: list[tuple[str, str]] = field(default_factory=list)
    # Set when the command is asked to stop (SIGINT, SIGTERM): the executor finishes the
    # article in hand, records what finished, gives back the leases it holds, claims no more.
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def lease_ttl(self) -> timedelta:
        return self.config.timings.lease

    def transact(
        self,
        change: Change[R],
        *,
        message: str,
        optimistic: bool = False,
        announce: Callable[[R], None] | None = None,
    ) -> R:
        """`store.transact` on this pipeline's store, counted in its stats, on its clock."""
        return transact(
            self.store,
            change,
            message=message,
            stats=self.stats,
            rng=self.rng,
            sleep=self.clock.sleep,
            optimistic=optimistic,
            announce=announce,
        )
