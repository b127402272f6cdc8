"""A feed entry's id is permanent: neither a new domain nor a new `slug` makes a reader show an
article it has read as new. The feed's id is the site's address when the feed was first
written, and each entry's adds the address its path gives; a feed an earlier version wrote (its
ids the links) keeps its ids."""

from __future__ import annotations

import json

import feedparser

from tests.helpers import Repo, article, run_cli


def settings(url: str) -> str:
    return f"targets:\n  site: {{kind: site, url: '{url}'}}\n"


def feed(repo: Repo) -> dict[str, tuple[str, str]]:
    parsed = feedparser.parse((repo.root / "_site/feed.xml").read_bytes())
    return {entry.title: (entry.id, entry.link) for entry in parsed.entries}


def test_ids_stay_when_the_domain_and_a_slug_change(repo: Repo) -> None:
    repo.commit(
        **{
            "steadypress.yml": settings("https://old.example/"),
            "content/one.md": article("One", date="2024-01-01"),
            "content/two.md": article("Two", date="2024-01-02"),
        }
    )
    assert run_cli(repo, "run").code == 0
    first = feed(repo)
    assert first["One"] == ("https://old.example/one/", "https://old.example/one/")

    repo.commit(
        **{
            "steadypress.yml": settings("https://new.example/"),
            "content/one.md": article("One", date="2024-01-01", slug="first-one"),
        }
    )
    assert run_cli(repo, "run").code == 0

    now = feed(repo)
    assert {title: ident for title, (ident, _link) in now.items()} == {
        title: ident for title, (ident, _link) in first.items()
    }
    assert now["One"][1] == "https://new.example/first-one/"
    assert parsed_id(repo) == "https://old.example/"


def parsed_id(repo: Repo) -> str:
    return str(feedparser.parse((repo.root / "_site/feed.xml").read_bytes()).feed.id)


def test_a_feed_an_earlier_version_wrote_keeps_its_ids(repo: Repo) -> None:
    repo.commit(
        **{
            "steadypress.yml": settings("https://blog.example/"),
            "content/one.md": article("One", date="2024-01-01"),
        }
    )
    assert run_cli(repo, "run").code == 0
    summary_file = repo.root / "_site/.steadypress/summary.json"
    summary = json.loads(summary_file.read_text())
    del summary["feed_id"]  # as steadypress 0.2.0 wrote it: the entries' ids were their links
    summary_file.write_text(json.dumps(summary))
    before = feed(repo)

    repo.commit(**{"content/two.md": article("Two", date="2024-01-02")})
    assert run_cli(repo, "run").code == 0

    assert feed(repo)["One"] == before["One"] == ("https://blog.example/one/",) * 2
    assert json.loads(summary_file.read_text())["feed_id"] == "https://blog.example/"
