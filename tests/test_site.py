"""The site target: stable URLs, escaped front matter, idempotent and deterministic output."""

import fcntl
import json
import os
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from steadypress.articles import Article
from steadypress.errors import PermanentError, TransientError
from steadypress.feeds import FEED_ENTRIES, FEED_TEXT_BYTES, FEED_TEXTS
from steadypress.targets.base import Refreshed
from steadypress.targets.site import DirectorySiteFiles, SiteWriter
from steadypress.targets.site.files import JOURNAL, LOCK, SET_ASIDE_JOURNAL, STAGED
from steadypress.targets.site.index import SiteIndex
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.target import SiteTarget
from steadypress.targets.site.verifying import SiteVerifier
from steadypress.theme import Theme
from tests.helpers import dying_after_renames, site_target


def make_site(root: Path) -> SiteTarget:
    return site_target(DirectorySiteFiles(root))


def post(
    path: str,
    title: str,
    *,
    blob: str = "b1",
    day: int = 1,
    body: str = "Hello *world*.",
    **extra: Any,
) -> Article:
    return Article(
        path=path,
        blob=blob,
        title=title,
        body=body,
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
    """Changing `slug` serves the article at the new URL, and the old one is a redirect page
    to it (`test_moved_pages.py`)."""
    site = make_site(tmp_path)
    site.publish(post("content/a.md", "A"), None)
    site.publish(post("content/a.md", "A", blob="b2", slug="renamed"), None)
    assert "<h1>A</h1>" in (tmp_path / "renamed/index.html").read_text()
    assert 'url=https://blog.example/renamed/"' in (tmp_path / "a/index.html").read_text()


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


def test_verify_reads_back_every_version_but_those_a_backend_confirmed(tmp_path: Path) -> None:
    """The verifier on its own: a version whose write a backend's answer confirmed (a commit
    GitHub answered) is not read back, once; every other is, page and index entry."""
    site = make_site(tmp_path)
    written = [post("content/a.md", "A"), post("content/b.md", "B", day=2)]
    work = [(article, site.publish(article, None)) for article in written]
    for name in ("a", "b"):
        (tmp_path / name / "index.html").write_text("tampered")
    verifier = SiteVerifier(
        DirectorySiteFiles(tmp_path),
        index=lambda files: SiteIndex(files, markers_read=set(), latin=False),
        slug_of=site.slug_of,
    )

    verifier.confirmed({"content/a.md": "b1"})
    first = verifier.verify(work)
    again = verifier.verify(work)

    assert first[0] is None and "/b/index.html does not hold" in str(first[1])
    assert [str(problem) for problem in again] == [
        "/a/index.html does not hold what was written",
        "/b/index.html does not hold what was written",
    ]


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


def test_a_strict_umask_still_leaves_the_site_world_readable(tmp_path: Path) -> None:
    """Under a umask of 077 (a hardened runner's) the files are set to 0644 after they are
    made; under the usual 022 they are made so and never changed."""
    before = os.umask(0o077)
    try:
        make_site(tmp_path).publish(post("content/a.md", "A"), None)
    finally:
        os.umask(before)
    written = [path for path in tmp_path.rglob("*") if path.is_file() and path.suffix != ".lock"]
    assert written and {path.stat().st_mode & 0o777 for path in written} == {0o644}


def test_a_symlinked_file_in_the_site_is_never_read_or_written_through(tmp_path: Path) -> None:
    """`_site/a/index.html -> /elsewhere`: publishing `a` is refused naming the symlink, and
    what it points to is neither read nor changed."""
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("secret")
    root = tmp_path / "site"
    (root / "a").mkdir(parents=True)
    (root / "a" / "index.html").symlink_to(elsewhere)
    with pytest.raises(PermanentError, match=r"symlink .*a/index\.html"):
        make_site(root).publish(post("content/a.md", "A"), None)
    assert elsewhere.read_text() == "secret"
    # Refused before anything was written: no journal for the next write to trip on.
    assert not (root / JOURNAL).exists() and not (root / "index.html").exists()
    make_site(root).publish(post("content/b.md", "B"), None)
    assert (root / "b" / "index.html").exists()

    def probe(files: SiteWriter) -> bool:
        return files.exists("a/index.html")

    assert DirectorySiteFiles(root).apply(probe) is False  # a symlink is not one of its files


def test_a_file_left_where_a_write_puts_its_temporary_is_replaced_not_followed(
    tmp_path: Path,
) -> None:
    """A write's temporary file is named by its process and a count, under the site's lock; a
    symlink of that name (left, or planted) is removed, and what it points to is untouched."""
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("secret")
    root = tmp_path / "site"
    root.mkdir()
    (root / f".tmp-{os.getpid()}-0").symlink_to(elsewhere)

    def change(files: SiteWriter) -> None:
        files.put("index.html", b"page", unread=True)

    DirectorySiteFiles(root).apply(change)
    assert elsewhere.read_text() == "secret"
    assert sorted(path.name for path in root.iterdir()) == ["index.html"]
    assert (root / "index.html").read_bytes() == b"page"


def test_a_folder_emptied_and_written_again_in_one_write_is_made_again(tmp_path: Path) -> None:
    """The local site remembers the folders it made during a write: one it removed (emptied)
    is made again for the next file put there."""

    def change(files: SiteWriter) -> None:
        files.put("a/index.html", b"one")
        files.remove("a/index.html")
        files.put("a/index.html", b"two")

    DirectorySiteFiles(tmp_path).apply(change)
    assert (tmp_path / "a" / "index.html").read_bytes() == b"two"


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


def test_the_feed_carries_whole_texts_within_its_byte_budget_and_summaries_after(
    tmp_path: Path,
) -> None:
    """Articles as people write them are 5 to 10 KB of HTML: 20 whole texts made the feed a
    quarter of a megabyte, rewritten by every publish. The FEED_TEXTS newest carry their text
    while the texts fit in FEED_TEXT_BYTES (the newest always); every entry keeps its
    summary."""
    words = " ".join(f"word{n}" for n in range(3_000))  # about 30 KB of HTML each
    site = make_site(tmp_path)
    site.publish_batch(
        [(post(f"content/{n:02}.md", f"Post {n}", day=n + 1, body=words), None) for n in range(6)]
    )
    feed = (tmp_path / "feed.xml").read_text()
    assert feed.count("<entry>") == 6 and feed.count("<summary>") == 6
    assert feed.count("<content ") == FEED_TEXT_BYTES // 30_000 == 3
    assert feed.index("<content ") < feed.index("Post 2<")  # the newest carry it
    assert len(feed.encode()) < FEED_TEXT_BYTES + 20_000


def test_the_feed_carries_the_whole_texts_of_the_ten_newest(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    site.publish_batch(
        [(post(f"content/{n:02}.md", f"Post {n}", day=n + 1), None) for n in range(25)]
    )
    feed = (tmp_path / "feed.xml").read_text()
    assert feed.count("<entry>") == FEED_ENTRIES and feed.count("<content ") == FEED_TEXTS == 10
    assert feed.rindex("<content ") < feed.index("Post 14<")  # the newest carry them


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
    assert "<h1>Latest articles</h1>" in index and "<h1>steadypress</h1>" not in index


def test_a_site_has_a_not_found_page_and_a_page_of_its_tags(tmp_path: Path) -> None:
    """GitHub Pages serves 404.html for an address with no page: it is the site's, linking
    home. tags/ lists every tag, without counts: a new article of a tag there already leaves
    it as it is. Every page's header links the archive and the tags, so tags/ is there as long
    as the archive is, tags or not; it goes with the last article."""
    site = make_site(tmp_path)
    site.publish_batch([
        (post("content/a.md", "A", tags=("python", "web")), None),
        (post("content/b.md", "B", day=2, tags=("python",)), None),
    ])  # fmt: skip
    not_found = (tmp_path / "404.html").read_text()
    assert "<h1>Not found</h1>" in not_found and 'href="/"' in not_found
    assert 'content="steadypress"' in not_found
    page = (tmp_path / "a/index.html").read_text()
    assert '<a href="/archive/">Archive</a> <a href="/tags/">Tags</a>' in page
    tags = (tmp_path / "tags/index.html").read_text()
    assert '<li><a class="tag" href="/tags/python/">#python</a></li>' in tags
    assert '<li><a class="tag" href="/tags/web/">#web</a></li>' in tags
    assert tags.index("#python") < tags.index("#web")
    before = (tmp_path / "tags/index.html").stat().st_mtime_ns
    site.publish(post("content/c.md", "C", day=3, tags=("web",)), None)
    assert (tmp_path / "tags/index.html").stat().st_mtime_ns == before, "not written again"
    site.unpublish("content/a.md", None)
    site.unpublish("content/b.md", None)
    assert "<p>No tags yet.</p>" not in (tmp_path / "tags/index.html").read_text()
    site.publish(post("content/c.md", "C", day=3, tags=()), None)
    assert "<p>No tags yet.</p>" in (tmp_path / "tags/index.html").read_text()
    site.unpublish("content/c.md", None)
    assert not (tmp_path / "tags/index.html").exists()


def dated(n: int, moment: datetime, **extra: Any) -> Article:
    return Article(path=f"content/p{n}.md", blob="b1", title=f"P{n}", body="Text.", date=moment,
                   **extra)  # fmt: skip


def titles(page: Path) -> list[str]:
    """The titles an article list shows, in order."""
    return re.findall(r'<a href="/p\d+/">(P\d+)</a>', page.read_text())


def test_listings_are_split_as_blogs_split_them(tmp_path: Path) -> None:
    """The front page shows the 20 newest and links to the archive; the archive lists the
    months with their counts; a month's page lists its articles; a tag's page shows its 20
    newest and links to a page per year, or, for a tag of 20 or fewer, lists them all and is
    its only page; each page lists newest first."""
    site = make_site(tmp_path)
    # 30 articles, one every ten days from 2025-11-05 to 2026-08-22.
    start = datetime(2025, 11, 5, tzinfo=UTC)
    site.publish_batch([
        (dated(n, start + timedelta(days=10 * n), tags=("all", "python") if n % 2 else ("all",)),
         None)
        for n in range(30)
    ])  # fmt: skip
    front = tmp_path / "index.html"
    assert titles(front) == [f"P{n}" for n in range(29, 9, -1)]
    assert '<a href="/archive/">All 30 articles, by month</a>' in front.read_text()
    archive = (tmp_path / "archive/index.html").read_text()
    assert re.findall(r'<a href="/archive/(\d+)/">', archive) == ["2026", "2025"]
    assert '<li><a href="/archive/2025/">2025</a></li>' in archive
    year = (tmp_path / "archive/2025/index.html").read_text()
    assert re.findall(r'<a href="/archive/2025/(\d+)/">', year) == ["12", "11"]
    assert '<a href="/archive/2025/12/">December 2025</a> <span class="count">3</span>' in year
    assert titles(tmp_path / "archive/2025/12/index.html") == ["P5", "P4", "P3"]
    assert sorted(p.parent.name for p in tmp_path.glob("archive/*/*/index.html")) == [
        "01", "02", "03", "04", "05", "06", "07", "08", "11", "12",
    ]  # fmt: skip
    tag = tmp_path / "tags/all/index.html"
    assert titles(tag) == [f"P{n}" for n in range(29, 9, -1)]
    assert '<a href="/tags/all/2025/">2025</a> <span class="count">6</span>' in tag.read_text()
    tag_year = (tmp_path / "tags/all/2025/index.html").read_text()
    assert titles(tmp_path / "tags/all/2025/index.html") == ["P5", "P4", "P3", "P2", "P1", "P0"]
    # A year of a tag links to the tag's page, not to its other years, whose counts change
    # with articles it does not list (it would show them stale).
    assert '<a href="/tags/all/">Every year of #all</a>' in tag_year
    assert "/tags/all/2026/" not in tag_year
    small = tmp_path / "tags/python/index.html"
    assert titles(small) == [f"P{n}" for n in range(29, 0, -2)]  # 15: all of them
    assert "/tags/python/2025/" not in small.read_text() and '"years"' not in small.read_text()
    assert not list(tmp_path.glob("tags/python/*/index.html"))


def test_a_removal_rewrites_the_pages_that_listed_it_and_an_empty_month_goes(
    tmp_path: Path,
) -> None:
    site = make_site(tmp_path)
    site.publish_batch([
        (dated(1, datetime(2026, 3, 1, tzinfo=UTC), tags=("go",)), None),
        (dated(2, datetime(2026, 4, 1, tzinfo=UTC), tags=("go",)), None),
        (dated(3, datetime(2025, 4, 1, tzinfo=UTC), tags=("go",)), None),
    ])  # fmt: skip
    site.unpublish("content/p1.md", None)
    site.unpublish("content/p3.md", None)
    assert not (tmp_path / "archive/2026/03/index.html").exists()
    assert titles(tmp_path / "tags/go/index.html") == ["P2"]
    assert "March" not in (tmp_path / "archive/2026/index.html").read_text()
    assert "/archive/2025/" not in (tmp_path / "archive/index.html").read_text()
    site.unpublish("content/p2.md", None)
    leftover = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.html")}
    assert leftover == {"index.html", "404.html"}, "an empty blog keeps its front page alone"


def test_a_new_date_moves_an_article_to_another_month(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    site.publish(dated(1, datetime(2026, 3, 1, tzinfo=UTC)), None)
    moved = replace(dated(1, datetime(2026, 5, 1, tzinfo=UTC)), blob="b2")
    site.publish(moved, None)
    assert not (tmp_path / "archive/2026/03/index.html").exists()
    assert titles(tmp_path / "archive/2026/05/index.html") == ["P1"]


def test_a_local_site_reads_nothing_ahead(tmp_path: Path) -> None:
    """Reading ahead saves requests to a remote backend; a folder has none to save, so the
    articles told ahead are not even read."""
    read: list[str] = []

    def articles() -> list[Article]:
        read.append("read")
        return [post("content/a.md", "A")]

    make_site(tmp_path).read_ahead(articles, [])
    make_site(tmp_path).read_ahead(articles, [("content/a.md", None)])
    assert read == []
    assert not any(tmp_path.iterdir()), "nothing written either"


@pytest.mark.parametrize("landed", [0, 1, 5, 20, 45, 70])
def test_a_write_killed_midway_is_finished_by_the_next_one(tmp_path: Path, landed: int) -> None:
    """A local write stopped after `landed` of its files (the process killed, or ^C) leaves
    nothing the next write cannot finish: the batch published again, as the executor retries
    what it did not record, leaves the site as an uninterrupted publish does, byte for byte.
    Past its first file (the journal) the write is finished from the journal."""
    first = [post(f"content/a{n:02}.md", f"A{n}", day=n + 1, tags=("t",)) for n in range(20)]
    then = [post(f"content/b{n:02}.md", f"B{n}", day=n + 1, tags=("t", "u")) for n in range(20)]
    whole, cut = make_site(tmp_path / "whole"), make_site(tmp_path / "cut")
    for site in (whole, cut):
        site.publish_batch([(article, None) for article in first])
    whole.publish_batch([(article, None) for article in then])
    with pytest.raises(KeyboardInterrupt), dying_after_renames(landed, KeyboardInterrupt):
        cut.publish_batch([(article, None) for article in then])
    assert (tmp_path / "cut" / JOURNAL).exists() == (landed > 0)
    make_site(tmp_path / "cut").publish_batch([(article, None) for article in then])
    files = {name: data for name, (data, _) in snapshot(tmp_path / "whole").items()}
    assert {name: data for name, (data, _) in snapshot(tmp_path / "cut").items()} == files


def test_a_write_stages_its_files_once_and_its_journal_only_names_them(tmp_path: Path) -> None:
    """Each byte of a write is written once: into a staged file, which the journal names and
    which is moved into place (a journal holding the bytes wrote them twice). Stopped before
    its journal, the write lands nothing: the next one removes what it staged."""
    articles = [post(f"content/a{n:02}.md", f"A{n}", day=n + 1) for n in range(5)]
    with pytest.raises(KeyboardInterrupt), dying_after_renames(1, KeyboardInterrupt):
        make_site(tmp_path).publish_batch([(article, None) for article in articles])
    journal = json.loads((tmp_path / JOURNAL).read_bytes())
    staged = {name for _path, name in journal["changes"] if name is not None}
    assert staged == {p.name for p in (tmp_path / STAGED).iterdir()}
    assert len(staged) > len(articles)  # the pages, listings, feed, sitemaps, index
    assert (tmp_path / JOURNAL).stat().st_size < 100 * len(staged)

    with pytest.raises(KeyboardInterrupt), dying_after_renames(0, KeyboardInterrupt):
        make_site(tmp_path / "cut").publish_batch([(article, None) for article in articles])
    assert not (tmp_path / "cut" / JOURNAL).exists() and (tmp_path / "cut" / STAGED).is_dir()
    make_site(tmp_path / "cut").publish(post("content/b.md", "B"), None)
    assert not (tmp_path / "cut" / STAGED).exists()
    assert not (tmp_path / "cut/a00").exists() and (tmp_path / "cut/b/index.html").is_file()


def test_a_journal_of_an_earlier_version_holding_the_bytes_is_landed(tmp_path: Path) -> None:
    make_site(tmp_path).publish(post("content/a.md", "A"), None)
    (tmp_path / JOURNAL).write_bytes(
        b'{"version": 1, "changes": [["old.html", 3], ["a/index.html", null]]}\nold'
    )
    make_site(tmp_path).publish(post("content/b.md", "B"), None)
    assert (tmp_path / "old.html").read_bytes() == b"old" and not (tmp_path / "a").exists()
    assert not (tmp_path / JOURNAL).exists()


def test_a_journal_that_cannot_be_read_is_set_aside_once_never_landed(tmp_path: Path) -> None:
    """A journal cut short or written by something else is never landed from a guess, nor
    tried again on every write: the write that meets it sets it aside, naming where, and
    publishes nothing; the next one goes on."""
    make_site(tmp_path).publish(post("content/a.md", "A"), None)
    before = snapshot(tmp_path)
    journal = tmp_path / JOURNAL
    journal.write_bytes(b'{"version": 1, "changes": [["index.html", 100]]}\nshort')
    with pytest.raises(TransientError, match=r"cannot be read: it names 100 bytes and holds 5"):
        make_site(tmp_path).publish(post("content/b.md", "B"), None)
    assert not journal.exists()
    assert (tmp_path / SET_ASIDE_JOURNAL).read_bytes().endswith(b"short")
    after = {k: v for k, v in snapshot(tmp_path).items() if k != SET_ASIDE_JOURNAL}
    assert after == before
    make_site(tmp_path).publish(post("content/b.md", "B"), None)
    assert (tmp_path / "b/index.html").exists()


def test_a_journal_that_cannot_be_replayed_is_set_aside(tmp_path: Path) -> None:
    """A whole journal naming a write the site cannot take (a file under a path that is a
    file): set aside with the error, not replayed on every write."""
    make_site(tmp_path).publish(post("content/a.md", "A"), None)
    (tmp_path / JOURNAL).write_bytes(
        b'{"version": 1, "changes": [["feed.xml/index.html", 1], ["x.html", 1]]}\nab'
    )
    with pytest.raises(TransientError, match="could not be replayed"):
        make_site(tmp_path).publish(post("content/b.md", "B"), None)
    assert (tmp_path / SET_ASIDE_JOURNAL).exists() and (tmp_path / "feed.xml").is_file()
    make_site(tmp_path).publish(post("content/b.md", "B"), None)
    assert (tmp_path / "b/index.html").exists()


def test_a_journal_that_is_a_symlink_is_not_followed(tmp_path: Path) -> None:
    """A journal planted as a symlink (to a file shaped like one) is set aside, the link
    itself: no write follows it anywhere, and what it points to is left as it is."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b'{"version": 1, "changes": [["index.html", 5]]}\nowned')
    root = tmp_path / "site"
    root.mkdir()
    (root / JOURNAL).symlink_to(elsewhere)
    with pytest.raises(TransientError, match=r"symlink .*steadypress-site\.journal"):
        make_site(root).publish(post("content/a.md", "A"), None)
    assert not (root / "index.html").exists() and (root / SET_ASIDE_JOURNAL).is_symlink()
    assert elsewhere.read_bytes().endswith(b"owned")


def test_a_write_asks_for_every_file_beside_the_pages_with_its_first_read(
    tmp_path: Path,
) -> None:
    """The files each write puts beside the pages (the stylesheet, the 404 page, `.nojekyll`,
    a custom domain's CNAME) are asked with its first read, in a publish and in a refresh of
    them alone: on GitHub one not asked is a request of its own (a CNAME was, each batch)."""
    asked: list[set[str]] = []

    class Recording(DirectorySiteFiles):
        def apply(self, change: Any, *, texts: Any = (), oids: Any = ()) -> Any:
            asked.append({*texts, *oids})
            return super().apply(change, texts=texts, oids=oids)

    site = SiteTarget(
        "site", Recording(tmp_path), settings=SiteSettings(cname="blog.example.com"),
        address=SiteAddress(url="https://blog.example/", base_url="/"), content_dir="content",
        theme=Theme(), assets=lambda _path, **_commit: None,
    )  # fmt: skip
    site.publish(post("content/a.md", "A"), None)
    assert site.refresh(["singles"]) is Refreshed.WRITTEN
    beside = {"style.css", "404.html", ".nojekyll", "CNAME"}
    assert [beside - files for files in asked] == [set(), set()]
    assert (tmp_path / "CNAME").read_text() == "blog.example.com\n"


def test_a_listings_refresh_run_again_after_a_conflict_writes_each_page_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every listing page written again, a few to a write; the first write, which lists them,
    run twice as after a conflict (its change is made again from the start): each page is
    still in one later write, the same pages as without the conflict."""
    monkeypatch.setattr("steadypress.targets.site.singles._LISTINGS_PER_WRITE", 2)
    asked: list[set[str]] = []

    class Conflicting(DirectorySiteFiles):
        def apply(self, change: Any, *, texts: Any = (), oids: Any = ()) -> Any:
            asked.append({*oids})
            if len(asked) == 1:  # the first write's change, made and lost to a rival
                super().apply(change, texts=texts, oids=oids)
            return super().apply(change, texts=texts, oids=oids)

    site = SiteTarget(
        "site", Conflicting(tmp_path), settings=SiteSettings(),
        address=SiteAddress(url="https://blog.example/", base_url="/"), content_dir="content",
        theme=Theme(), assets=lambda _path, **_commit: None,
    )  # fmt: skip
    articles = [
        replace(post(f"content/p{n}.md", f"P{n}", tags=("news",)),
                date=datetime(2024 + n % 2, 1 + n % 3, 10, tzinfo=UTC))
        for n in range(6)
    ]  # fmt: skip
    site.publish_batch([(article, None) for article in articles])
    asked.clear()
    assert site.refresh(["listings"]) is Refreshed.WRITTEN
    pages = [page for files in asked[1:] for page in sorted(files)]
    assert len(pages) == len(set(pages)) and all(len(files) <= 2 for files in asked[1:])
    expected = {
        "archive/2024/index.html",
        "archive/2025/index.html",
        "tags/news/index.html",
        *(f"archive/{2024 + n % 2}/{1 + n % 3:02d}/index.html" for n in range(6)),
    }
    assert set(pages) == expected


def test_a_markdown_link_to_a_script_is_dead_on_the_page_and_in_the_feed(tmp_path: Path) -> None:
    """The full-content feed carries the page's HTML, and a feed reader follows links too."""
    site = make_site(tmp_path)
    site.publish(post("content/a.md", "A", body="[click](javascript:alert(document.cookie))"), None)
    page = (tmp_path / "a" / "index.html").read_text()
    feed = (tmp_path / "feed.xml").read_text()
    assert '<a href="">click</a>' in page and '<a href="">click</a>' in feed
    assert "javascript" not in page and "javascript" not in feed


def test_a_local_sites_writer_locks_the_folder_and_leaves_no_lock_file_in_it(
    tmp_path: Path,
) -> None:
    """One writer at a time, by a lock on the folder itself: nothing of it is served."""
    root = tmp_path / "site"
    root.mkdir()
    (root / LOCK).write_text("")  # left by steadypress 0.2.0
    held = []

    def change(files: SiteWriter) -> None:
        other = os.open(root, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(True)
        finally:
            os.close(other)
        files.put("index.html", b"page", unread=True)

    DirectorySiteFiles(root).apply(change)

    assert held == [True]
    assert sorted(path.name for path in root.iterdir()) == ["index.html"]
    other = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released with the write
    finally:
        os.close(other)
