"""The site readers see: feed, sitemap, tag pages, images, markdown, theme; all from real commits,
checked with the tools a reader's software would use (a feed parser, the sitemap XSD, an HTML5
parser), and incremental: one article's change rewrites only the files that list it."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import feedparser
import html5lib
import pytest
import xmlschema
from jsonschema import ValidationError

from steadypress.content import ContentSource
from steadypress.errors import PermanentError
from steadypress.gitio import Git
from steadypress.targets.base import Receipt
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site.index import (
    NEWEST_FILE,
    SUMMARY,
    article_files,
    month_file,
    tag_years_file,
    url_files,
    year_file,
)
from steadypress.targets.site.settings import SiteSettings
from steadypress.targets.site.sitemaps import (
    LISTINGS_SITEMAP,
    address_of,
    sitemap_count,
    sitemap_file,
)
from steadypress.targets.site.target import SiteTarget, build_site
from tests.helpers import Repo, article, site_folder
from tests.schema import VALIDATORS

# The sample blog the tests publish: their own copy, never the repository's content/ (yours).
SAMPLES = Path(__file__).resolve().parent / "fixtures" / "blog"
SITEMAP_XSD = xmlschema.XMLSchema(Path(__file__).parent / "fixtures" / "sitemap-0.9.xsd")
SITEINDEX_XSD = xmlschema.XMLSchema(Path(__file__).parent / "fixtures" / "siteindex-0.9.xsd")
SITEMAPS = "http://www.sitemaps.org/schemas/sitemap/0.9"
URL = "https://blog.example/notes/"


def site(repo: Repo, out: Path, **settings: Any) -> SiteTarget:
    chosen = replace(SiteSettings(url=URL), **settings)
    return build_site(
        "site",
        DirectorySiteFiles(out),
        chosen,
        content=ContentSource(Git(repo.root), "content"),
        default_url="",
    )


def publish_all(repo: Repo, target: SiteTarget) -> None:
    source = ContentSource(Git(repo.root), "content")
    head = repo.head()
    for path, blob in sorted(source.list_articles(head).items()):
        target.publish(source.read(path, blob, commit=head), None)


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """Where the site is written (beside the repository, not in it)."""
    return tmp_path / "site"


@pytest.fixture
def blog(repo: Repo) -> Repo:
    shutil.copytree(SAMPLES, repo.root / "content")
    repo.commit("the samples")
    return repo


def test_the_feed_reads_back_in_a_feed_reader(blog: Repo, out: Path) -> None:
    publish_all(blog, site(blog, out))
    feed = feedparser.parse((out / "feed.xml").read_bytes())
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    assert feed.feed.link == URL
    by_title = {entry.title: entry for entry in feed.entries}
    assert set(by_title) == {
        "Hello, steadypress", "When publishing fails", "Writing an article",
        "Images, code and tables",
    }  # fmt: skip
    images = by_title["Images, code and tables"]
    assert images.link == f"{URL}guides/images-and-code/"
    assert images.published_parsed[:3] == (2026, 11, 27)
    assert images.summary == "What an article can show, and how it looks here."
    assert {tag.term for tag in images.tags} == {"guide", "markdown"}
    (cover,) = [link for link in images.links if link.rel == "enclosure"]
    assert cover.type == "image/png" and cover.href.startswith(f"{URL}assets/")
    assert feed.entries[0].title == "Images, code and tables", "newest first"
    # The whole article, as a reader expects, its images resolved to where the site serves them.
    (content,) = images.content
    assert content.type == "text/html" and "<h2" in content.value
    assert "the same version twice changes nothing" in content.value
    assert f'src="{URL}assets/' in content.value


def publish_new(blog: Repo, target: SiteTarget, body: str) -> None:
    """Commit `content/new.md` with `body` and publish it alone."""
    blog.commit(**{"content/new.md": f"---\ntitle: New\ndate: 2026-12-01\n---\n\n{body}\n"})
    source = ContentSource(Git(blog.root), "content")
    head = blog.head()
    target.publish(source.read("content/new.md", blog.blob("content/new.md", head), commit=head),
                   None)  # fmt: skip


def test_the_feed_keeps_the_text_of_articles_published_earlier(blog: Repo, out: Path) -> None:
    """A publish renders only its own articles: the others' text in the feed is the feed's own,
    kept from the publish that wrote it."""
    target = site(blog, out)
    publish_all(blog, target)
    publish_new(blog, target, "New *words*.")
    feed = feedparser.parse((out / "feed.xml").read_bytes())
    by_title = {entry.title: entry.content[0].value for entry in feed.entries}
    assert "<em>words</em>" in by_title["New"]
    assert "version twice changes nothing" in by_title["Images, code and tables"], "kept"


def test_the_feed_carries_any_article_html_whole_in_cdata(blog: Repo, out: Path) -> None:
    """Articles' HTML goes into the feed unescaped, in CDATA (a third smaller than escaped):
    a body holding what would end a CDATA section, or look like markup of the feed, reads back
    as the HTML the page shows, in a reader and in the next publish's copy of the feed."""
    target = site(blog, out)
    publish_all(blog, target)
    tricky = "A `]]>` in code, ]]> in text, <b>raw &amp; bold</b>, and `</content>`."
    publish_new(blog, target, tricky)
    data = (out / "feed.xml").read_bytes()
    assert b"<![CDATA[" in data and b"&lt;p&gt;" not in data
    shown = (out / "new/index.html").read_text()
    (entry,) = [e for e in feedparser.parse(data).entries if e.title == "New"]
    assert not feedparser.parse(data).bozo
    html = entry.content[0].value
    assert (
        "<code>]]&gt;</code>" in html
        and "]]&gt; in text" in html
        and "<b>raw &amp; bold</b>" in html
    )
    assert html.strip() in shown
    # A later publish takes the others' text from the feed as it was: the same again.
    blog.commit(**{"content/later.md": "---\ntitle: Later\ndate: 2026-12-02\n---\n\nLater.\n"})
    source, head = ContentSource(Git(blog.root), "content"), blog.head()
    later = source.read("content/later.md", blog.blob("content/later.md", head), commit=head)
    target.publish(later, None)
    kept = feedparser.parse((out / "feed.xml").read_bytes()).entries
    assert next(e for e in kept if e.title == "New").content[0].value == html


def test_a_site_that_moves_to_a_new_address_keeps_the_text_in_its_feed(
    blog: Repo, out: Path
) -> None:
    """The feed's bodies are found by the page's place in the site, not its old URL: after
    `url` changes (a custom domain, say), a publish keeps the others' text under the new URL."""
    publish_all(blog, site(blog, out))
    publish_new(blog, site(blog, out, url="https://www.example.com/"), "New.")
    feed = feedparser.parse((out / "feed.xml").read_bytes())
    by_title = {entry.title: entry for entry in feed.entries}
    kept = by_title["Images, code and tables"]
    assert kept.link.startswith("https://www.example.com/")
    assert kept.id.startswith(URL), "the id stays: no reader shows it as new"
    assert "version twice changes nothing" in kept.content[0].value


def test_an_edit_updates_its_feed_entry(
    blog: Repo, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = site(blog, out)
    publish_all(blog, target)
    before = feedparser.parse((out / "feed.xml").read_bytes())
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2030-01-01T00:00:00Z")
    text = (blog.root / "content/hello-steadypress.md").read_text()
    blog.commit(
        "edit", **{"content/hello-steadypress.md": text + "\nOne more line.\n"},
    )  # fmt: skip
    publish_all(blog, target)
    after = feedparser.parse((out / "feed.xml").read_bytes())

    def updated(feed: feedparser.FeedParserDict) -> dict[str, str]:
        return {entry.title: entry.updated for entry in feed.entries}

    changed = {t for t in updated(after) if updated(after)[t] != updated(before)[t]}
    assert changed == {"Hello, steadypress"}
    assert after.feed.updated == updated(after)["Hello, steadypress"]


def test_the_sitemap_is_valid_and_lists_every_page(blog: Repo, out: Path) -> None:
    """sitemap.xml is a sitemap index (sitemaps.org), valid against its schema, listing every
    sitemap the site holds, each valid against the sitemap schema; together they list every
    page once."""
    publish_all(blog, site(blog, out))
    index = (out / "sitemap.xml").read_bytes()
    SITEINDEX_XSD.validate(index)
    listed = [loc.text or "" for loc in ET.fromstring(index).iter(f"{{{SITEMAPS}}}loc")]  # noqa: S314
    on_disk = {f"{URL}{p}" for p in site_folder(out) if p.startswith("sitemap-")}
    assert set(listed) == on_disk and len(listed) == len(on_disk)
    locations: list[str] = []
    for url in listed:
        document = (out / url.removeprefix(URL)).read_bytes()
        SITEMAP_XSD.validate(document)
        locations += [loc.text or "" for loc in ET.fromstring(document).iter(f"{{{SITEMAPS}}}loc")]  # noqa: S314
    assert len(locations) == len(set(locations))
    pages = {
        f"{URL}{p.removesuffix('index.html')}" for p in site_folder(out) if p.endswith("index.html")
    }
    assert set(locations) == pages
    assert f"{URL}guides/images-and-code/" in locations
    assert {URL, f"{URL}tags/guide/", f"{URL}archive/"} <= pages


def test_every_page_is_valid_html5(blog: Repo, out: Path) -> None:
    publish_all(blog, site(blog, out))
    pages = [path for path in site_folder(out) if path.endswith(".html")]
    # home, articles, tags (each lists all its articles: no page of its years), the tags
    # index, the archive, its year and its month, 404
    assert len(pages) == 1 + 4 + 5 + 1 + 3 + 1
    generated = {"404.html", "tags/index.html", "archive/index.html", "tags/guide/index.html"}
    assert generated <= set(pages)
    for page in pages:
        parser = html5lib.HTMLParser(strict=True)  # raises on the first parse error
        parser.parse((out / page).read_bytes())


def test_an_article_with_images_publishes_them_and_links_them(blog: Repo, out: Path) -> None:
    publish_all(blog, site(blog, out))
    page = (out / "guides/images-and-code/index.html").read_text()
    written = site_folder(out)
    assets = {path: data for path, data in written.items() if path.startswith("assets/")}
    originals = {
        name: (blog.root / "content/guides/images" / name).read_bytes()
        for name in ("cover.png", "lifecycle.png")
    }
    assert sorted(assets.values()) == sorted(originals.values())
    for path in assets:
        assert f'src="/notes/{path}"' in page
    assert 'alt="An article\'s life: pending, claimed, published"' in page
    assert 'class="cover"' in page and '<meta property="og:image" content="https://' in page


def test_a_missing_image_is_a_permanent_error_naming_the_file(repo: Repo, out: Path) -> None:
    repo.commit(**{"content/a.md": "---\ntitle: A\n---\n\n![x](images/gone.png)\n"})
    with pytest.raises(PermanentError, match=r"images/gone.png.*content/images/gone.png"):
        publish_all(repo, site(repo, out))


def test_markdown_the_way_authors_write_it(blog: Repo, out: Path) -> None:
    publish_all(blog, site(blog, out))
    page = (out / "guides/images-and-code/index.html").read_text()
    assert "<table>" in page and "<td>site</td>" in page
    assert '<li class="task-list-item"><input type="checkbox"' in page
    assert 'class="task-list-item-checkbox" checked="" disabled=""' in page
    assert 'class="footnote-ref"' in page and 'class="footnotes"' in page
    assert '<h2 id="code">Code</h2>' in page
    assert '<code class="language-python"><span class="k">def</span>' in page
    assert "min read" in page and 'href="/notes/tags/markdown/"' in page


def test_titles_and_tags_are_always_escaped(repo: Repo, out: Path) -> None:
    repo.commit(**{"content/x.md": '---\ntitle: "<script>alert(1)</script>"\n'
                   'tags: ["<b>bold</b>"]\ndescription: "a & b"\n---\n\nBody.\n'})  # fmt: skip
    publish_all(repo, site(repo, out))
    for name, data in site_folder(out).items():
        if name.endswith((".html", ".xml")):
            assert b"<script>alert" not in data and b"<b>bold" not in data, name
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "x/index.html").read_text()


def test_the_same_content_gives_the_same_bytes_in_any_order(blog: Repo, out: Path) -> None:
    source = ContentSource(Git(blog.root), "content")
    head = blog.head()
    articles = sorted(source.list_articles(head).items())
    first, second = out / "first", out / "second"
    for folder, order in ((first, articles), (second, articles[::-1])):
        target = site(blog, folder)
        for path, blob in order:
            target.publish(source.read(path, blob, commit=head), None)
    assert site_folder(first) == site_folder(second)


def test_publishing_one_article_rewrites_only_what_lists_it(blog: Repo, out: Path) -> None:
    """A new article: its page, the front page, the feed, the manifest, its tag pages (each
    of a few articles, which it lists all: no page of its years), the tags index (a new tag,
    and a count that changed), its month's page and the archive (a new month), the sitemap
    index and the sitemaps of these pages, and the page of the article that was the newest,
    whose link to a newer one appears; every other file keeps its inode and its bytes."""
    target = site(blog, out)
    publish_all(blog, target)

    def stamps() -> dict[str, tuple[int, int]]:
        return {
            str(p.relative_to(out)): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in out.rglob("*")
            if p.is_file() and not p.name.endswith(".lock")
        }

    before = stamps()
    new = "---\ntitle: New\ndate: 2026-12-05\ntags: [guide, fresh]\n---\n\nNew.\n"
    blog.commit(**{"content/new.md": new})
    publish_all(blog, target)
    after = stamps()
    touched = {path for path in after if before.get(path) != after[path]}
    month = "archive/2026/12/index.html"  # a new month
    pages = {
        "new/index.html", "index.html", "tags/index.html", month,
        "archive/2026/index.html",
        "tags/guide/index.html", "tags/fresh/index.html",
    }  # fmt: skip
    sitemaps = {path for path in touched if path.startswith("sitemap-")}
    index = {path for path in touched if path.startswith(".steadypress/")}
    # Not the sitemap index: it names the sitemaps, and none appeared or went; nor the
    # archive's index: it names the years, and 2026 was there.
    assert touched - sitemaps - index == {
        *pages, "feed.xml", "guides/images-and-code/index.html",
    }  # fmt: skip
    # The sitemaps of the pages that appeared (and the front page's, when its date moved).
    appeared = {"new/index.html", month, "tags/fresh/index.html"}
    count = sitemap_count(len(list(blog.root.glob("content/**/*.md"))))
    assert sitemaps - {LISTINGS_SITEMAP} == {sitemap_file(address_of(p), count) for p in appeared}
    # The index's files of the article, its month and its tags (a tag of a few articles keeps
    # its years' rows in its years file), the newest, and the summary: a tag appeared.
    assert index == {
        SUMMARY, NEWEST_FILE, article_files("content/new.md")[0], month_file("2026/12"),
        year_file("2026"), tag_years_file("tags/guide/index.html"),
        tag_years_file("tags/fresh/index.html"), url_files("new/index.html")[0],
    }  # fmt: skip
    newest_before = (out / "guides/images-and-code/index.html").read_text()
    assert '<a rel="next" href="/notes/new/"><span>Newer</span> New</a>' in newest_before

    # An article of tags the site has: the summary, which grows with the tags, stays as it was.
    before = stamps()
    newer = "---\ntitle: Newer\ndate: 2026-12-06\ntags: [guide, fresh]\n---\n\nNewer.\n"
    blog.commit(**{"content/newer.md": newer})
    publish_all(blog, target)
    after = stamps()
    index = {path for path in after if path.startswith(".steadypress/") and
             before.get(path) != after[path]}  # fmt: skip
    assert NEWEST_FILE in index and SUMMARY not in index
    assert "tags/index.html" not in {path for path in after if before.get(path) != after[path]}


def test_an_article_links_to_the_older_and_the_newer_one(blog: Repo, out: Path) -> None:
    """In date order; the oldest has no older one, the newest no newer one, and a removal
    links its two neighbours to each other."""
    target = site(blog, out)
    publish_all(blog, target)

    def links(page: str) -> tuple[str | None, str | None]:
        text = (out / page).read_text()
        found = [re.search(rf'rel="{rel}" href="([^"]+)"', text) for rel in ("prev", "next")]
        return (found[0].group(1) if found[0] else None, found[1].group(1) if found[1] else None)

    assert links("hello-steadypress/index.html") == (None, "/notes/guides/writing-articles/")
    assert links("guides/writing-articles/index.html") == (
        "/notes/hello-steadypress/", "/notes/guides/retries-and-dead-letters/",
    )  # fmt: skip
    assert links("guides/images-and-code/index.html") == (
        "/notes/guides/retries-and-dead-letters/",
        None,
    )
    target.unpublish("content/guides/retries-and-dead-letters.md", None)
    assert links("guides/writing-articles/index.html")[1] == "/notes/guides/images-and-code/"
    assert links("guides/images-and-code/index.html")[0] == "/notes/guides/writing-articles/"


def test_unpublishing_removes_the_page_its_entries_and_its_images(blog: Repo, out: Path) -> None:
    target = site(blog, out)
    publish_all(blog, target)
    target.unpublish("content/guides/images-and-code.md", None)
    written = site_folder(out)
    assert not any(path.startswith(("guides/images-and-code/", "assets/")) for path in written)
    assert "tags/markdown/index.html" not in written, "a tag nobody uses any more has no page"
    for shared in ("index.html", "feed.xml", "sitemap.xml", "tags/guide/index.html"):
        assert b"images-and-code" not in written[shared], shared


def test_a_theme_folder_overrides_templates_and_the_stylesheet(blog: Repo, out: Path) -> None:
    blog.write("theme/style.css", "body { color: rebeccapurple; }\n")
    blog.write(
        "theme/article.html",
        '{% extends "base.html" %}{% block main %}<p class="mine">{{ article.title }}</p>'
        "{% endblock %}\n",
    )
    blog.commit()  # the theme is read from git, like the articles
    publish_all(blog, site(blog, out / "out", theme="theme"))
    assert (out / "out/style.css").read_text() == "body { color: rebeccapurple; }\n"
    page = (out / "out/hello-steadypress/index.html").read_text()
    assert '<p class="mine">Hello, steadypress</p>' in page
    assert '<a class="home" href="/notes/">' in page, "the default base template still serves"


def test_the_default_stylesheet_has_a_dark_mode_and_highlighting(blog: Repo, out: Path) -> None:
    publish_all(blog, site(blog, out))
    css = (out / "style.css").read_text()
    assert "@media (prefers-color-scheme: dark)" in css
    assert "pre code .k" in css, "Pygments rules for the keyword class"


def test_a_batch_publishes_in_one_write_and_a_bad_article_fails_alone(
    repo: Repo, out: Path
) -> None:
    """Three articles at once: the good ones land together (the listings written once), the
    one with a missing image and the one whose URL is taken each get their own error."""
    head = repo.commit(**{
        "content/a.md": "---\ntitle: A\n---\n\nFine.\n",
        "content/b.md": "---\ntitle: B\n---\n\n![gone](gone.png)\n",
        "content/c.md": "---\ntitle: C\nslug: a\n---\n\nWants the URL of A.\n",
        "content/d.md": "---\ntitle: D\n---\n\nFine too.\n",
    })  # fmt: skip
    source = ContentSource(Git(repo.root), "content")
    articles = [source.read(path, blob, commit=head)
                for path, blob in sorted(source.list_articles(head).items())]  # fmt: skip
    target = site(repo, out)
    results = target.publish_batch([(article, None) for article in articles])
    assert [type(result).__name__ for result in results] == [
        "Receipt", "PermanentError", "PermanentError", "Receipt",
    ]  # fmt: skip
    assert "content/gone.png" in str(results[1]) and "content/a.md" in str(results[2])
    first, last = results[0], results[3]
    assert isinstance(first, Receipt) and isinstance(last, Receipt)
    assert target.verify_batch([(articles[0], first), (articles[3], last)]) == [None, None]
    index = (out / "index.html").read_text()
    assert ">A<" in index and ">D<" in index and ">B<" not in index and ">C<" not in index


def test_the_sites_index_follows_its_schema(blog: Repo, out: Path) -> None:
    """Every file under .steadypress/ (entries with images, a cover, tags and redirects, the
    counts, the summary), after publishes and a removal, is valid against
    state/schema/site-index.schema.json; and the schema refuses a path leaving the site."""
    blog.commit(**{"content/moved.md": article(
        "Moved", tags="[guide, Guide]", aliases="[/old/moved.html]", description="Was elsewhere."
    )})  # fmt: skip
    target = site(blog, out)
    publish_all(blog, target)
    target.unpublish("content/hello-steadypress.md", None)
    sections, fields = set(), set()
    for path in sorted((out / ".steadypress").rglob("*.json")):
        document = json.loads(path.read_bytes())
        VALIDATORS["site-index"].validate(document)
        sections.update(document)
        for entry in document.get("articles", {}).values():
            fields.update(entry)
    assert {"articles", "urls", "months", "years", "newest", "look"} <= sections
    assert {"assets", "cover", "aliases", "tags", "description"} <= fields
    shard = json.loads((out / article_files("content/moved.md")[0]).read_bytes())
    assert shard["articles"]["content/moved.md"]["aliases"] == ["old/moved.html"]
    shard["articles"]["content/moved.md"]["aliases"] = ["old/../../escape/index.html"]
    with pytest.raises(ValidationError):
        VALIDATORS["site-index"].validate(shard)
