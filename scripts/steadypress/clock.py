"""Time enters from outside: the command line builds one clock and hands it down.

The core never reads the time (ledger transitions take `now`); the shell asks a `Clock`, so a
test drives time instead of sleeping on it.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "SystemClock"]


class Clock(Protocol):
    def now(self) -> datetime:
        """The current UTC time."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary start, never stepped: for measuring intervals (the UTC
        time may be stepped by the machine's time service, backwards or forwards)."""
        ...

    def sleep(self, seconds: float, *, interrupt: threading.Event | None = None) -> None:
        """Wait `seconds`, or less once `interrupt` is set."""
        ...


class SystemClock:
    """The real time of this machine."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float, *, interrupt: threading.Event | None = None) -> None:
        if seconds <= 0:
            return
        if interrupt is None:
            time.sleep(seconds)
        else:
            interrupt.wait(seconds)
