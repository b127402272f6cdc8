"""GitHub through PyGithub, configured for a ledger: every request goes through PyGithub's
requester; a write whose answer was lost is never sent twice; a rate-limited write is sent
again after the wait, once."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import requests

from steadypress.alerts.letter import Letter
from steadypress.errors import AmbiguousWrite
from steadypress.github.branch import GitHubBranch
from steadypress.github.client import GitHubClient
from steadypress.github.issues import GitHubIssues
from steadypress.github.schedule import keep_schedule_alive
from steadypress.ledger import Attempt, DeadItem
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub, Fault
from tests.helpers import Repo, article, github_client, github_environment, run_cli

NOW = datetime(2026, 11, 29, tzinfo=UTC)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def test_every_request_to_github_goes_through_pygithub(
    github: FakeGitHub, repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole run on the GitHub backend (state, Pages, a dead letter, the schedule): each
    HTTP request to GitHub is sent from PyGithub's Requester, none from anywhere else."""
    sent_from: list[str] = []
    real_request = requests.Session.request

    def watched(self: requests.Session, method: str, url: str, **options: Any) -> Any:
        if url.startswith(github.api_url):
            frames = traceback.extract_stack()
            sent_from.append(
                "pygithub"
                if any(frame.filename.endswith("github/Requester.py") for frame in frames)
                else frames[-2].filename
            )
        return real_request(self, method, url, **options)

    monkeypatch.setattr(requests.Session, "request", watched)
    for name, value in github_environment(github).items():
        monkeypatch.setenv(name, value)
    repo.commit(**{"content/a.md": article("A"), "content/b.md": "---\ntitle: [broken\n---\n"})
    assert run_cli(repo, "run", "--backend", "github").code == 0
    github.workflows["sweep.yml"] = "disabled_inactivity"
    assert run_cli(repo, "keep-schedule", "--backend", "github").code == 0
    assert len(sent_from) >= 8 and set(sent_from) == {"pygithub"}, sent_from


def test_keep_schedule_builds_its_client_without_the_backend(
    github: FakeGitHub, repo: Repo
) -> None:
    """`keep-schedule`, a step of every publish run, re-enables the sweep GitHub disabled with
    the client alone: it imports neither the backend nor what the backend wires (the content,
    the article parser, the pipeline, the state's store): 30 ms less of its 0.3 s of imports."""
    repo.commit(**{"content/a.md": article("A")})
    github.workflows["sweep.yml"] = "disabled_inactivity"
    wired = ["steadypress.github.backend", "steadypress.content", "steadypress.articles",
             "steadypress.pipeline", "steadypress.github.store", "frontmatter"]  # fmt: skip
    script = (
        "import sys\nfrom steadypress.cli import main\ncode = main(sys.argv[1:4])\n"
        "print('LOADED', code, *sorted(set(sys.modules) & set(sys.argv[4:])), file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "keep-schedule", "--backend", "github", *wired],
        cwd=repo.root, env={**os.environ, **github_environment(github)},
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
    assert line == "LOADED 0", done.stderr
    assert github.workflows["sweep.yml"] == "active"


def letter() -> Letter:
    item = DeadItem("site", "content/a.md", "b1", "c1", NOW, 1, (Attempt(NOW, "x"),), True)
    return Letter.of([item])


def issues_of(client: GitHubClient, github: FakeGitHub) -> GitHubIssues:
    return GitHubIssues(client, repository=github.full_name)


# Each kind of write, as the fake labels its request, and how to make it.
WRITES: dict[str, Callable[[GitHubClient, FakeGitHub], object]] = {
    "POST /repos/{repo}/issues/{number}/comments": lambda client, github: issues_of(
        client, github
    ).close(1, text="done", completed=True),
    "PATCH /repos/{repo}/issues/{number}": lambda client, github: issues_of(client, github).open(
        letter(), 1
    ),
    "DELETE /repos/{repo}/issues/{number}/labels/{name}": lambda client, github: issues_of(
        client, github
    ).acknowledge_retry(1),
    "POST /repos/{repo}/labels": lambda client, github: issues_of(client, github).open(letter()),
    "PUT /repos/{repo}/actions/workflows/{workflow}/enable": lambda client, github: (
        keep_schedule_alive(client, repository=github.full_name, workflow="sweep.yml")
    ),
}


def prepared(github: FakeGitHub) -> None:
    """One dead-letter issue carrying the retry label, no labels defined, a sweep workflow that
    GitHub disabled: every write above has something to do."""
    github.tracker.create_issue({"title": "t", "body": "b", "labels": ["dead-letter", "retry"]})
    github.tracker.labels.clear()
    github.workflows["sweep.yml"] = "disabled_inactivity"


@pytest.mark.parametrize("label", WRITES)
@pytest.mark.parametrize("lost", ["502", "dropped"])
def test_a_write_whose_answer_was_lost_reaches_github_once(
    github: FakeGitHub, label: str, lost: str
) -> None:
    """The fake applies the write, then answers 502 or closes the connection: the client does
    not send it again; the caller learns it may have happened (AmbiguousWrite)."""
    prepared(github)
    github.inject(
        Fault(label, status=502, apply_first=True) if lost == "502" else Fault.lost_answer(label)
    )
    client = github_client(github)
    with github.counting() as calls, pytest.raises(AmbiguousWrite):
        WRITES[label](client, github)
    assert calls[label] == 1


@pytest.mark.parametrize("label", WRITES)
def test_a_rate_limited_write_is_sent_again_after_the_wait_once(
    github: FakeGitHub, label: str
) -> None:
    """A secondary rate limit says the write was not taken: it is sent again after
    `retry-after` seconds on the pipeline's clock, and reaches GitHub twice in all."""
    prepared(github)
    github.inject(Fault.secondary_rate_limit(label, retry_after=7))
    clock = ManualClock(NOW)
    with github.counting() as calls:
        WRITES[label](github_client(github, clock=clock), github)
    # Opening a letter creates both labels, `dead-letter` and `retry`: one more request in all.
    made = 2 if label == "POST /repos/{repo}/labels" else 1
    assert calls[label] == made + 1 and 7.0 in clock.sleeps


# Writes whose lost answer is settled by reading: the label the fake counts, and the branch
# committed to (None: an issue is created).
SETTLED: dict[str, tuple[str, str | None]] = {
    "state commit": ("graphql CreateCommit", "steadypress-state"),
    "Pages commit": ("graphql CreateCommit", "gh-pages"),
    "issue create": ("POST /repos/{repo}/issues", None),
}


def _ready(client: GitHubClient, github: FakeGitHub, branch: str | None) -> Callable[[], object]:
    """The write, ready to make: on a branch that exists already (the state's or the site's:
    one code path), so that it is a commit, not the branch's creation."""
    if branch is None:
        return lambda: issues_of(client, github).open(letter())
    target = GitHubBranch(client, repository=github.full_name, branch=branch)
    head = target.create({"index.html": b"first"}, message="first")
    return lambda: target.commit(
        {"index.html": b"second"}, expected=head, message="second\n\ntransaction: t2"
    )


@pytest.mark.parametrize("kind", SETTLED)
@pytest.mark.parametrize("lost", ["502", "dropped"])
def test_a_commit_or_an_issue_whose_answer_was_lost_is_settled_by_a_read(
    github: FakeGitHub, kind: str, lost: str
) -> None:
    """The fake applies the write and the answer is lost: the write reached GitHub once, and
    reading (the branch's head carries the transaction; the issue has the marker) settles it,
    so the caller goes on as if answered, with exactly one commit or one issue made."""
    label, branch = SETTLED[kind]
    write = _ready(github_client(github), github, branch)
    fault = (
        Fault(label, status=502, apply_first=True) if lost == "502" else Fault.lost_answer(label)
    )
    github.inject(fault)
    with github.counting() as calls:
        write()
    assert calls[label] == 1, f"the {kind} was sent {calls[label]} times"
    if branch is None:
        assert len(github.tracker.issues) == 1
    else:
        assert github.repository.text("log", "-1", "--format=%B", branch).startswith("second")


@pytest.mark.parametrize("kind", SETTLED)
def test_a_rate_limited_commit_or_issue_is_sent_again_after_the_wait_once(
    github: FakeGitHub, kind: str
) -> None:
    label, branch = SETTLED[kind]
    clock = ManualClock(NOW)
    write = _ready(github_client(github, clock=clock), github, branch)
    github.inject(Fault.secondary_rate_limit(label, retry_after=11))
    with github.counting() as calls:
        write()
    assert calls[label] == 2 and 11.0 in clock.sleeps
