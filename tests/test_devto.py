"""The dev.to target through the CLI, against the Forem fake (its exactly-once stories, with
every platform's, are in test_syndication.py)."""

from datetime import datetime, timedelta

import pytest

from steadypress.targets.http import Pace
from tests.fakes.clock import ManualClock
from tests.fakes.devto import FakeForem
from tests.helpers import Repo, article, run_cli


def config(forem: FakeForem) -> str:
    return (
        "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        "targets:\n  site: {kind: site}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    )


def test_a_new_article_appears_on_devto_and_the_site(repo: Repo, forem: FakeForem) -> None:
    """One post, tags normalised for dev.to, url and id recorded next to the site's."""
    repo.commit(**{"steadypress.yml": config(forem),
                   "content/a.md": article("A", tags="[Python, web-dev, a, b, c]")})  # fmt: skip
    assert run_cli(repo, "run").code == 0
    (post,) = forem.posts.values()
    assert (
        post["title"] == "A" and post["tags"] == "python,webdev,a,b" and post["published"] is True
    )
    record = repo.ledger().published["devto:content/a.md"]
    assert (record.id, record.url) == ("1", post["url"])
    assert "site:content/a.md" in repo.ledger().published


def test_an_edit_updates_the_same_post(repo: Repo, forem: FakeForem) -> None:
    """A new version is a PUT to the recorded post: still one post, one create."""
    repo.commit(**{"steadypress.yml": config(forem), "content/a.md": article("First")})
    run_cli(repo, "run")
    repo.commit(**{"content/a.md": article("Second")})
    assert run_cli(repo, "run").code == 0
    assert len(forem.posts) == 1 and forem.posts[1]["title"] == "Second"
    assert forem.creates == {"content/a.md": 1}


def test_a_field_removed_from_the_front_matter_is_cleared_on_the_post(
    repo: Repo, forem: FakeForem
) -> None:
    """An update names every field, blank where the article has none: Forem keeps what an
    update leaves out, so a description, series, cover or canonical URL taken out of the front
    matter would stay on dev.to."""
    full = article("A", description="Once.", series="Old series",
                   cover_image="https://img.example/c.png",
                   canonical_url="https://first.example/a/")  # fmt: skip
    repo.commit(**{"steadypress.yml": config(forem), "content/a.md": full})
    assert run_cli(repo, "run").code == 0
    (post,) = forem.posts.values()
    assert (post["description"], post["series"], post["main_image"], post["canonical_url"]) == (
        "Once.",
        "Old series",
        "https://img.example/c.png",
        "https://first.example/a/",
    )

    repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0

    (post,) = forem.posts.values()
    assert (post["description"], post["series"], post["main_image"]) == ("", "", None)
    assert post["canonical_url"] == "http://localhost:8000/a/", "its page on the site, by default"


def test_thirty_articles_in_one_push_are_paced_under_the_rate_limit(
    repo: Repo, forem: FakeForem
) -> None:
    """30 creates at 10 per window: steadypress waits between batches; no 429 is ever earned."""
    repo.commit(**{"steadypress.yml": config(forem),
                   **{f"content/p{n:02d}.md": article(f"P{n}") for n in range(30)}})  # fmt: skip
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert forem.rate_limited == 0 and len(forem.posts) == 30
    assert len([k for k in repo.ledger().published if k.startswith("devto:")]) == 30


class _SteppedClock(ManualClock):
    """A machine whose UTC time the time service steps forward (by `step`), as it may at any
    moment; its monotonic time is never stepped."""

    def __init__(self) -> None:
        super().__init__()
        self.step = 0.0

    def now(self) -> datetime:
        return super().now() + timedelta(seconds=self.step)


def test_pacing_waits_a_full_window_however_the_utc_time_is_stepped() -> None:
    """Requests are paced on the monotonic clock: a UTC time stepped forward between two
    requests would otherwise send the next one early, and earn a 429 (seen once on a loaded
    machine, where the suite's 2-second window met a stepped clock)."""
    clock = _SteppedClock()
    pace = Pace(2, 10.0, clock=clock)
    for _ in range(2):
        pace.wait()
        pace.record()
    clock.step = 8.0
    pace.wait()
    assert clock.sleeps == [10.0]


def test_a_bad_api_key_is_one_dead_letter_that_names_the_secret(
    repo: Repo, forem: FakeForem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """401 is configuration, not weather: dead at once, saying which secret to fix."""
    monkeypatch.setenv("DEVTO_API_KEY", "wrong")
    repo.commit(**{"steadypress.yml": config(forem), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["devto:content/a.md"]
    assert dead.permanent and "DEVTO_API_KEY" in dead.last_error
    assert len(list((repo.root / ".steadypress/dead-letters").glob("*.md"))) == 1
    assert not forem.posts


def test_an_absolute_cover_image_is_sent_as_it_is(repo: Repo, forem: FakeForem) -> None:
    """dev.to fetches `main_image` from a URL; an absolute one goes unchanged (a relative one
    becomes the site's URL: tests/test_devto_images.py)."""
    repo.commit(**{
        "steadypress.yml": config(forem),
        "content/a.md": article("A", cover_image="https://img.example/a.png"),
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    covers = {post["title"]: post.get("main_image") for post in forem.posts.values()}
    assert covers == {"A": "https://img.example/a.png"}
