"""What one command run hands to everything it wires (`RunContext`), whichever the backend."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from steadypress.clock import Clock
from steadypress.credentials import Redactor
from steadypress.store import TransactionStats

__all__ = ["RunContext"]


@dataclass(frozen=True)
class RunContext:
    """What one command run hands to everything it wires, whichever the backend."""

    holder: str  # who is working, for humans reading the ledger
    clock: Clock
    environ: Mapping[str, str]
    redact: Redactor  # learns every secret read, for whatever the run prints or records
    stats: TransactionStats
    content_revision: str = "HEAD"  # the content branch's ref: what is published
    content_branch: str | None = None  # its name, when it is a branch (live mode watches it)
    # Set when the command is asked to stop (SIGINT, SIGTERM): see `Pipeline.stopping`.
    stopping: threading.Event = field(default_factory=threading.Event)
