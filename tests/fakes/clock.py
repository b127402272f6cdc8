"""A clock that tests drive: time moves when a test (or a sleep) moves it, never by itself."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

__all__ = ["ManualClock"]


class ManualClock:
    """Implements steadypress's `Clock`. A sleep returns at once and advances the time by what
    it was asked, which `sleeps` records."""

    def __init__(self, start: datetime | None = None) -> None:
        self.start = start or datetime(2026, 1, 1, tzinfo=UTC)
        self.seconds = 0.0
        self.sleeps: list[float] = []

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.seconds)

    def monotonic(self) -> float:
        return self.seconds

    def sleep(self, seconds: float, *, interrupt: threading.Event | None = None) -> None:
        self.sleeps.append(seconds)
        if interrupt is None or not interrupt.is_set():
            self.advance(seconds)

    def advance(self, seconds: float) -> None:
        self.seconds += max(0.0, seconds)

    def advance_to(self, seconds: float) -> None:
        self.seconds = max(self.seconds, seconds)


class SkewedClock:
    """Another machine's view of a shared `ManualClock`: its UTC time off by `skew` seconds (a
    clock no time service has corrected), its monotonic time and its sleeps the same."""

    def __init__(self, inner: ManualClock, skew: float) -> None:
        self.inner = inner
        self.skew = skew

    def now(self) -> datetime:
        return self.inner.now() + timedelta(seconds=self.skew)

    def monotonic(self) -> float:
        return self.inner.monotonic()

    def sleep(self, seconds: float, *, interrupt: threading.Event | None = None) -> None:
        self.inner.sleep(seconds, interrupt=interrupt)
