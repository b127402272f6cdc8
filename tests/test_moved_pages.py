"""An article whose address changes (its `slug` edited, `transliterate` turned on) leaves a
redirect page at each address it had, which yields to another article that takes one and goes
with the article when it is removed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from steadypress.articles import Article
from steadypress.targets.base import Receipt
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site.index import ARTICLES, NEWEST_FILE
from tests.helpers import site_articles, site_target
from tests.schema import VALIDATORS

DAY = datetime(2024, 5, 1, tzinfo=UTC)


def version(path: str, slug: str | None, blob: str) -> Article:
    return Article(path=path, blob=blob, title=path, body=f"Text of {path}.", date=DAY, slug=slug)


def redirects_to(site: Path, page: str) -> str | None:
    """Where the page at `page` (a folder of the site) sends readers, or None: no redirect."""
    text = (site / page / "index.html").read_text()
    marker = 'http-equiv="refresh" content="0; url='
    return text.split(marker)[1].split('"')[0] if marker in text else None


def test_a_page_that_moves_leaves_redirects_that_yield_and_go_with_it(tmp_path: Path) -> None:
    site = site_target(DirectorySiteFiles(tmp_path))
    published = site.publish_batch([(version("content/a.md", None, "1"), None)])
    assert isinstance(published[0], Receipt)

    # Its slug edited twice: both earlier addresses lead to the page.
    site.publish_batch([(version("content/a.md", "first", "2"), None)])
    site.publish_batch([(version("content/a.md", "second", "3"), None)])
    assert redirects_to(tmp_path, "a") == redirects_to(tmp_path, "first")
    assert redirects_to(tmp_path, "a") == "https://blog.example/second/"
    assert redirects_to(tmp_path, "second") is None

    # Back at an address it had: its page again, not a redirect to itself.
    site.publish_batch([(version("content/a.md", "first", "4"), None)])
    assert redirects_to(tmp_path, "first") is None
    assert redirects_to(tmp_path, "second") == "https://blog.example/first/"

    # Another article takes an old address: it is refused nothing, and the redirect yields.
    (taken,) = site.publish_batch([(version("content/b.md", "second", "1"), None)])
    assert isinstance(taken, Receipt), taken
    assert redirects_to(tmp_path, "second") is None
    assert "Text of content/b.md." in (tmp_path / "second/index.html").read_text()
    site.publish_batch([(version("content/a.md", "first", "5"), None)])  # a's next version
    assert "Text of content/b.md." in (tmp_path / "second/index.html").read_text()
    index = site_articles(p.read_bytes() for p in (tmp_path / ARTICLES).rglob("*.json"))
    assert index["content/a.md"]["moved"] == ["a/index.html"]
    for file in (tmp_path / ".steadypress").rglob("*.json"):  # as state/schema says
        VALIDATORS["site-index"].validate(json.loads(file.read_bytes()))
    assert json.loads((tmp_path / NEWEST_FILE).read_bytes())["total"] == 2

    # Removed: its redirects go with it, the other article's page stays.
    site.unpublish_batch([("content/a.md", None)])
    assert not (tmp_path / "a").exists() and not (tmp_path / "first").exists()
    assert (tmp_path / "second/index.html").is_file()
    assert site.disagreements(repair=False) == []
