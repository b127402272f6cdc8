"""The site target: stable URLs, escaped front matter, idempotent and deterministic output."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steadypress.content import Article
from steadypress.errors import PermanentError, TransientError
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site.target import SiteTarget
from tests.helpers import site_target


def make_site(root: Path) -> SiteTarget:
    return site_target(DirectorySiteFiles(root))


def post(path: str, title: str, *, blob: str = "b1", day: int = 1, **extra: Any) -> Article:
    return Article(
        path=path,
        blob=blob,
        title=title,
        body="Hello *world*.",
        date=datetime(2026, 1, day, tzinfo=UTC),
        **extra,
    )


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(path.relative_to(root)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file() and not path.name.endswith(".lock")
    }


def test_an_article_gets_a_page_at_the_url_of_its_path(tmp_path: Path) -> None:
    """content/guides/Hello World.md is served at /guides/hello-world/ and listed on the index."""
    site = make_site(tmp_path)
    receipt = site.publish(post("content/guides/Hello World.md", "Hello"), None)
    assert (receipt.url, receipt.id) == (
        "https://blog.example/guides/hello-world/",
        "guides/hello-world",
    )
    page = (tmp_path / "guides/hello-world/index.html").read_text()
    assert "<h1>Hello</h1>" in page and "<em>world</em>" in page
    assert 'href="/guides/hello-world/">Hello</a>' in (tmp_path / "index.html").read_text()


def test_front_matter_is_always_escaped(tmp_path: Path) -> None:
    """A title or tag is text, never markup."""
    site = make_site(tmp_path)
    site.publish(post("content/x.md", "<script>alert(1)</script>", tags=("<b>",)), None)
    page = (tmp_path / "x/index.html").read_text()
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "#&lt;b&gt;" in page
    assert "<script>" not in (tmp_path / "index.html").read_text()


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"description": "D", "tags": ("x", "y")},
        {"cover_image": "https://img.example/c.png", "updated": datetime(2026, 2, 1, tzinfo=UTC)},
        {"description": "", "tags": ()},
    ],
)
def test_publishing_the_same_version_twice_changes_nothing(
    tmp_path: Path, extra: dict[str, Any]
) -> None:
    """The second publish of one blob writes no file: same bytes, same modification times,
    whichever optional fields the article has."""
    site = make_site(tmp_path)
    site.publish(post("content/a.md", "A", **extra), None)
    before = snapshot(tmp_path)
    site.publish(post("content/a.md", "A", **extra), None)
    assert snapshot(tmp_path) == before


def test_the_same_articles_give_the_same_bytes_in_any_order(tmp_path: Path) -> None:
    """Determinism: publication order does not show in the output."""
    articles = [
        post(f"content/{n}.md", n.upper(), day=d) for n, d in [("a", 3), ("b", 1), ("c", 2)]
    ]
    make_site(tmp_path / "one").publish(articles[0], None)
    for article in articles:
        make_site(tmp_path / "one").publish(article, None)
    for article in reversed(articles):
        make_site(tmp_path / "two").publish(article, None)
    one = {name: data for name, (data, _) in snapshot(tmp_path / "one").items()}
    two = {name: data for name, (data, _) in snapshot(tmp_path / "two").items()}
    assert one == two
    index = one["index.html"].decode()
    assert index.index(">A<") < index.index(">C<") < index.index(">B<"), "newest first"


def test_an_edit_rewrites_the_page_and_the_index(tmp_path: Path) -> None:
    """A new version replaces the old one's page and index entry."""
    site = make_site(tmp_path)
    site.publish(post("content/a.md", "First"), None)
    site.publish(post("content/a.md", "Second", blob="b2"), None)
    assert "<h1>Second</h1>" in (tmp_path / "a/index.html").read_text()
    index = (tmp_path / "index.html").read_text()
    assert ">Second<" in index and ">First<" not in index


def test_a_new_slug_moves_the_page(tmp_path: Path) -> None:
    """Changing `slug` serves the article at the new URL and removes the old page."""
    site = make_site(tmp_path)
    site.publish(post("content/a.md", "A"), None)
    site.publish(post("content/a.md", "A", blob="b2", slug="renamed"), None)
    assert (tmp_path / "renamed/index.html").exists() and not (tmp_path / "a").exists()


def test_two_articles_cannot_share_a_url(tmp_path: Path) -> None:
    """The second article claiming a URL is a permanent error naming the owner; the first stays."""
    site = make_site(tmp_path)
    site.publish(post("content/hello-world.md", "One"), None)
    with pytest.raises(PermanentError, match=r"already used by content/hello-world\.md"):
        site.publish(post("content/Hello World.md", "Two"), None)
    assert "<h1>One</h1>" in (tmp_path / "hello-world/index.html").read_text()


def test_verify_notices_a_page_that_is_not_what_was_written(tmp_path: Path) -> None:
    """Verification reads back: a page changed behind our back is a transient failure."""
    site = make_site(tmp_path)
    article = post("content/a.md", "A")
    receipt = site.publish(article, None)
    site.verify(article, receipt)
    (tmp_path / "a/index.html").write_text("tampered")
    with pytest.raises(TransientError, match="does not hold what was written"):
        site.verify(article, receipt)


def test_an_unreadable_site_manifest_is_left_alone(tmp_path: Path) -> None:
    """A manifest we cannot read is never overwritten: it would forget every other page."""
    (tmp_path / ".steadypress-site.json").write_text("{broken")
    with pytest.raises(TransientError, match="cannot be read"):
        make_site(tmp_path).publish(post("content/a.md", "A"), None)
    assert (tmp_path / ".steadypress-site.json").read_text() == "{broken"
    assert not (tmp_path / "a").exists()


def test_the_local_site_is_readable_by_a_web_server_running_as_another_user(
    tmp_path: Path,
) -> None:
    """Every file written is world-readable (0644), not the 0600 a temporary file starts as."""
    make_site(tmp_path).publish(post("content/a.md", "A"), None)
    written = [path for path in tmp_path.rglob("*") if path.is_file() and path.suffix != ".lock"]
    assert written and {path.stat().st_mode & 0o777 for path in written} == {0o644}


def test_the_feed_carries_the_newest_twenty_articles(tmp_path: Path) -> None:
    """A feed reader polls for what is new: the 20 newest, newest first, however big the blog."""
    site = make_site(tmp_path)
    site.publish_batch(
        [(post(f"content/{n:02}.md", f"Post {n}", day=n + 1), None) for n in range(25)]
    )
    feed = (tmp_path / "feed.xml").read_text()
    assert feed.count("<entry>") == 20
    assert "Post 24" in feed and "Post 5<" in feed and "Post 4<" not in feed
    assert feed.index("Post 24") < feed.index("Post 23")


def test_a_code_block_has_one_background_and_the_front_page_no_second_site_title(
    tmp_path: Path,
) -> None:
    """Pygments' own block background is dropped (the theme's is the one), and the front
    page's heading is not the site title the header already shows."""
    site = make_site(tmp_path)
    site.publish(post("content/a.md", "A"), None)
    css = (tmp_path / "style.css").read_text()
    assert "pre code { background" not in css and "pre { background: var(--code)" in css
    index = (tmp_path / "index.html").read_text()
    assert "<h1>Articles</h1>" in index and "<h1>steadypress</h1>" not in index


def test_a_site_has_a_not_found_page_and_a_page_of_its_tags(tmp_path: Path) -> None:
    """GitHub Pages serves 404.html for an address with no page: it is the site's, linking
    home. tags/ lists every tag with how many articles it has; it goes with the last tag."""
    site = make_site(tmp_path)
    site.publish_batch([
        (post("content/a.md", "A", tags=("python", "web")), None),
        (post("content/b.md", "B", day=2, tags=("python",)), None),
    ])  # fmt: skip
    not_found = (tmp_path / "404.html").read_text()
    assert "<h1>Not found</h1>" in not_found and 'href="/"' in not_found
    assert 'content="steadypress"' in not_found
    tags = (tmp_path / "tags/index.html").read_text()
    assert 'href="/tags/python/">#python</a> <span class="count">2</span>' in tags
    assert 'href="/tags/web/">#web</a> <span class="count">1</span>' in tags
    assert tags.index("#python") < tags.index("#web")
    site.unpublish("content/a.md", None)
    site.unpublish("content/b.md", None)
    assert not (tmp_path / "tags/index.html").exists()
