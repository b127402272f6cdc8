"""No author's article can take an address the site itself owns, or another article's: an alias
(or an old URL) on the feed, the sitemap, the front page, a generated folder or another article's
page is that article's dead letter, named, and nothing of the site is touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from steadypress.targets.site.manifest import redirect_file
from tests.helpers import Repo, article, run_cli

CONFIG = "max_attempts: 1\ntargets:\n  site: {kind: site}\n"


def five_articles(repo: Repo, **bad_front: str) -> None:
    files = {f"content/a{n}.md": article(f"A{n}") for n in range(4)}
    repo.commit(
        **{"steadypress.yml": CONFIG, **files, "content/bad.md": article("Bad", **bad_front)}
    )


def site_files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in site.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "alias", ["/feed.xml/", "/feed.xml", "/sitemap.xml/", "/index.html", "/404.html", "/style.css/",
              "/robots.txt", "/CNAME/", "/.steadypress-site.journal/", "/sitemap-home.xml",
              "/sitemap-pages-0.xml/"],
)  # fmt: skip
def test_an_alias_on_a_file_the_site_writes_is_the_article_s_dead_letter_alone(
    repo: Repo, alias: str
) -> None:
    """On a first build: the other four publish, the feed and the sitemap stay files, no
    journal is left behind, and the letter names the alias."""
    five_articles(repo, aliases=f"[{alias}]")
    assert run_cli(repo, "run").code == 0
    ledger = repo.ledger()
    assert sorted(ledger.published) == [f"site:content/a{n}.md" for n in range(4)]
    reason = ledger.dead["site:content/bad.md"].last_error
    assert alias in reason and "which the site itself writes" in reason
    site = repo.root / "_site"
    assert (site / "feed.xml").is_file() and (site / "sitemap.xml").is_file()
    front = (site / "index.html").read_bytes()
    assert b"A0" in front and b"Moved" not in front
    assert not (site / ".steadypress-site.journal").exists()


def test_an_alias_on_a_file_the_site_writes_touches_nothing_of_an_existing_site(
    repo: Repo,
) -> None:
    """Added to a published site: refused before the write, the site byte for byte as it was."""
    five_articles(repo)
    assert run_cli(repo, "run").code == 0
    before = site_files(repo.root / "_site")
    repo.commit(**{"content/bad.md": article("Bad", aliases="[/feed.xml/]")})
    result = run_cli(repo, "run")
    assert result.code == 0 and "Traceback" not in result.err
    assert repo.ledger().dead["site:content/bad.md"].permanent
    assert site_files(repo.root / "_site") == before


def test_an_alias_on_another_article_s_url_never_replaces_its_page(repo: Repo) -> None:
    """The page of content/a0.md stays its page; the article naming its URL is the letter."""
    five_articles(repo)
    assert run_cli(repo, "run").code == 0
    page = (repo.root / "_site/a0/index.html").read_bytes()
    repo.commit(**{"content/bad.md": article("Bad", aliases="[/a0/]")})
    assert run_cli(repo, "run").code == 0
    reason = repo.ledger().dead["site:content/bad.md"].last_error
    assert "alias /a0/ is the URL of content/a0.md" in reason
    assert (repo.root / "_site/a0/index.html").read_bytes() == page


def test_an_alias_on_the_url_of_an_article_new_in_the_same_push_is_refused(repo: Repo) -> None:
    """The other article is not in the index yet: the redirect still yields to its page,
    whichever of the two comes first."""
    repo.commit(**{
        "steadypress.yml": CONFIG,
        "content/a.md": article("A", aliases="[/z/]"),
        "content/z.md": article("Z"),
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    ledger = repo.ledger()
    assert "site:content/z.md" in ledger.published
    assert "is the URL of content/z.md" in ledger.dead["site:content/a.md"].last_error
    assert b"Moved" not in (repo.root / "_site/z/index.html").read_bytes()


def test_an_alias_on_the_article_s_own_url_is_refused(repo: Repo) -> None:
    repo.commit(**{"steadypress.yml": CONFIG, "content/a.md": article("A", aliases="[/a/]")})
    assert run_cli(repo, "run").code == 0
    assert "the article's own URL" in repo.ledger().dead["site:content/a.md"].last_error


def test_an_alias_without_a_leading_slash_is_read_from_the_article_s_folder_as_hugo_reads_it(
    repo: Repo,
) -> None:
    """`aliases: [old-name, ../older]` in content/posts/x.md: /posts/old-name/ and /older/
    redirect to /posts/x/; one that leaves the site is the article's dead letter, named."""
    repo.commit(**{"content/posts/x.md": article("X", aliases="[old-name, ../older, ../../out]")})
    result = run_cli(repo, "run")
    assert "alias '../../out' leaves the site" in result.out + result.err
    repo.commit(**{"content/posts/x.md": article("X", aliases="[old-name, ../older]")})
    assert run_cli(repo, "run").code == 0
    for old in ("posts/old-name/index.html", "older/index.html"):
        page = (repo.root / "_site" / old).read_text()
        assert 'http-equiv="refresh" content="0; url=http://localhost:8000/posts/x/"' in page


@pytest.mark.parametrize(
    ("old", "free"),
    [("tags/c++/", True), ("tags/go/", False), ("tags/go.html", True), ("tags/", False),
     ("tags/go/page/2/", True), ("tags/page/1/", True), ("tags/go/page/1.html", True),
     ("tags/go/index.xml", False), ("tags/go/2024/", False), ("tags/go/years/", False),
     ("tags/go/2024/p2/", False), ("archive/page/2/", False), ("posts/page/2/", True),
     ("tags/index.xml/", False)],
)  # fmt: skip
def test_a_redirect_in_the_tags_folder_stands_only_where_no_tag_s_file_may(
    old: str, *, free: bool
) -> None:
    """Hugo's pages of a tag (`tags/go/page/2/`) are free; a tag's own files are not: its page,
    its feed, its years' page and each year's folder."""
    assert (redirect_file(old) is not None) is free
