"""The Mastodon target through the CLI, against the Mastodon fake: one announcement per article,
ever, even when the answer to its post is lost or the executor dies right after it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from steadypress.errors import ConfigError
from steadypress.targets.mastodon import parse_settings, status_length
from tests.fakes.mastodon import FakeMastodon
from tests.helpers import Repo, article, run_cli

TIMINGS = "timings: {lease: 2s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"


def config(mastodon: FakeMastodon, site_url: str, **options: str) -> str:
    extra = "".join(f", {key}: '{value}'" for key, value in options.items())
    return (
        TIMINGS + f"targets:\n  site: {{kind: site, url: '{site_url}'}}\n"
        f"  toot: {{kind: mastodon, instance: '{mastodon.instance}'{extra}}}\n"
    )


def test_a_new_article_is_announced_once_with_its_link_and_hashtags(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(mastodon, served, visibility="unlisted"),
                   "content/hello.md": article("Hello", tags="[python, web-dev]")})  # fmt: skip
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    (status,) = mastodon.statuses.values()
    assert status["text"] == f"Hello\n\n{served}hello/\n\n#python #webdev"
    assert status["visibility"] == "unlisted"
    record = repo.ledger().published["toot:content/hello.md"]
    assert (record.id, record.url) == (status["id"], status["url"])


def test_an_edit_edits_the_status_only_when_its_text_changes(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(mastodon, served), "content/a.md": article("One")})
    assert run_cli(repo, "run").code == 0
    repo.commit(**{"content/a.md": article("One", body="Other words.")})
    assert run_cli(repo, "run").code == 0
    assert not mastodon.edits, "the announcement says the same: left as it is"
    repo.commit(**{"content/a.md": article("Two", body="Other words.")})
    assert run_cli(repo, "run").code == 0
    (status,) = mastodon.statuses.values()
    assert status["text"].startswith("Two\n") and mastodon.edits == {status["id"]: 1}


def test_on_edit_leave_never_edits(repo: Repo, mastodon: FakeMastodon, served: str) -> None:
    repo.commit(**{"steadypress.yml": config(mastodon, served, on_edit="leave"),
                   "content/a.md": article("One")})  # fmt: skip
    run_cli(repo, "run")
    repo.commit(**{"content/a.md": article("Two")})
    assert run_cli(repo, "run").code == 0
    (status,) = mastodon.statuses.values()
    assert status["text"].startswith("One\n") and not mastodon.edits


def test_after_the_key_expired_the_status_is_found_among_the_account_s_own(
    repo: Repo, served: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The retry comes two hours later: Mastodon has forgotten the key, so the target finds its
    status by the article's link, posted by its own application. A status the author wrote by
    hand in another app, linking to the same article, is not taken for it."""
    hours = [0.0]
    with FakeMastodon(clock=lambda: hours[0] * 3600) as mastodon:
        monkeypatch.setenv("MASTODON_TOKEN", mastodon.token)
        repo.commit(**{"steadypress.yml": config(mastodon, served), "content/a.md": article("A")})
        mastodon.post_by_hand(f"I wrote about this: {served}a/")
        mastodon.drop_after_create = 1
        assert run_cli(repo, "run").code == 1
        hours[0] = 2
        assert run_cli(repo, "sweep").code == 0
        ours = [s for s in mastodon.statuses.values() if s["application"]["name"] == "steadypress"]
        assert len(ours) == 1 and len(mastodon.statuses) == 2
        assert repo.ledger().published["toot:content/a.md"].id == ours[0]["id"]


def test_a_removed_article_s_status_is_deleted(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(mastodon, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    repo.git("rm", "-q", "content/a.md")
    repo.commit()
    assert run_cli(repo, "run").code == 0
    assert not mastodon.statuses and mastodon.deletes == 1


def test_a_page_not_served_yet_makes_the_announcement_wait(
    repo: Repo, mastodon: FakeMastodon
) -> None:
    """Mastodon fetches the link's preview once, when the status is posted."""
    repo.commit(**{"steadypress.yml": config(mastodon, "http://127.0.0.1:9/"),
                   "content/a.md": article("A")})  # fmt: skip
    result = run_cli(repo, "run")
    assert result.code == 1 and "not reachable yet" in result.err
    assert not mastodon.statuses and "toot:content/a.md" in repo.ledger().pending


def test_a_wrong_token_is_a_dead_letter_that_names_the_secret(
    repo: Repo, mastodon: FakeMastodon, served: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MASTODON_TOKEN", "wrong")
    repo.commit(**{"steadypress.yml": config(mastodon, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["toot:content/a.md"]
    assert dead.permanent and "MASTODON_TOKEN" in dead.last_error and not mastodon.statuses


def test_an_announcement_over_the_limit_is_refused_before_posting(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    """steadypress counts as Mastodon does (a link is 23 characters), so no request is spent."""
    repo.commit(**{"steadypress.yml": config(mastodon, served), "content/a.md": article("x" * 480)})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["toot:content/a.md"]
    assert dead.permanent and "takes 500" in dead.last_error
    assert not mastodon.requests["POST /api/v1/statuses"]


def test_mastodon_s_own_refusal_is_recorded_with_its_words(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    """An instance with a smaller limit than configured: Mastodon's 422 names the problem."""
    repo.commit(**{"steadypress.yml": config(mastodon, served, max_characters="5000"),
                   "content/a.md": article("y" * 520)})  # fmt: skip
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["toot:content/a.md"]
    assert "Text character limit of 500 exceeded" in dead.last_error


def test_a_rate_limit_waits_for_the_reset_mastodon_names(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    """Mastodon names the moment its window resets (not a delay): the item waits until then."""
    slow = config(mastodon, served).replace("backoff_max: 0s", "backoff_max: 1h")
    repo.commit(**{"steadypress.yml": slow, "content/a.md": article("A")})
    reset = datetime.now(UTC) + timedelta(minutes=10)
    mastodon.script.append((429, {"X-RateLimit-Reset": reset.isoformat().replace("+00:00", "Z")}))
    result = run_cli(repo, "run")
    assert result.code == 1 and "rate limit" in result.err
    item = repo.ledger().pending["toot:content/a.md"]
    assert item.next_attempt_at is not None
    assert item.next_attempt_at >= reset - timedelta(seconds=5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "instance: required"),
        ({"instance": "https://m.example", "visibility": "friends"}, "visibility: one of"),
        ({"instance": "https://m.example", "template": "{title} {link}"}, "unknown field {link}"),
        ({"instance": "https://m.example", "template": "{title}"}, "must show the link"),
        ({"instance": "https://m.example", "colour": "red"}, "unknown key 'targets.toot.colour'"),
        ({"instance": "https://m.example", "lookback": "soon"}, "lookback"),
    ],
)
def test_settings_are_checked_with_the_key_named(options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_settings("toot", options, "steadypress.yml")
    assert message in str(raised.value)


def test_the_length_is_counted_as_mastodon_counts_it() -> None:
    """Graphemes, not code points (a family emoji is one); a link is 23 and ends before a
    trailing full stop or bracket, which count; a remote mention counts as its name."""
    assert status_length("👨‍👩‍👧 é") == 3
    assert status_length("see https://example.org/a/very/long/path/.") == 4 + 23 + 1
    assert status_length("(https://example.org/x)") == 1 + 23 + 1
    assert status_length("hi @alice@mastodon.social") == len("hi @alice")


def test_an_announcement_of_many_emoji_within_the_limit_is_posted(
    repo: Repo, mastodon: FakeMastodon, served: str
) -> None:
    """470 family emoji (2,350 code points) and a link: 495 characters as Mastodon counts."""
    title = "👨‍👩‍👧" * 470
    text = f"---\ntitle: {title}\n---\n\nWords.\n"  # plain YAML: the joiners as they are
    repo.commit(**{"steadypress.yml": config(mastodon, served), "content/a.md": text})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "toot:content/a.md" in repo.ledger().published, result.err
