"""The Hashnode target through the CLI, against the Hashnode fake: one post per article, found
again before any create, and a taken slug named instead of a suffixed copy."""

from __future__ import annotations

import pytest
from graphql import parse, validate

from steadypress.errors import ConfigError
from steadypress.targets.hashnode import QUERIES, marker, parse_settings
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.hashnode.server import hashnode_schema
from tests.helpers import Repo, article, run_cli

TIMINGS = "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
ID = "65f1a2b3c4d5e6f7a8b9c0d1"
PICTURE = b"\x89PNG\r\n\x1a\n a cover"


def config(hashnode: FakeHashnode, site_url: str) -> str:
    return (
        TIMINGS + f"targets:\n  site: {{kind: site, url: '{site_url}'}}\n"
        f"  hn: {{kind: hashnode, publication_id: {hashnode.publication_id}, "
        f"api_url: '{hashnode.api_url}'}}\n"
    )


def test_every_query_steadypress_sends_is_valid_against_the_schema() -> None:
    """The fake validates what it is sent too; this names the query that would not pass."""
    for query in QUERIES:
        assert validate(hashnode_schema(), parse(query)) == [], query


def test_a_new_article_is_one_post_with_its_front_matter_mapped(
    repo: Repo, hashnode: FakeHashnode, served: str
) -> None:
    repo.write("content/guides/images/cover.png", PICTURE)
    repo.commit(**{"steadypress.yml": config(hashnode, served),
                   "content/guides/first.md": article(
                       "First", "Look: ![the cover](images/cover.png)",
                       tags="[python, C++, новости, C#, c, d, e]", description="'Subtitle.'",
                       cover_image="images/cover.png")})  # fmt: skip
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    (post,) = hashnode.posts.values()
    assert post["slug"] == "guides-first" and post["title"] == "First"
    assert post["subtitle"] == "Subtitle." and post["canonicalUrl"] == f"{served}guides/first/"
    # As Hashnode's own tags are named (`cpp`, `csharp`); one ASCII cannot spell, left out.
    assert [tag["slug"] for tag in post["tags"]] == ["python", "cpp", "csharp", "c", "d"]
    assert post["cover"].startswith(f"{served}assets/")
    # An image in the text is sent by its address on the site, as dev.to's are: Hashnode
    # cannot resolve a path relative to the article.
    assert f"![the cover]({post['cover']})" in post["content"]["markdown"]
    assert post["content"]["markdown"].endswith(marker("content/guides/first.md") + "\n")
    record = repo.ledger().published["hn:content/guides/first.md"]
    assert (record.id, record.url) == (post["id"], post["url"])


def test_an_edit_updates_the_same_post(repo: Repo, hashnode: FakeHashnode, served: str) -> None:
    repo.commit(**{"steadypress.yml": config(hashnode, served), "content/a.md": article("One")})
    assert run_cli(repo, "run").code == 0
    repo.commit(**{"content/a.md": article("Two")})
    assert run_cli(repo, "run").code == 0
    (post,) = hashnode.posts.values()
    assert post["title"] == "Two" and hashnode.creates == 1


def test_a_slug_taken_by_another_post_is_a_dead_letter_not_a_suffixed_copy(
    repo: Repo, hashnode: FakeHashnode, served: str
) -> None:
    theirs = hashnode.post_by_hand("a")
    repo.commit(**{"steadypress.yml": config(hashnode, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["hn:content/a.md"]
    assert dead.permanent and "slug 'a' is taken" in dead.last_error
    assert theirs["url"] in dead.last_error
    assert list(hashnode.posts.values()) == [theirs] and hashnode.creates == 0


def test_a_slug_taken_between_the_look_and_the_create_leaves_no_copy(
    repo: Repo, hashnode: FakeHashnode, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(hashnode, served), "content/a.md": article("A")})
    hashnode.taken_meanwhile = "a"
    assert run_cli(repo, "run").code == 0
    assert "slug 'a' is taken" in repo.ledger().dead["hn:content/a.md"].last_error
    assert [post["title"] for post in hashnode.posts.values()] == ["Meanwhile"]


def test_a_post_whose_slug_changed_since_its_lost_create_is_found_by_its_marker(
    repo: Repo, hashnode: FakeHashnode, served: str
) -> None:
    """The create's answer is lost, then the author sets a `slug`: the retry looks under the
    new slug, finds nothing, and finds the post by its marker instead. One post, renamed."""
    repo.commit(**{"steadypress.yml": config(hashnode, served), "content/a.md": article("A")})
    hashnode.drop_after_create = 1
    assert run_cli(repo, "run").code == 1
    repo.commit(**{"content/a.md": article("A", slug="a-better-name")})
    assert run_cli(repo, "sweep").code == 0
    (post,) = hashnode.posts.values()
    assert post["slug"] == "a-better-name" and hashnode.creates == 1
    assert hashnode.operations["Search"] == 2, "one before the first create, one on the retry"


def test_a_series_is_mapped_to_the_publication_s_and_a_missing_one_named(
    repo: Repo, hashnode: FakeHashnode, served: str
) -> None:
    series_id = hashnode.add_series("python-basics")
    repo.commit(**{"steadypress.yml": config(hashnode, served),
                   "content/a.md": article("A", series="'Python Basics'"),
                   "content/b.md": article("B", series="Nowhere")})  # fmt: skip
    assert run_cli(repo, "run").code == 0
    (post,) = hashnode.posts.values()
    assert post["seriesId"] == series_id
    assert "no series 'nowhere'" in repo.ledger().dead["hn:content/b.md"].last_error


def test_a_removed_article_s_post_is_removed(
    repo: Repo, hashnode: FakeHashnode, served: str
) -> None:
    repo.commit(**{"steadypress.yml": config(hashnode, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    repo.git("rm", "-q", "content/a.md")
    repo.commit()
    assert run_cli(repo, "run").code == 0
    assert not hashnode.posts


def test_a_wrong_token_is_a_dead_letter_that_names_the_secret(
    repo: Repo, hashnode: FakeHashnode, served: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HASHNODE_TOKEN", "wrong-token")
    repo.commit(**{"steadypress.yml": config(hashnode, served), "content/a.md": article("A")})
    assert run_cli(repo, "run").code == 0
    dead = repo.ledger().dead["hn:content/a.md"]
    assert dead.permanent and "HASHNODE_TOKEN" in dead.last_error
    assert "UNAUTHENTICATED" in dead.last_error


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "publication_id: required"),
        ({"publication_id": "my-blog"}, "24 hexadecimal digits"),
        ({"publication_id": ID, "api_url": "gql"}, "an http(s) URL"),
        ({"publication_id": ID, "tags": "x"}, "unknown key 'targets.hn.tags'"),
    ],
)
def test_settings_are_checked_with_the_key_named(options: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_settings("hn", options, "steadypress.yml")
    assert message in str(raised.value)
