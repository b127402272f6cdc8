"""The Bluesky target through the CLI, against the PDS fake: a post with a link card under a
record key derived from the article, so a retry rewrites the same record."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from steadypress.errors import ConfigError
from steadypress.targets.bluesky import parse_settings, record_key
from tests.fakes.bluesky import FakeBluesky
from tests.helpers import Repo, article, run_cli

TIMINGS = "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
COVER = b"\x89PNG\r\n\x1a\n a cover"


def config(bluesky: FakeBluesky, site_url: str, **options: str) -> str:
    extra = "".join(f", {key}: '{value}'" for key, value in options.items())
    return (
        TIMINGS + f"targets:\n  site: {{kind: site, url: '{site_url}'}}\n"
        f"  sky: {{kind: bluesky, handle: {bluesky.handle}, service: '{bluesky.service}'{extra}}}\n"
    )


def test_a_new_article_is_one_post_with_its_link_card_and_facets(
    repo: Repo, bluesky: FakeBluesky, served: str
) -> None:
    repo.write("content/images/cover.png", COVER)
    repo.commit(**{"steadypress.yml": config(bluesky, served),
                   "content/héllo.md": article("Héllo", tags="[python, py]",
                                               description="'A greeting.'",
                                               cover_image="images/cover.png")})  # fmt: skip
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    ((rkey, post),) = bluesky.records.items()
    assert rkey == record_key("sky", "content/héllo.md")
    url = f"{served}hello/"
    assert post["text"] == f"Héllo\n\n{url}\n\n#python #py"
    text = post["text"].encode()
    shown = {
        text[f["index"]["byteStart"] : f["index"]["byteEnd"]].decode(): f["features"][0]
        for f in post["facets"]
    }
    assert shown[url] == {"$type": "app.bsky.richtext.facet#link", "uri": url}
    assert shown["#py"]["tag"] == "py" and shown["#python"]["tag"] == "python"
    card = post["embed"]["external"]
    assert (card["uri"], card["title"], card["description"]) == (url, "Héllo", "A greeting.")
    assert bluesky.blobs[card["thumb"]["ref"]["$link"]] == ("image/png", len(COVER))
    record = repo.ledger().published["sky:content/héllo.md"]
    assert record.id == rkey
    assert record.url == f"https://bsky.app/profile/{bluesky.handle}/post/{rkey}"
    assert bluesky.sessions_made == 1


def test_an_edit_leaves_the_post_unless_asked_and_then_keeps_its_date(
    repo: Repo, bluesky: FakeBluesky, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(bluesky, served), "content/a.md": article("One")})
    assert run_cli(repo, "run").code == 0
    repo.commit(**{"content/a.md": article("Two")})
    assert run_cli(repo, "run").code == 0
    ((rkey, post),) = bluesky.records.items()
    assert post["text"].startswith("One") and bluesky.writes == {"create": 1}
    first_date = post["createdAt"]
    repo.commit(**{"steadypress.yml": config(bluesky, served, on_edit="edit"),
                   "content/a.md": article("Three")})  # fmt: skip
    assert run_cli(repo, "run").code == 0
    assert bluesky.records[rkey]["text"].startswith("Three")
    assert bluesky.records[rkey]["createdAt"] == first_date
    assert bluesky.writes == {"create": 1, "update": 1}


def test_a_removed_article_s_post_is_deleted(repo: Repo, bluesky: FakeBluesky, served: str) -> None:
    repo.commit(**{"steadypress.yml": config(bluesky, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    repo.git("rm", "-q", "content/a.md")
    repo.commit()
    assert run_cli(repo, "run").code == 0
    assert not bluesky.records and bluesky.writes["delete"] == 1


def test_an_expired_session_is_made_again_once(
    repo: Repo, bluesky: FakeBluesky, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(bluesky, served), "content/a.md": article("A"),
                   "content/b.md": article("B")})  # fmt: skip
    bluesky.expire_after_writes = 1
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert len(bluesky.records) == 2 and bluesky.sessions_made == 2


def test_a_wrong_app_password_is_a_dead_letter_that_names_the_secret(
    repo: Repo, bluesky: FakeBluesky, served: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BLUESKY_APP_PASSWORD", "not-the-password")
    repo.commit(**{"steadypress.yml": config(bluesky, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["sky:content/a.md"]
    assert dead.permanent and "BLUESKY_APP_PASSWORD" in dead.last_error
    assert "Invalid identifier or password" in dead.last_error and not bluesky.records


def test_an_announcement_over_300_characters_is_refused_before_any_request(
    repo: Repo, bluesky: FakeBluesky, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(bluesky, served), "content/a.md": article("é" * 290)})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["sky:content/a.md"]
    assert dead.permanent and "takes 300" in dead.last_error and not bluesky.sessions_made


def test_record_keys_are_valid_tids_the_same_for_the_same_article() -> None:
    """atproto.com/specs/tid: 13 base32-sortable characters, the top bit zero, 53 bits of
    microseconds, 10 of clock id."""
    keys = {record_key("sky", f"content/{n}.md") for n in range(500)}
    assert len(keys) == 500
    assert record_key("sky", "content/1.md") == record_key("sky", "content/1.md")
    assert record_key("sky", "content/1.md") != record_key("other", "content/1.md")
    alphabet = "234567abcdefghijklmnopqrstuvwxyz"
    for key in keys:
        assert len(key) == 13 and set(key) <= set(alphabet) and key[0] in "234567abcdefghij"
        value = 0
        for char in key:
            value = value * 32 + alphabet.index(char)
        moment = datetime.fromtimestamp((value >> 10) / 1e6, UTC)
        assert datetime(2020, 9, 1, tzinfo=UTC) < moment < datetime(2025, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "handle: required"),
        ({"handle": "a.bsky.social", "service": "bsky.social"}, "service: an http(s) URL"),
        ({"handle": "a.bsky.social", "on_edit": "always"}, "on_edit: one of edit, leave"),
        ({"handle": "a.bsky.social", "template": "{title}"}, "must show the link"),
        ({"handle": "a.bsky.social", "password": "x"}, "unknown key 'targets.sky.password'"),
    ],
)
def test_settings_are_checked_with_the_key_named(options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_settings("sky", options, "steadypress.yml")
    assert message in str(raised.value)
