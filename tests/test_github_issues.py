"""Dead letters as GitHub issues, against the fake: one issue per letter, whatever happens."""

import itertools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TypeVar

import pytest

from steadypress.alerts import marker_for
from steadypress.alerts.letter import Letter
from steadypress.github.issues import WRITE_INTERVAL, GitHubIssues
from steadypress.ledger import Attempt, DeadItem
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub, Fault
from tests.helpers import github_client

NOW = datetime(2026, 11, 29, tzinfo=UTC)
T = TypeVar("T")
RUN = "https://github.com/octo/blog/actions/runs/42"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def channel(github: FakeGitHub) -> GitHubIssues:
    return GitHubIssues(github_client(github), repository=github.full_name, run_url=RUN)


def corpse(path: str = "content/a.md", alert: int | None = None) -> Letter:
    history = (Attempt(NOW, "HTTP 503 from dev.to"), Attempt(NOW, "timeout after 30 s"))
    return Letter.of([DeadItem("devto", path, "b1", "c1", NOW, 5, history, False, alert)])


def test_a_dead_item_opens_one_labelled_issue_that_says_everything(github: FakeGitHub) -> None:
    """Article, target, each attempt's error, the run's link, how to retry; labels created."""
    number = channel(github).open(corpse())
    issue = github.tracker.get_issue(number)
    assert [label["name"] for label in issue["labels"]] == ["dead-letter"]
    assert set(github.tracker.labels) == {"dead-letter", "retry"}
    assert issue["title"] == "Dead letter: content/a.md on devto"
    for text in (
        "`content/a.md`",
        "`devto`",
        "HTTP 503 from dev.to",
        "timeout after 30 s",
        RUN,
        "label `retry`",
        "retry: content/a.md",
        "retries it in that push's run",
        'steadypress:dead-letter {"path": "content/a.md"}',
    ):
        assert text in issue["body"]


def test_opening_again_finds_the_issue_by_its_marker_across_pages(github: FakeGitHub) -> None:
    """Another process, 150 other dead letters later, finds the same issue instead of a new one."""
    first = channel(github).open(corpse())
    for n in range(150):
        other = marker_for({"path": f"content/other-{n}.md"})
        github.tracker.create_issue({"title": "other", "body": other, "labels": ["dead-letter"]})
    with github.counting() as calls:
        again = channel(github).open(corpse())
    assert again == first and len(github.tracker.issues) == 151
    assert calls["GET /repos/{repo}/issues"] == 2, "151 issues: two pages of 100"
    assert github.tracker.get_issue(first)["state"] == "open"


def test_a_create_whose_answer_was_lost_makes_one_issue(github: FakeGitHub) -> None:
    """The issue is created but the 502 hides it: the channel looks again before creating."""
    github.inject(Fault("POST /repos/{repo}/issues", status=502, apply_first=True))
    number = channel(github).open(corpse())
    assert len(github.tracker.issues) == 1 and number == 1


def test_success_comments_with_the_url_and_closes_the_issue(github: FakeGitHub) -> None:
    """A retried item that publishes resolves its issue: a comment with the URL, then closed."""
    issues = channel(github)
    number = issues.open(corpse())
    issues.close(number, text="published at https://dev.to/x", completed=True)
    issue = github.tracker.get_issue(number)
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert "https://dev.to/x" in github.tracker.comments[number][0]


def test_a_second_death_reopens_the_same_issue(github: FakeGitHub) -> None:
    """The retried item carries its issue number; dying again reopens it, no new issue."""
    issues = channel(github)
    number = issues.open(corpse())
    issues.close(number, text="unpublished", completed=True)
    assert channel(github).open(corpse(alert=number), number) == number
    assert len(github.tracker.issues) == 1 and github.tracker.get_issue(number)["state"] == "open"


def test_a_duplicate_from_a_race_is_closed_as_not_planned(github: FakeGitHub) -> None:
    """The losing executor's issue points at the winner and is closed."""
    issues = channel(github)
    winner = issues.open(corpse())
    loser = issues._create("t", "b")  # the create a racing executor made
    issues.close(loser, text=f"Duplicate of #{winner}", completed=False)
    assert github.tracker.get_issue(loser)["state_reason"] == "not_planned"
    assert f"#{winner}" in github.tracker.comments[loser][0]


def test_an_issue_number_names_its_article(github: FakeGitHub) -> None:
    """`retry --issue N` reads the marker; a number that is no issue names nothing."""
    number = channel(github).open(corpse())
    assert channel(github).article_of(number) == "content/a.md"
    assert channel(github).article_of(99) is None


def test_issue_writes_are_a_second_apart(github: FakeGitHub) -> None:
    """GitHub asks for a second between content-creating requests: ten letters in a burst wait
    on the clock between writes, never send two within a second."""
    clock = ManualClock(NOW)
    issues = GitHubIssues(github_client(github, clock=clock), repository=github.full_name)
    writes = []
    original = issues._client.call

    def spy(perform: Callable[[], T], *, write: bool, label: str) -> T:
        if write:
            writes.append(clock.now())
        return original(perform, write=write, label=label)

    issues._client.call = spy  # type: ignore[method-assign]
    for n in range(10):
        issues.open(corpse(f"content/{n}.md"))
    issue_writes = writes[2:]  # after the two labels
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(issue_writes)]
    assert len(issue_writes) == 10 and min(gaps) >= WRITE_INTERVAL


def test_a_withdrawn_letter_is_closed_as_not_planned_saying_why(github: FakeGitHub) -> None:
    issues = channel(github)
    number = issues.open(corpse())
    issues.close(number, text="Withdrawn: the target `hook` is no longer in the configuration",
                 completed=False)  # fmt: skip
    issue = github.tracker.get_issue(number)
    assert (issue["state"], issue["state_reason"]) == ("closed", "not_planned")
    assert github.tracker.comments[number][-1].startswith("Withdrawn: the target `hook`")
