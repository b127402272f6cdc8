"""Opening dead-letter alerts: the ledger first, one alert per item even when executors race."""

import random
from datetime import UTC, datetime
from typing import Any

from steadypress.alerts.lifecycle import raise_alerts
from steadypress.config import Config
from steadypress.ledger import Attempt, DeadItem, Ledger, PublishedRecord, record_alert
from steadypress.pipeline import Pipeline
from steadypress.store.memory import MemoryStore
from tests.fakes.clock import ManualClock

NOW = datetime(2026, 11, 29, tzinfo=UTC)
KEY = "site:content/a.md"


class CountingChannel:
    """An alert channel that hands out a new number per open, like a create that never finds."""

    def __init__(self, first: int) -> None:
        self.next = first
        self.discarded: list[tuple[int, int]] = []

    def open(self, item: DeadItem) -> int:
        self.next += 1
        return self.next - 1

    def resolve(self, alert: int, key: str, record: PublishedRecord) -> None:
        raise AssertionError("not expected")

    def discard(self, alert: int, *, duplicate_of: int) -> None:
        self.discarded.append((alert, duplicate_of))

    def acknowledge_retry(self, alert: int) -> None:
        raise AssertionError("not expected")

    def withdraw(self, alert: int, *, reason: str) -> None:
        raise AssertionError("not expected")

    def where(self, alert: int) -> str:
        return f"alert {alert}"

    def retry_hint(self, item: DeadItem) -> str:
        return "retry it"

    def key_of(self, alert: int) -> str | None:
        return None


def pipeline(store: MemoryStore, channel: CountingChannel) -> Pipeline:
    nothing: Any = None  # raise_alerts touches neither content nor targets
    return Pipeline(
        config=Config(), store=store, content=nothing, targets={}, alerts=channel, holder="test",
        clock=ManualClock(NOW), rng=random.Random(0), log=lambda _line: None,
    )  # fmt: skip


def corpse() -> DeadItem:
    return DeadItem("site", "content/a.md", "b1", "c1", NOW, 1, (Attempt(NOW, "x"),), True)


def test_an_alert_that_lost_the_race_is_discarded_and_the_winner_reported() -> None:
    """Another executor recorded #7 first: our #9 is retired as its duplicate, #7 is reported."""
    store = MemoryStore(record_alert(Ledger(dead={KEY: corpse()}), KEY, 7))
    channel = CountingChannel(first=9)
    reported = raise_alerts(pipeline(store, channel), [corpse()])
    assert channel.discarded == [(9, 7)]
    assert [item.alert for item in reported] == [7]
    assert store.load().ledger.dead[KEY].alert == 7


def test_an_alert_is_recorded_on_the_dead_item() -> None:
    """Without a race the number opened is the number recorded, in one transaction."""
    store = MemoryStore(Ledger(dead={KEY: corpse()}))
    channel = CountingChannel(first=1)
    assert [item.alert for item in raise_alerts(pipeline(store, channel), [corpse()])] == [1]
    assert store.load().ledger.dead[KEY].alert == 1 and store.saves == 1 and not channel.discarded
