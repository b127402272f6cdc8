"""Time that cannot lie about leases: renewals are timed on the monotonic clock, whatever the UTC
time does; a post is never created under a lease that may have run out; and a look at the
platform is taken again before a create when it is older than a lease, or the article was taken
over from a lease that ran out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from steadypress.articles import Article
from steadypress.errors import TransientError
from steadypress.targets.devto import DevtoSettings, DevtoTarget
from steadypress.worklease import WorkLease
from tests.fakes.clock import ManualClock
from tests.fakes.devto import FakeForem
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, run_cli

LEASE = timedelta(minutes=10)


def post(path: str = "content/a.md", blob: str = "b1") -> Article:
    return Article(path=path, blob=blob, title="A", body="Some words.")


def devto(forem: FakeForem, clock: ManualClock, lease: WorkLease) -> DevtoTarget:
    settings = DevtoSettings(api_url=forem.api_url, window="2s")
    return DevtoTarget("devto", settings, api_key=forem.api_key, clock=clock, lease=lease)


def test_no_post_is_created_under_a_lease_not_renewed_for_a_whole_lease(forem: FakeForem) -> None:
    """A process stopped past its lease, resumed before a create: the create is weather, not
    a post another run may have made meanwhile."""
    clock = ManualClock()
    lease = WorkLease(clock=clock, ttl=LEASE)
    target = devto(forem, clock, lease)
    clock.seconds += LEASE.total_seconds()
    with pytest.raises(TransientError, match="the lease may have run out"):
        target.publish(post(), None)
    assert not forem.posts
    lease.renewed()
    target.publish(post(), None)
    assert len(forem.posts) == 1


def test_an_article_taken_over_is_looked_up_again_before_a_create(forem: FakeForem) -> None:
    """The list of posts read at the start of a run misses what the run whose lease ran out
    posted since: for an article taken over, it is read again, and the post is updated, not
    made twice."""
    clock = ManualClock()
    lease = WorkLease(clock=clock, ttl=LEASE)
    mine, theirs = devto(forem, clock, lease), devto(forem, clock, lease)
    mine.publish(post("content/other.md"), None)  # this run's list of posts is read here
    theirs.publish(post(), None)  # the run whose lease ran out posts it meanwhile
    lease.working_on(taken_over=True)
    mine.publish(post(blob="b2"), None)
    assert forem.creates["content/a.md"] == 1 and len(forem.posts) == 2


def test_a_list_of_posts_older_than_a_lease_is_read_again_before_a_create(
    forem: FakeForem,
) -> None:
    clock = ManualClock()
    lease = WorkLease(clock=clock, ttl=LEASE)
    mine, theirs = devto(forem, clock, lease), devto(forem, clock, lease)
    mine.publish(post("content/other.md"), None)
    theirs.publish(post(), None)
    clock.seconds += LEASE.total_seconds()
    lease.renewed()
    mine.publish(post(blob="b2"), None)
    assert forem.creates["content/a.md"] == 1


class _FallingBackClock(ManualClock):
    """A machine whose UTC time runs backwards (the time service stepping it back, over and
    over) while its monotonic time moves on, 5 s at each reading: a loaded machine."""

    def now(self) -> datetime:
        return self.start - timedelta(seconds=self.seconds)

    def monotonic(self) -> float:
        self.seconds += 5
        return self.seconds


def test_leases_are_renewed_however_the_utc_time_runs(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Renewals are timed on the monotonic clock: with the UTC time running back they still
    come (once they never did, and another executor took the leases over)."""
    monkeypatch.setenv("WEBHOOK_SECRET", "s3cret")
    with WebhookReceiver("s3cret") as hook:
        files = {f"content/p{n}.md": article(f"P{n}") for n in range(12)}
        config = f"targets:\n  hook: {{kind: webhook, url: '{hook.url}'}}\n"
        repo.commit(**files, **{"steadypress.yml": config})
        # A day ahead of the commits, as it falls back: the articles are never in its future.
        clock = _FallingBackClock(datetime.now(UTC) + timedelta(days=1))
        assert run_cli(repo, "run", clock=clock).code == 0
    writes = repo.state_writes()
    assert writes.count("steadypress: record outcomes") >= 2, writes
    assert len(repo.ledger().published) == 12
