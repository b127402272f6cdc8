"""Letters beside dead items: the ledger first; one letter per article, one summary for many
articles dead of one cause; closed when the last item naming them is done."""

import random
from collections.abc import Collection
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from steadypress.alerts.letter import Letter
from steadypress.alerts.lifecycle import SUMMARY_AT, raise_alerts, settle_alerts, withdraw_alerts
from steadypress.claiming import Resolution
from steadypress.config import Config
from steadypress.ledger import Attempt, DeadItem, Ledger, PendingItem, PublishedRecord
from steadypress.pipeline import Pipeline
from steadypress.store.base import Snapshot
from steadypress.store.memory import MemoryStore
from steadypress.transitions import record_alert
from steadypress.worklease import WorkLease
from tests.fakes.clock import ManualClock

NOW = datetime(2026, 11, 29, tzinfo=UTC)
KEY = "site:content/a.md"
RECORD = PublishedRecord("b1", "c1", None, "2026-11-29T01:00:00Z", "/a/")


class RecordingChannel:
    """An alert channel that hands out a new number per new letter (a create that never finds
    an earlier one) and remembers what it was asked."""

    def __init__(self, first: int = 1) -> None:
        self.next = first
        self.posted: list[tuple[int, Letter]] = []
        self.closed: list[tuple[int, str, bool]] = []

    def open(self, letter: Letter, number: int | None = None) -> int:
        if number is None:
            number, self.next = self.next, self.next + 1
        self.posted.append((number, letter))
        return number

    def close(self, alert: int, *, text: str, completed: bool) -> None:
        self.closed.append((alert, text, completed))

    def acknowledge_retry(self, alert: int) -> None:
        raise AssertionError("not expected")

    def where(self, alert: int) -> str:
        return f"alert {alert}"

    def retry_hint(self, item: DeadItem) -> str:
        return "retry it"

    def article_of(self, alert: int) -> str | None:
        return None


def pipeline(store: MemoryStore, channel: RecordingChannel) -> Pipeline:
    nothing: Any = None  # the letters touch neither content nor targets
    clock = ManualClock(NOW)
    return Pipeline(
        config=Config(), store=store, content=nothing, targets={}, alerts=channel, holder="test",
        lease=WorkLease(clock=clock, ttl=Config().timings.lease), clock=clock,
        rng=random.Random(0), log=lambda _line: None,
    )  # fmt: skip


def corpse(
    path: str = "content/a.md", target: str = "site", error: str = "x", alert: int | None = None
) -> DeadItem:
    return DeadItem(target, path, "b1", "c1", NOW, 1, (Attempt(NOW, error),), True, alert)


def dead(*items: DeadItem) -> Ledger:
    return Ledger(dead={item.key: item for item in items})


class RacingStore(MemoryStore):
    """Another executor records #7 for the item just after our first read of the ledger."""

    def load(self, hint: Collection[str] = ()) -> Snapshot:
        snapshot = super().load(hint)
        if not self.saves:
            self.save(record_alert(snapshot.ledger, KEY, 7), based_on=snapshot, message="race")
        return snapshot


def test_an_alert_that_lost_the_race_is_retired_and_the_winner_reported() -> None:
    """Another executor recorded #7 first: our #9 is closed as its duplicate, #7 is reported."""
    store = RacingStore(dead(corpse()))
    channel = RecordingChannel(first=9)
    reported = raise_alerts(pipeline(store, channel), [corpse()])
    assert channel.closed == [(9, "Duplicate of #7: two executors opened this at once.", False)]
    assert [item.alert for item in reported] == [7]
    assert store.load().ledger.dead[KEY].alert == 7


def test_an_alert_is_recorded_on_the_dead_item() -> None:
    """Without a race the number opened is the number recorded, in one transaction."""
    store = MemoryStore(dead(corpse()))
    channel = RecordingChannel()
    assert [item.alert for item in raise_alerts(pipeline(store, channel), [corpse()])] == [1]
    assert store.load().ledger.dead[KEY].alert == 1 and store.saves == 1 and not channel.closed


def test_two_targets_of_one_article_share_one_letter_naming_both() -> None:
    """Dying together or one after the other, an article's targets are in one letter."""
    site, devto = corpse(), corpse(target="devto", error="422 rejected")
    store = MemoryStore(dead(site, devto))
    channel = RecordingChannel()
    raise_alerts(pipeline(store, channel), [site])
    raise_alerts(pipeline(store, channel), [devto])
    assert [number for number, _ in channel.posted] == [1, 1]
    assert [item.key for item in channel.posted[-1][1].items] == ["devto:content/a.md", KEY]
    assert {item.alert for item in store.load().ledger.dead.values()} == {1}


def test_many_articles_dead_of_one_cause_share_one_summary_and_later_ones_join_it() -> None:
    """A broken theme kills 50 articles over two batches: one summary letter, not 50; another
    cause in the same run still gets its own article's letter."""
    theme = [
        corpse(f"content/{n:02}.md", error=f"content/{n:02}.md: theme broken") for n in range(50)
    ]
    other = corpse("content/z.md", error="image missing")
    store = MemoryStore(dead(*theme, other))
    channel = RecordingChannel()
    raise_alerts(pipeline(store, channel), [*theme[:25], other])
    raise_alerts(pipeline(store, channel), theme[25:])
    numbers = {item.key: item.alert for item in store.load().ledger.dead.values()}
    assert {numbers[item.key] for item in theme} == {1} and numbers[other.key] == 2
    assert channel.posted[-1][0] == 1 and len(channel.posted[-1][1].items) == 50


def test_fewer_articles_than_the_summary_threshold_get_a_letter_each() -> None:
    few = [corpse(f"content/{n}.md", error="same cause") for n in range(SUMMARY_AT - 1)]
    store = MemoryStore(dead(*few))
    channel = RecordingChannel()
    raise_alerts(pipeline(store, channel), few)
    assert sorted(number for number, _ in channel.posted) == list(range(1, SUMMARY_AT))


def test_two_articles_dead_of_one_cause_outside_them_share_a_letter() -> None:
    """A template the site's build fails on (the first file the deaths depend on is not the
    article): two articles are enough for one letter. Two of one cause that depends on each
    article itself first (each one's own file named) keep a letter each."""
    template = (("layouts/single.html", "t1"), ("content/0.md", "b1"))
    outside = [replace(corpse(f"content/{n}.md", error="single.html:9:3: no Nope"),
                       depends=template) for n in range(2)]  # fmt: skip
    own = [replace(corpse(f"content/{n}.md", error="unclosed tag"),
                   depends=((f"content/{n}.md", "b1"),)) for n in (5, 6)]  # fmt: skip
    store = MemoryStore(dead(*outside, *own))
    channel = RecordingChannel()
    raise_alerts(pipeline(store, channel), [*outside, *own])
    assert sorted(letter.paths for _number, letter in channel.posted) == [
        ["content/0.md", "content/1.md"], ["content/5.md"], ["content/6.md"],
    ]  # fmt: skip


def test_a_letter_closes_when_its_last_item_is_done_and_shrinks_before() -> None:
    """Site published while dev.to is still dead: the letter stays open, posted again with
    dev.to alone; dev.to published: closed with what was published."""
    site, devto = corpse(alert=4), corpse(target="devto", alert=4)
    store = MemoryStore(dead(devto))
    channel = RecordingChannel()
    settle_alerts(pipeline(store, channel), [Resolution(site.key, 4, RECORD)])
    assert channel.closed == [] and [item.target for item in channel.posted[0][1].items] == [
        "devto"
    ]
    store = MemoryStore(Ledger())
    settle_alerts(pipeline(store, channel), [Resolution(devto.key, 4, RECORD)])
    assert channel.closed == [
        (4, "`devto:content/a.md` was published at /a/ on 2026-11-29T01:00:00Z.", True)
    ]


def test_a_letter_whose_items_are_on_their_way_back_stays_open() -> None:
    """Half of a summary published, the other half retried and pending: nothing to close yet."""
    waiting = PendingItem("site", "content/b.md", "b1", "c1", NOW, alert=4)
    store = MemoryStore(Ledger(pending={waiting.key: waiting}))
    channel = RecordingChannel()
    settle_alerts(pipeline(store, channel), [Resolution(KEY, 4, RECORD)])
    assert channel.closed == [] and channel.posted == []


def test_a_withdrawn_letter_closes_as_not_planned_saying_why() -> None:
    channel = RecordingChannel()
    withdraw_alerts(pipeline(MemoryStore(Ledger()), channel), {3: "the target `hook` is gone"})
    assert channel.closed == [(3, "Withdrawn: the target `hook` is gone", False)]
