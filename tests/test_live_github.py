"""Live mode on GitHub: idle polls are conditional requests answered 304 and nothing else; a
push is published within one interval."""

from __future__ import annotations

import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from importlib import resources

import pytest

from steadypress.timefmt import parse_time
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub, Fault
from tests.helpers import Repo, article, github_environment, github_store, run_cli

INTERVAL = 30.0
REF = "GET /repos/{repo}/git/ref/heads/{branch}"


class ScriptedClock(ManualClock):
    """A manual clock that, at each sleep, records what the fake had seen so far and runs the
    step scripted for that sleep (a push, say)."""

    def __init__(self, github: FakeGitHub, steps: dict[int, Callable[[], None]]) -> None:
        super().__init__(datetime.now(UTC))  # articles are dated by their (real) commits
        self.github = github
        self.steps = steps
        self.seen: list[tuple[Counter[str], int]] = []

    def sleep(self, seconds: float, *, interrupt: threading.Event | None = None) -> None:
        super().sleep(seconds, interrupt=interrupt)
        if seconds >= INTERVAL:  # a live poll's wait, not a backoff inside a run
            self.seen.append((Counter(self.github.requests), self.github.not_modified))
            self.steps.get(len(self.seen), lambda: None)()


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        for name, value in github_environment(fake).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(signal, "signal", lambda *_args: None)  # in-process: keep pytest's
        yield fake


def test_idle_polls_cost_only_conditional_requests_and_a_push_is_published_within_one_interval(
    github: FakeGitHub, repo: Repo
) -> None:
    """The checkout's origin is the repository on GitHub. Poll 1 publishes what is there;
    polls 3 to 5 are idle: two conditional requests each (the content and state branches),
    both answered 304, and no other request; a push after poll 5 is on the site at poll 6."""
    repo.commit(**{"content/first.md": article("First")})
    repo.git("remote", "add", "origin", str(github.repository.path))
    repo.git("push", "-q", "origin", "main")
    pushed_at: list[float] = []

    def push_second() -> None:
        repo.commit(**{"content/second.md": article("Second")})
        repo.git("push", "-q", "origin", "main")
        pushed_at.append(clock.seconds)

    clock = ScriptedClock(github, {5: push_second})
    result = run_cli(
        repo, "live", "--backend", "github", "--ticks", "8", "--interval", str(INTERVAL),
        clock=clock,
    )  # fmt: skip
    assert result.code == 0, result.err
    published = github_store(github).load().ledger.published
    assert {"site:content/first.md", "site:content/second.md"} <= published.keys()
    delay = parse_time(published["site:content/second.md"].published_at) - clock.start
    assert delay.total_seconds() - pushed_at[0] <= INTERVAL
    for poll in (3, 4):  # between the sleeps after polls 2..3 and 3..4: idle polls
        (before, quiet_before), (after, quiet_after) = clock.seen[poll - 1], clock.seen[poll]
        assert after - before == Counter({REF: 2}), after - before
        assert quiet_after - quiet_before == 2, "both answered 304"


def _pushed(repo: Repo, **files: str) -> Callable[[], None]:
    """A step that commits `files` and pushes them to GitHub."""

    def push() -> None:
        repo.commit(**files)
        repo.git("push", "-q", "origin", "main")

    return push


def _live(repo: Repo, clock: ScriptedClock, *, ticks: int) -> None:
    result = run_cli(
        repo, "live", "--backend", "github", "--ticks", str(ticks), "--interval", str(INTERVAL),
        clock=clock,
    )  # fmt: skip
    assert result.code == 0, result.err


def test_a_theme_edit_pushed_while_live_reaches_every_page_and_the_stylesheet(
    github: FakeGitHub, repo: Repo
) -> None:
    """Live mode keeps its targets between polls: a theme edit pushed meanwhile is rendered as
    edited (not from the templates the process read first), the pages and the stylesheet."""
    base = (resources.files("steadypress") / "theme" / "base.html").read_text()
    repo.git("remote", "add", "origin", str(github.repository.path))
    _pushed(repo, **{
        "steadypress.yml": "targets:\n  site: {kind: site, theme: theme}\n",
        "theme/base.html": base, "theme/style.css": "p { color: red }",
        "content/first.md": article("First"), "content/second.md": article("Second"),
    })()  # fmt: skip
    edit_theme = _pushed(repo, **{
        "theme/base.html": base.replace("Published with", "Made with"),
        "theme/style.css": "p { color: blue }",
    })  # fmt: skip
    edit_stylesheet = _pushed(repo, **{"theme/style.css": "p { color: teal }"})
    _live(repo, ScriptedClock(github, {2: edit_theme, 4: edit_stylesheet}), ticks=6)
    for page in ("first/index.html", "second/index.html", "index.html"):
        assert "Made with steadypress" in github.repository.text("show", f"gh-pages:{page}"), page
    assert "teal" in github.repository.text("show", "gh-pages:style.css")


def test_a_configuration_pushed_while_live_is_the_one_it_publishes_with(
    github: FakeGitHub, repo: Repo
) -> None:
    """Live mode follows the configuration as pushed, not as it started with: a new title
    pushed meanwhile reaches every page, and a sweep afterwards (which reads the pushed one)
    finds nothing to publish again."""
    config = "targets:\n  site: {{kind: site, title: {title}}}\n"
    repo.git("remote", "add", "origin", str(github.repository.path))
    _pushed(repo, **{
        "steadypress.yml": config.format(title="Before"),
        "content/first.md": article("First"), "content/second.md": article("Second"),
    })()  # fmt: skip
    retitle = _pushed(repo, **{"steadypress.yml": config.format(title="After")})
    _live(repo, ScriptedClock(github, {2: retitle}), ticks=5)
    for page in ("first/index.html", "second/index.html", "index.html"):
        text = github.repository.text("show", f"gh-pages:{page}")
        assert "After</title>" in text and "Before" not in text, page
    swept = run_cli(repo, "sweep", "--backend", "github")
    assert swept.code == 0 and "0 published" in swept.out, swept.out + swept.err


def test_github_out_of_reach_is_a_line_a_poll_and_live_goes_on(
    github: FakeGitHub, repo: Repo
) -> None:
    """Every answer to the first two polls lost (GitHub out of reach): one line each, no
    traceback, and the next poll that reaches GitHub publishes as usual."""
    repo.commit(**{"content/first.md": article("First")})
    repo.git("remote", "add", "origin", str(github.repository.path))
    repo.git("push", "-q", "origin", "main")
    github.inject(Fault.lost_answer(REF, times=8))  # a poll tries each read four times
    result = run_cli(
        repo, "live", "--backend", "github", "--ticks", "4", "--interval", str(INTERVAL),
        clock=ScriptedClock(github, {}),
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "Traceback" not in result.err
    assert result.err.count("live: GitHub not reached: GET /repos/{repo}/git/ref") == 2
    assert "site:content/first.md" in github_store(github).load().ledger.published


def test_a_run_with_github_out_of_reach_is_one_line_exit_3(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing listens where the API should be: exit 3, one line saying so, nothing changed."""
    monkeypatch.setenv("GITHUB_REPOSITORY", "owner/blog")
    monkeypatch.setenv("GITHUB_TOKEN", "a-token")
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("GITHUB_GRAPHQL_URL", "http://127.0.0.1:9/graphql")
    repo.commit(**{"content/a.md": article("A")})
    result = run_cli(repo, "run", "--backend", "github", clock=ManualClock())
    assert result.code == 3 and "Traceback" not in result.err
    (line,) = result.err.strip().splitlines()
    assert "GitHub not reached: graphql LoadBranch, 4 tries (ConnectionError)" in line
    assert "nothing was changed" in line
