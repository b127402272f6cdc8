"""`steadypress status`: each state an item can be in, said in a line a person can act on, and
`status --json` held to its schema."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from steadypress.claiming import claim
from steadypress.ledger import Ledger
from steadypress.store import transact
from steadypress.store.localgit import LocalGitStore
from steadypress.transitions import Sighting, enqueue
from tests.fakes.clock import ManualClock
from tests.helpers import Repo, article, run_cli
from tests.schema import VALIDATORS

NOW = datetime(2030, 6, 1, tzinfo=UTC)


def a_ledger_in_every_state(repo: Repo, clock: ManualClock) -> None:
    """Published, dead (broken YAML), scheduled, and one pending under a live lease."""
    later = (NOW + timedelta(days=3)).isoformat()
    repo.commit(
        **{
            "content/done.md": article("Done"),
            "content/broken.md": "---\ntitle: B\ntags: [a, b\n---\n",
            "content/later.md": article("Later", publish_at=f"'{later}'"),
        }
    )
    assert run_cli(repo, "run", clock=clock).code == 0
    repo.commit(**{"content/busy.md": article("Busy")})
    sighting = Sighting("site", "content/busy.md", repo.blob("content/busy.md"), repo.head())

    def leased(ledger: Ledger) -> tuple[Ledger, None]:
        ledger, _ = enqueue(ledger, [sighting], now=NOW)
        ledger, _, _ = claim(ledger, [sighting.key], holder="alice", token="t", now=NOW,
                          lease_ttl=timedelta(minutes=10))  # fmt: skip
        return ledger, None

    transact(LocalGitStore(repo.root, "steadypress-state"), leased, message="alice works")


def test_status_says_what_each_item_waits_for_and_how_to_retry_the_dead(repo: Repo) -> None:
    clock = ManualClock(NOW)
    a_ledger_in_every_state(repo, clock)
    out = run_cli(repo, "status", clock=clock).out
    assert "published: 1" in out
    assert "pending: 1\n  site:content/busy.md: leased by alice until 2030-06-01T00:10:00Z" in out
    assert "scheduled: 1\n  site:content/later.md: publishes at 2030-06-04T00:00:00Z" in out
    dead = out[out.index("dead: 1") :]
    cause = dead.splitlines()[1]
    assert cause.startswith("  site:content/broken.md: ") and "line 3, column" in cause
    assert "/" in cause, "the YAML error's lines on one line"
    assert "alert: " in dead and ".steadypress/dead-letters/0001.md" in dead
    assert (
        "retry: commit the fix: the next run retries it "
        "(by hand: `steadypress retry content/broken.md`)" in dead
    )


def test_status_says_how_often_the_runs_holding_an_item_stopped(repo: Repo) -> None:
    """A lapse (a run that died holding the item) is told, and what it changes: an item that
    lapsed twice is claimed alone."""
    repo.commit(**{"content/a.md": article("A")})
    sighting = Sighting("site", "content/a.md", repo.blob("content/a.md"), repo.head())

    def lapsed_twice(ledger: Ledger) -> tuple[Ledger, None]:
        ledger, _ = enqueue(ledger, [sighting], now=NOW)
        for minutes in (0, 2, 4):  # each claim's run dies; the next finds its lease run out
            ledger, _, _ = claim(ledger, [sighting.key], holder=f"run-{minutes}", token="t",
                                 now=NOW + timedelta(minutes=minutes),
                                 lease_ttl=timedelta(minutes=1))  # fmt: skip
        return ledger, None

    transact(LocalGitStore(repo.root, "steadypress-state"), lapsed_twice, message="runs died")
    clock = ManualClock(NOW + timedelta(minutes=10))
    out = run_cli(repo, "status", clock=clock).out
    line = next(line for line in out.splitlines() if "site:content/a.md" in line)
    assert "the run holding it stopped 2 time(s), so it is claimed alone" in line
    assert "expired lease of run-4" in line and "last error: the run publishing it (run-2)" in line


def test_status_json_is_versioned_and_valid_against_its_schema(repo: Repo) -> None:
    clock = ManualClock(NOW)
    a_ledger_in_every_state(repo, clock)
    document = json.loads(run_cli(repo, "status", "--json", clock=clock).out)
    VALIDATORS["status"].validate(document)
    assert document["format"] == 1
    assert set(document["dead"]) == {"site:content/broken.md"}
