"""The site's index (`targets/site/index.py`): files that stay small however large the blog,
the neighbours found across months, and the move from an earlier layout's single manifest."""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import feedparser
import html5lib
import pytest
import xmlschema
from hypothesis import given
from hypothesis import strategies as st

from steadypress import shardtree
from steadypress.articles import Article
from steadypress.errors import PermanentError, TransientError
from steadypress.targets.site import DirectorySiteFiles, SiteWriter, indexfiles
from steadypress.targets.site import files as files_module
from steadypress.targets.site import index as index_module
from steadypress.targets.site import indexdocuments as indexdocuments_module
from steadypress.targets.site import listings as listings_module
from steadypress.targets.site import parts as parts_module
from steadypress.targets.site import writing as writing_module
from steadypress.targets.site.index import NEWEST_FILE, SUMMARY, YEARS, SiteIndex, year_file
from steadypress.targets.site.indexdates import IndexDates
from steadypress.targets.site.indexfiles import ARTICLES, URLS, part_at, tag_years_file
from steadypress.targets.site.indextags import IndexTags
from steadypress.targets.site.manifest import MANIFEST, Entry, Listed, page_path
from steadypress.targets.site.rendering import Rendered
from steadypress.targets.site.sitemaps import OLD_SITEMAP_PAGES
from steadypress.targets.site.summary import UNFILED_VERSION
from steadypress.targets.site.target import SiteTarget
from steadypress.targets.site.unfiled import UNFILED, unfiled_file
from steadypress.theme import Theme
from tests.helpers import (
    local_site_articles,
    old_site_manifest,
    site_folder,
    site_target,
    small_shard_tree,
    to_summary_before_version_6,
)
from tests.schema import VALIDATORS

FIXTURES = Path(__file__).parent / "fixtures"
SITEMAP_XSD = xmlschema.XMLSchema(FIXTURES / "sitemap-0.9.xsd")
SITEINDEX_XSD = xmlschema.XMLSchema(FIXTURES / "siteindex-0.9.xsd")
LOC = "{http://www.sitemaps.org/schemas/sitemap/0.9}loc"
START = datetime(2000, 1, 1, tzinfo=UTC)


def post(n: int, *, day: int | None = None, tags: tuple[str, ...] = ()) -> Article:
    """Article n, published n days after 2000-01-01 (or on `day`)."""
    moment = START + timedelta(days=n if day is None else day)
    return Article(path=f"content/p{n}.md", blob="b1", title=f"P{n}", body="Text.", date=moment,
                   tags=tags)  # fmt: skip


def entry(n: int, tags: tuple[str, ...]) -> Entry:
    """What an earlier layout's manifest recorded of article n (its page never rendered)."""
    moment = START + timedelta(days=n)
    return Entry(blob="b1", slug=f"p{n}", title=f"P{n}", date=moment, updated=moment,
                 description=None, summary="Text.", tags=tags, cover=None, assets=(),
                 sha256="0" * 64)  # fmt: skip


def links(site: Path, n: int) -> tuple[str | None, str | None]:
    page = (site / f"p{n}/index.html").read_text()
    found = []
    for rel in ("prev", "next"):
        start = page.find(f'rel="{rel}" href="')
        found.append(page[start:].split('"')[3] if start >= 0 else None)
    return found[0], found[1]


def stamps(site: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(site)): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in site.rglob("*")
        if p.is_file() and not p.name.endswith(".lock")
    }


def test_neighbours_are_found_across_months_and_beyond_the_newest(tmp_path: Path) -> None:
    """Forty articles a month apart: an article far from the newest links to the one of the
    month before and the month after; a removal there links those two to each other."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n, day=31 * n), None) for n in range(40)])
    assert links(tmp_path, 5) == ("/p4/", "/p6/")
    assert links(tmp_path, 0) == (None, "/p1/") and links(tmp_path, 39) == ("/p38/", None)
    site.unpublish("content/p5.md", None)
    assert links(tmp_path, 4) == ("/p3/", "/p6/")
    assert links(tmp_path, 6) == ("/p4/", "/p7/")
    site.publish(post(40, day=31 * 5 + 3), None)  # back into p5's month
    assert links(tmp_path, 40) == ("/p4/", "/p6/")
    assert links(tmp_path, 4)[1] == "/p40/" and links(tmp_path, 6)[0] == "/p40/"


def test_a_site_of_an_earlier_layout_moves_into_the_index_on_its_first_publish(
    tmp_path: Path,
) -> None:
    """Its manifest is read once: every article goes into the index, every listing page and
    sitemap is made again (the old `sitemaps/site.xml` goes), and the manifest is deleted;
    the next publish is an ordinary one."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n, tags=("go",)), None) for n in range(3)])
    entries = local_site_articles(tmp_path)
    for path in [*tmp_path.glob(".steadypress/**/*.json"), *tmp_path.glob("sitemap-*.xml")]:
        path.unlink()
    (tmp_path / "sitemaps").mkdir()
    (tmp_path / "sitemaps" / "site.xml").write_text("<urlset/>")
    (tmp_path / MANIFEST).write_bytes(
        old_site_manifest({path: Entry.from_json(fields) for path, fields in entries.items()})
    )
    site.publish(post(3, tags=("go",)), None)
    assert not (tmp_path / MANIFEST).exists() and not (tmp_path / OLD_SITEMAP_PAGES).exists()
    assert set(local_site_articles(tmp_path)) == {f"content/p{n}.md" for n in range(4)}
    assert (tmp_path / SUMMARY).exists() and links(tmp_path, 2) == ("/p1/", "/p3/")
    listed = _sitemap_locations(tmp_path)
    pages = {p.removesuffix("index.html") for p in map(str, _pages(tmp_path))}
    assert listed == {f"https://blog.example/{p}" for p in pages}
    before = stamps(tmp_path)
    site.publish(post(4, tags=("go",)), None)
    rewritten = {path for path, stamp in stamps(tmp_path).items() if before.get(path) != stamp}
    assert len(rewritten) <= 25, sorted(rewritten)


def _pages(site: Path) -> list[Path]:
    return [p.relative_to(site) for p in site.rglob("index.html")]


def _sitemap_locations(site: Path) -> set[str]:
    index = (site / "sitemap.xml").read_bytes()
    SITEINDEX_XSD.validate(index)
    found: set[str] = set()
    for sitemap in ET.fromstring(index).iter(LOC):  # noqa: S314 - written by the test's site
        document = (site / (sitemap.text or "").removeprefix("https://blog.example/")).read_bytes()
        SITEMAP_XSD.validate(document)
        locations = [loc.text or "" for loc in ET.fromstring(document).iter(LOC)]  # noqa: S314
        assert not found & set(locations), "a page in two sitemaps"
        found |= set(locations)
    return found


def seeded(folder: Path, size: int) -> SiteTarget:
    """A site of `size` articles, one a day from 2000-01-01 with a tag of fifty, as an earlier
    layout kept it (a manifest), moved into the index by a first publish."""
    entries = {f"content/p{n}.md": entry(n, (f"t{n % 50}",)) for n in range(size)}
    folder.mkdir()
    (folder / MANIFEST).write_bytes(old_site_manifest(entries))
    site = site_target(DirectorySiteFiles(folder))
    site.publish(post(size, tags=("t0",)), None)
    return site


def test_a_publish_at_ten_thousand_articles_rewrites_no_file_over_100_kb(tmp_path: Path) -> None:
    """Every file a new article makes the site write (its page, the listings, the feed, the
    sitemaps, the index's files) is small, and so is their number."""
    site = seeded(tmp_path / "site", 10_000)
    before = stamps(tmp_path / "site")
    site.publish(post(10_001, tags=("t7", "fresh")), None)
    after = stamps(tmp_path / "site")
    rewritten = {path for path, stamp in after.items() if before.get(path) != stamp}
    sizes = {path: (tmp_path / "site" / path).stat().st_size for path in rewritten}
    assert page_path("p10001") in rewritten and len(rewritten) <= 30, sorted(rewritten)
    assert max(sizes.values()) <= 100_000, max(sizes.items(), key=lambda item: item[1])


def test_an_alias_may_not_write_into_the_index_or_a_generated_folder(tmp_path: Path) -> None:
    """A redirect page is written where the author says, but never over the site's own files."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish(post(1), None)
    before = {p: p.read_bytes() for p in tmp_path.glob(".steadypress/**/*.json")}
    for alias in ("/.steadypress/summary.json", "/archive/2000/", "/sitemaps/00.xml"):
        with pytest.raises(PermanentError, match="which the site itself writes"):
            site.publish(replace(post(1), blob="b2", aliases=(alias,)), None)
    assert {p: p.read_bytes() for p in tmp_path.glob(".steadypress/**/*.json")} == before


BUILD = [(post(n, day=10 * n, tags=("odd",) if n % 2 else ("even",)), None) for n in range(30)]


def test_batches_that_are_not_final_leave_the_listings_to_the_end(tmp_path: Path) -> None:
    """A build in three batches renders the listing pages once, at its end (`finish`), and
    the site is byte for byte the one a single batch makes. Meanwhile the index names them
    stale."""
    site_target(DirectorySiteFiles(tmp_path / "once")).publish_batch(BUILD)
    batched = tmp_path / "batched"
    target = site_target(DirectorySiteFiles(batched))
    target.publish_batch(BUILD[:10], final=False)
    assert not (batched / "archive/index.html").exists(), "the listing pages wait"
    assert (batched / page_path("p3")).exists(), "the articles do not"
    summary = json.loads((batched / SUMMARY).read_bytes())
    VALIDATORS["site-index"].validate(summary)
    stale = set(summary["stale"])
    assert {"index.html", "archive/index.html", "tags/odd/index.html"} <= stale
    target.publish_batch(BUILD[10:20], final=False)
    target.publish_batch(BUILD[20:], final=False)
    target.finish()
    assert site_folder(batched) == site_folder(tmp_path / "once")
    assert "stale" not in json.loads((batched / SUMMARY).read_bytes())


def test_listings_a_dead_run_left_stale_are_rendered_by_the_next_publish(tmp_path: Path) -> None:
    """The run died after a batch that was not final: the next write of any run renders
    what it left, with its own."""
    site_target(DirectorySiteFiles(tmp_path / "once")).publish_batch(BUILD)
    site_target(DirectorySiteFiles(tmp_path / "died")).publish_batch(BUILD[:20], final=False)
    site_target(DirectorySiteFiles(tmp_path / "died")).publish_batch(BUILD[20:])
    assert site_folder(tmp_path / "died") == site_folder(tmp_path / "once")


def _unfiled(site: Path) -> list[str]:
    """The unfiled files the site's summary names (`unfiled.py`), each checked to be there,
    named by its bytes and valid against the schema."""
    summary = json.loads((site / SUMMARY).read_bytes())
    VALIDATORS["site-index"].validate(summary)
    names = summary.get("unfiled", [])
    assert summary["version"] == (UNFILED_VERSION if names else UNFILED_VERSION - 1)
    for name in names:
        data = (site / unfiled_file(name)).read_bytes()
        assert hashlib.sha256(data).hexdigest()[:16] == name
        VALIDATORS["site-index"].validate(json.loads(data))
    there = sorted(p.stem for p in (site / UNFILED).glob("*.json"))
    assert there == sorted(names), "no unfiled file the summary does not name"
    return list(names)


def test_batches_that_are_not_final_leave_the_entries_of_articles_and_urls_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch that is not final writes the entries of articles and URLs it changes into
    one unfiled file of its own, not into the files of articles and URLs (filed by a hash of
    the path, a batch by date rewrote most of them); a lookup finds them there, in this run
    and in another; the last write files them all, each file of articles and URLs written
    once in the whole build, and the site is the one a single batch makes."""
    site_target(DirectorySiteFiles(tmp_path / "once")).publish_batch(BUILD)
    written: list[str] = []
    for method in ("_stage", "_apply"):
        real = getattr(files_module._DirectoryWriter, method)

        def counted(writer: Any, changes: dict[str, bytes | None], _real: Any = real) -> Any:
            written.extend(path for path, data in changes.items() if data is not None)
            return _real(writer, changes)

        monkeypatch.setattr(files_module._DirectoryWriter, method, counted)
    batched = tmp_path / "batched"
    target = site_target(DirectorySiteFiles(batched))
    target.publish_batch(BUILD[:10], final=False)
    assert len(_unfiled(batched)) == 1
    assert not (batched / ARTICLES).exists() and not (batched / URLS).exists()
    target.publish_batch(BUILD[10:20], final=False)
    assert len(_unfiled(batched)) == 2
    elsewhere = SiteIndex(DirectorySiteFiles(batched).apply(lambda files: files))
    found = elsewhere.entry("content/p13.md")
    assert found is not None and found.slug == "p13" and found.tags == ("odd",)
    assert elsewhere.owners(page_path("p4")) == ["content/p4.md"]
    assert elsewhere.entry("content/p25.md") is None
    target.publish_batch(BUILD[20:], final=False)
    target.finish()
    assert _unfiled(batched) == [] and not (batched / UNFILED).exists()
    assert site_folder(batched) == site_folder(tmp_path / "once")
    shards = [path for path in written if path.startswith((f"{ARTICLES}/", f"{URLS}/"))]
    assert len(shards) > 30 and len(shards) == len(set(shards)), "each written once"


def test_unfiled_entries_are_filed_once_they_are_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `FILE_AT_MOST` entries of articles in the unfiled files, a batch that is not final
    files them all with its own (a run keeps them in memory), and the next begins anew."""
    monkeypatch.setattr(index_module, "FILE_AT_MOST", 15)
    site = tmp_path / "site"
    target = site_target(DirectorySiteFiles(site))
    target.publish_batch(BUILD[:10], final=False)
    assert len(_unfiled(site)) == 1
    target.publish_batch(BUILD[10:20], final=False)
    assert _unfiled(site) == []
    index = SiteIndex(DirectorySiteFiles(site).apply(lambda files: files))
    assert all(index.entry(f"content/p{n}.md") is not None for n in range(20))
    target.publish_batch(BUILD[20:], final=False)
    assert len(_unfiled(site)) == 1
    target.finish()
    assert _unfiled(site) == []
    site_target(DirectorySiteFiles(tmp_path / "once")).publish_batch(BUILD)
    assert site_folder(site) == site_folder(tmp_path / "once")


def test_filing_holds_one_file_of_articles_or_urls_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's last write (here `finish`, which looks nothing up) files every unfiled entry
    a file at a time, each written out before the next is read: at 10^5 articles the files
    of articles and URLs held together were the whole index in memory."""
    held: list[int] = []
    real = indexdocuments_module.IndexDocuments.write_out

    def counted(documents: indexdocuments_module.IndexDocuments, name: str) -> None:
        held.append(sum(indexfiles.shard_of_file(file) is not None for file in documents.documents))
        real(documents, name)

    monkeypatch.setattr(indexdocuments_module.IndexDocuments, "write_out", counted)
    site = tmp_path / "site"
    target = site_target(DirectorySiteFiles(site))
    target.publish_batch(BUILD[:20], final=False)
    target.publish_batch(BUILD[20:], final=False)
    assert held == [], "nothing filed yet"
    target.finish()
    # The file being written out, and the next, read to learn that it is another.
    assert len(held) > 30 and max(held) <= 2, held
    index = SiteIndex(DirectorySiteFiles(site).apply(lambda files: files))
    assert all(index.entry(f"content/p{n}.md") is not None for n in range(30))


def test_a_file_of_articles_a_run_parsed_is_not_parsed_again_to_learn_a_key_is_not_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each new article is looked up in its file of articles and of URLs: a file the run
    parsed before, with the same bytes, says which keys it holds without being parsed again;
    one whose bytes changed (filed into) is parsed anew, and an entry there is still found.
    Sixteen files of each, for thirty articles to meet in them."""
    for layout in ("ARTICLE_SHARDS", "URL_SHARDS"):
        monkeypatch.setattr(indexfiles, layout, shardtree.Layout(base=1, split_above=64))
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:10])
    parsed: list[str] = []
    real = indexdocuments_module.IndexDocuments.parse

    def counted(name: str, raw: bytes, key: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if indexfiles.shard_of_file(name) is not None:
            parsed.append(name)
        return real(name, raw, key, *args, **kwargs)

    monkeypatch.setattr(indexdocuments_module.IndexDocuments, "parse", staticmethod(counted))
    target = site_target(DirectorySiteFiles(site))
    target.publish_batch(BUILD[10:20], final=False)
    first = set(parsed)
    assert first, "the batch looked its articles up"
    parsed.clear()
    target.publish_batch(BUILD[20:], final=False)
    assert not first & set(parsed), "none parsed again: the files are as they were"
    target.finish()
    index = SiteIndex(DirectorySiteFiles(site).apply(lambda files: files))
    assert all(index.entry(f"content/p{n}.md") is not None for n in range(30))
    assert index.owners(page_path("p25")) == ["content/p25.md"]


def test_an_entry_left_unfiled_is_found_again_within_the_write_that_left_it(
    tmp_path: Path,
) -> None:
    """After a write's flush has put its entries in an unfiled file, a lookup later in that
    write finds them there (a message about one would name that file)."""
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:3])

    def change(files: SiteWriter) -> Entry | None:
        index = SiteIndex(files)
        index.file_later()
        index.put("content/p5.md", entry(5, ("odd",)))
        index.flush()
        return index.entry("content/p5.md")

    found = DirectorySiteFiles(site).apply(change)
    assert found is not None and found.slug == "p5"
    assert len(_unfiled(site)) == 1


def test_an_article_removed_while_its_entry_is_unfiled_leaves_the_site(tmp_path: Path) -> None:
    """A removal in the middle of a run finds the article's entry in the unfiled files: its
    page goes, and its write files the rest."""
    site = tmp_path / "site"
    target = site_target(DirectorySiteFiles(site))
    target.publish_batch(BUILD[:10], final=False)
    target.unpublish_batch([("content/p3.md", None)])
    assert not (site / page_path("p3")).exists() and (site / page_path("p4")).exists()
    assert _unfiled(site) == []
    index = SiteIndex(DirectorySiteFiles(site).apply(lambda files: files))
    assert index.entry("content/p3.md") is None and index.owners(page_path("p3")) == []
    assert index.entry("content/p4.md") is not None


@pytest.mark.parametrize("damage", ["missing", "garbage", "a path that is not"])
def test_an_unfiled_file_that_cannot_be_read_stops_the_publish(tmp_path: Path, damage: str) -> None:
    """An unfiled file the summary names that is gone or does not parse stops the publish,
    naming it, and nothing is written: filing from a guess would lose entries."""
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:10], final=False)
    (name,) = _unfiled(site)
    file = site / unfiled_file(name)
    if damage == "missing":
        file.unlink()
    elif damage == "garbage":
        file.write_text("{not json")
    else:
        file.write_text(json.dumps({"version": 4, "articles": {}, "urls": {"x": "content/a.md"}}))
    before = site_folder(site)
    with pytest.raises(TransientError, match=re.escape(unfiled_file(name))):
        site_target(DirectorySiteFiles(site)).publish_batch(BUILD[10:20])
    assert site_folder(site) == before


def _sitemap_files(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in site.glob("sitemap*/**/*.xml")} | {
        "sitemap.xml": (site / "sitemap.xml").read_bytes()
    }


def test_batches_that_are_not_final_leave_the_sitemaps_to_the_end(tmp_path: Path) -> None:
    """A first build in many batches writes each sitemap once, at its end: a batch of new
    articles would touch every sitemap, and their number grows with the blog (quadratic).
    Meanwhile the index says what the sitemaps lack: the months of the articles waiting."""
    site_target(DirectorySiteFiles(tmp_path / "once")).publish_batch(BUILD)
    site_target(DirectorySiteFiles(tmp_path / "twenty")).publish_batch(BUILD[:20])
    batched = tmp_path / "batched"
    target = site_target(DirectorySiteFiles(batched))
    target.publish_batch(BUILD[:10], final=False)
    assert not (batched / "sitemap.xml").exists(), "the sitemaps wait"
    target.publish_batch(BUILD[10:20])  # a final batch writes what the run carried
    written = _sitemap_files(batched)
    assert written == _sitemap_files(tmp_path / "twenty")
    target.publish_batch(BUILD[20:25], final=False)
    target.publish_batch(BUILD[25:], final=False)
    assert _sitemap_files(batched) == written, "not written by a batch that is not final"
    summary = json.loads((batched / SUMMARY).read_bytes())
    VALIDATORS["site-index"].validate(summary)
    days = [START + timedelta(days=10 * n) for n in range(20, 30)]
    behind = summary["sitemaps_behind"]
    assert behind == {
        "articles": 20,
        "months": sorted({f"{day.year:04d}/{day.month:02d}" for day in days}),
        "writer": behind["writer"],  # the run's own token
    }
    target.finish()
    assert site_folder(batched) == site_folder(tmp_path / "once")
    assert "sitemaps_behind" not in json.loads((batched / SUMMARY).read_bytes())


def test_sitemaps_another_executor_left_behind_are_caught_up_by_this_one(tmp_path: Path) -> None:
    """Two runs, batches between each other's: each lists what the other left (from the
    months the index names) and the end is the site a single batch makes."""
    site_target(DirectorySiteFiles(tmp_path / "once")).publish_batch(BUILD)
    one = site_target(DirectorySiteFiles(tmp_path / "both"))
    other = site_target(DirectorySiteFiles(tmp_path / "both"))
    one.publish_batch(BUILD[:10], final=False)
    other.publish_batch(BUILD[10:20], final=False)
    one.publish_batch(BUILD[20:])
    assert site_folder(tmp_path / "both") == site_folder(tmp_path / "once")
    other.finish()  # its carry was written by the other: nothing left to do
    assert site_folder(tmp_path / "both") == site_folder(tmp_path / "once")


def test_a_batch_that_takes_a_page_out_writes_its_sitemaps_at_once(tmp_path: Path) -> None:
    """A page taken out of the sitemaps could not be found again by a run that died before
    writing them (the index no longer knows it): such a batch writes them, with what the
    run carried."""
    site = tmp_path / "site"
    target = site_target(DirectorySiteFiles(site))
    target.publish_batch(BUILD[:10])
    target.publish_batch(BUILD[10:20], final=False)
    moved = replace(post(3, day=30, tags=("odd",)), blob="b2", slug="moved")
    target.publish_batch([(moved, None)], final=False)
    listed = _sitemap_locations(site)
    assert "https://blog.example/moved/" in listed and "https://blog.example/p3/" not in listed
    assert "https://blog.example/p15/" in listed, "what the run carried is written too"
    assert "sitemaps_behind" not in json.loads((site / SUMMARY).read_bytes())


@pytest.mark.parametrize("months", [["../../x"], ["2000/1"], "2000/01", [1]])
def test_a_summary_naming_a_month_that_is_not_one_is_refused(tmp_path: Path, months: Any) -> None:
    """The summary is on a branch anyone with push access can edit: the months it names
    become file names, so anything but YYYY/MM stops the publish, writing nothing."""
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:5])
    summary = json.loads((site / SUMMARY).read_bytes())
    broken = {**summary, "sitemaps_behind": {"articles": 5, "months": months}}
    (site / SUMMARY).write_text(json.dumps(broken))
    before = site_folder(site)
    with pytest.raises(TransientError, match=r"summary.json in the site cannot be read"):
        site_target(DirectorySiteFiles(site)).publish(post(6), None)
    assert site_folder(site) == before


@pytest.mark.parametrize(
    "tags",
    [{"tags/../index.html": ["x"]}, {"CNAME": ["x"]}, {"tags/x/index.html": []},
     {"tags/x/index.html": [""]}, {"tags/a/b/index.html": ["a"]}],
)  # fmt: skip
def test_a_summary_naming_a_tag_page_that_is_not_one_is_refused(
    tmp_path: Path, tags: dict[str, list[str]]
) -> None:
    """The tag pages the summary names are pages and index files a later write rewrites or
    removes: anything but a page of `tags/` with its spellings stops the publish, writing
    nothing."""
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:5])
    summary = json.loads((site / SUMMARY).read_bytes())
    (site / SUMMARY).write_text(json.dumps({**summary, "tags": {**summary["tags"], **tags}}))
    before = site_folder(site)
    with pytest.raises(TransientError, match=r"summary.json in the site cannot be read"):
        site_target(DirectorySiteFiles(site)).publish(post(6), None)
    assert site_folder(site) == before


@pytest.mark.parametrize("absent", [["index.html"], ["sitemaps/../feed.xml"], ["sitemap.xml"]])
def test_a_summary_naming_an_absent_sitemap_that_is_not_one_is_refused(
    tmp_path: Path, absent: list[str]
) -> None:
    """The sitemaps the summary says are not there decide what the index names: anything but
    one of the site's sitemaps stops the publish, writing nothing."""
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:5])
    summary = json.loads((site / SUMMARY).read_bytes())
    summary["sitemaps"]["absent"] = absent
    (site / SUMMARY).write_text(json.dumps(summary))
    before = site_folder(site)
    with pytest.raises(TransientError, match=r"summary.json in the site cannot be read"):
        site_target(DirectorySiteFiles(site)).publish(post(6), None)
    assert site_folder(site) == before


def test_a_summary_before_version_6_moves_its_counts_to_the_tags_files_on_the_next_publish(
    tmp_path: Path,
) -> None:
    """A summary of version 5 counted each tag and held the newest articles, so every article
    rewrote it whole, its size growing with the tags. The next publish writes it as version 7
    (the tags and their spellings alone), the count and the newest in `newest.json`, and the
    counts of a tag spelt two ways in the tag's `years.json`; what the site shows is then what
    this version builds from the same articles, and a later article of a tag the site has
    leaves the summary as it is."""
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    build = [
        post(0, tags=("Python",)), post(1, tags=("python",)), post(2, tags=("go",)),
        post(3, tags=("python", "go")),
    ]  # fmt: skip
    site_target(DirectorySiteFiles(site)).publish_batch([(a, None) for a in build])
    to_summary_before_version_6(site)
    summary = json.loads((site / SUMMARY).read_bytes())
    assert summary["version"] == 5 and summary["total"] == 4
    assert summary["tags"]["tags/python/index.html"] == {
        "count": 3, "names": {"Python": 1, "python": 2}
    }  # fmt: skip
    for path in site.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))

    site_target(DirectorySiteFiles(site)).publish(post(4, tags=("go",)), None)
    summary = json.loads((site / SUMMARY).read_bytes())
    assert summary["version"] == 7 and "newest" not in summary and "total" not in summary
    assert summary["tags"] == {
        "tags/python/index.html": ["Python", "python"], "tags/go/index.html": ["go"]
    }  # fmt: skip
    python = json.loads((site / tag_years_file("tags/python/index.html")).read_bytes())
    assert python["names"] == {"Python": 1, "python": 2}
    assert "names" not in json.loads((site / tag_years_file("tags/go/index.html")).read_bytes())
    assert json.loads((site / NEWEST_FILE).read_bytes())["total"] == 5
    for path in site.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))

    written = (site / SUMMARY).stat().st_mtime_ns
    site_target(DirectorySiteFiles(site)).publish(post(5, tags=("python",)), None)
    assert (site / SUMMARY).stat().st_mtime_ns == written, "no tag or spelling came or went"
    site_target(DirectorySiteFiles(site)).unpublish("content/p0.md", None)  # `Python` goes
    assert json.loads((site / SUMMARY).read_bytes())["tags"]["tags/python/index.html"] == ["python"]
    python = json.loads((site / tag_years_file("tags/python/index.html")).read_bytes())
    assert "names" not in python and sum(python["years"].values()) == 3

    site_target(DirectorySiteFiles(fresh)).publish_batch(
        [(a, None) for a in [*build[1:], post(4, tags=("go",)), post(5, tags=("python",))]]
    )
    assert _not_index(site) == _not_index(fresh)
    assert "<title>#python " in (site / "tags/python/index.html").read_text()


def test_no_file_of_the_index_keeps_the_summary_of_a_text_and_the_feed_shows_it(
    tmp_path: Path,
) -> None:
    """The summary made of an article's text is what the feed shows of the newest: made from
    the text the feed renders again, it is kept neither in the article's own entry (half of
    each entry, in a file every push rewrites) nor in the newest rows (60% of `newest.json`,
    which every push rewrites), and a later publish's feed still shows it."""
    long_text = replace(post(1), body="Words of the article. " * 30)
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish(long_text, None)
    (entry,) = local_site_articles(tmp_path).values()
    assert "summary" not in entry and "description" not in entry
    (_path, row), *_ = json.loads((tmp_path / NEWEST_FILE).read_bytes())["newest"]
    assert "summary" not in row and "body" in row
    site_target(DirectorySiteFiles(tmp_path)).publish(post(2), None)  # another process
    feed = feedparser.parse((tmp_path / "feed.xml").read_bytes())
    assert feed.entries[1].summary.startswith("Words of the article.")


def test_a_version_whose_page_cannot_be_written_is_put_back_with_its_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new version whose page cannot be written fails alone, and the version the site shows
    is put back in the index as it was: the feed still shows the summary of its text."""
    first = replace(post(1), body="The first words. " * 30)
    site_target(DirectorySiteFiles(tmp_path)).publish(first, None)
    before = json.loads((tmp_path / NEWEST_FILE).read_bytes())["newest"]
    real_write = writing_module._write_article

    def page_refused(files: SiteWriter, rendered: Rendered) -> PermanentError | None:
        if rendered.entry.title == "P1, again":
            return PermanentError("p1/index.html could not be written: No space left on device")
        return real_write(files, rendered)

    monkeypatch.setattr(writing_module, "_write_article", page_refused)
    again = replace(first, blob="b2", title="P1, again", body="Other words. " * 30)
    (refused,) = site_target(DirectorySiteFiles(tmp_path)).publish_batch([(again, None)])
    assert isinstance(refused, PermanentError)
    after = json.loads((tmp_path / NEWEST_FILE).read_bytes())["newest"]
    assert [row["slug"] for _path, row in after] == [row["slug"] for _path, row in before]
    feed = feedparser.parse((tmp_path / "feed.xml").read_bytes())
    assert feed.entries[0].title == "P1" and feed.entries[0].summary.startswith("The first words.")


def test_the_tags_count_a_tag_by_its_years_and_its_spellings_where_there_are_two(
    tmp_path: Path,
) -> None:
    """`IndexTags` on plain entries: a tag spelt one way is counted by its years alone; spelt
    two ways, its `years.json` counts each spelling and the page is named by the first; as
    its articles go, the counts and the name follow, and the name a tag had when its last
    article went is kept for the files named after it."""
    go = "tags/go/index.html"

    def change(*puts: tuple[str, Entry | None]) -> IndexTags:
        def write(writer: SiteWriter) -> IndexTags:
            index = SiteIndex(writer)
            for path, version in puts:
                index.put(path, version)
            index.flush()
            return index.tags

        return DirectorySiteFiles(tmp_path).apply(write)

    change(("content/p1.md", entry(1, ("go",))), ("content/p400.md", entry(400, ("go", "py"))))
    tags = change()
    assert tags.pages == [go, "tags/py/index.html"] and tags.name(go) == "go"
    assert tags.years(go) == {2000: 1, 2001: 1} and tags.spellings(go) == {"go": 2}
    assert "names" not in json.loads((tmp_path / tag_years_file(go)).read_bytes())

    change(("content/p2.md", entry(2, ("Go",))))
    tags = change()
    assert tags.spellings(go) == {"Go": 1, "go": 2} and tags.name(go) == "Go"
    assert tags.count(go) == 3 and tags.pages_of("Go") == {go}

    tags = change(*((f"content/p{n}.md", None) for n in (1, 2, 400)))
    assert not tags.has(go) and tags.gone_name(go) == "go" and tags.pages == []
    assert not (tmp_path / tag_years_file(go)).exists()


def test_a_tag_spelt_on_its_old_page_leaves_it_within_the_write_that_removes_its_last_row(
    tmp_path: Path,
) -> None:
    """A tag written before `transliterate` is on its page in its own script; turned on, its
    new articles go to the page in Latin letters. When the last article on the old page goes,
    the spelling is on the new page alone for the rest of that same write, not as the summary
    was when the write began."""
    old, new = "tags/новости/index.html", "tags/novosti/index.html"

    def change(*puts: tuple[str, Entry | None], latin: bool) -> set[str]:
        def write(writer: SiteWriter) -> set[str]:
            index = SiteIndex(writer, latin=latin)
            index.tags.pages_of("новости")  # asked before the write changes the tags
            for path, version in puts:
                index.put(path, version)
            pages = index.tags.pages_of("новости")
            index.flush()
            return pages

        return DirectorySiteFiles(tmp_path).apply(write)

    assert change(("content/p1.md", entry(1, ("новости",))), latin=False) == {old}
    assert change(("content/p2.md", entry(2, ("новости",))), latin=True) == {old, new}
    assert change(("content/p1.md", None), latin=True) == {new}


def test_the_dates_count_months_and_years_and_find_neighbours_across_them(
    tmp_path: Path,
) -> None:
    """`IndexDates` on plain entries: the years and months that have articles, counted as they
    come and go, and an article's neighbours found across empty months and years, beyond the
    newest rows."""
    days = {1: 0, 2: 1, 3: 40, 4: 800, **{n: 900 + n for n in range(5, 30)}}

    def change(*puts: tuple[int, bool]) -> IndexDates:
        def write(writer: SiteWriter) -> IndexDates:
            index = SiteIndex(writer)
            for n, present in puts:
                index.put(f"content/p{n}.md", entry(days[n], ()) if present else None)
            index.flush()
            return index.dates

        return DirectorySiteFiles(tmp_path).apply(write)

    dates = change(*((n, True) for n in days))
    assert dates.years == ["2000", "2002"]
    assert dates.months("2000") == {"2000/01": 2, "2000/02": 1}
    p3 = entry(days[3], ()).listed
    assert dates.nav("content/p3.md", p3) == (("p1", "P1"), ("p800", "P800"))
    assert [path for path, _row in dates.beside("content/p4.md", entry(800, ()).listed)] == [
        "content/p3.md",
        "content/p5.md",
    ]

    dates = change((3, False), (4, False))
    assert dates.years == ["2000", "2002"] and dates.months("2000") == {"2000/01": 2}
    assert dates.nav("content/p2.md", entry(1, ()).listed)[1] == ("p905", "P905")
    assert list(dates.months_from("2002/12", newer=False))[-1] == "2000/01"
    dates = change(*((n, False) for n in range(5, 30)))
    assert dates.years == ["2000"]
    assert json.loads((tmp_path / YEARS).read_bytes())["years"] == ["2000"]


@pytest.mark.parametrize(
    ("file", "broken"),
    [
        (NEWEST_FILE, None),
        (NEWEST_FILE, b'{"version": 6, "total": 5}'),
        (tag_years_file("tags/python/index.html"), b'{"version": 4, "years": {"2000": 2}, '
                                                    b'"names": {"python": 2}}'),
    ],
)  # fmt: skip
def test_a_summary_without_its_newest_or_a_tag_without_its_spellings_is_refused(
    tmp_path: Path, file: str, broken: bytes | None
) -> None:
    """The summary of version 6 has its count and newest in `newest.json`, and a tag spelt
    two ways counts them in its `years.json`: one missing or broken stops the publish, naming
    the file, and nothing is written."""
    site = tmp_path / "site"
    build = [post(0, tags=("Python",)), post(1, tags=("python",))]
    site_target(DirectorySiteFiles(site)).publish_batch([(a, None) for a in build])
    if broken is None:
        (site / file).unlink()
    else:
        (site / file).write_bytes(broken)
    before = site_folder(site)
    name = SUMMARY if broken is None else file
    with pytest.raises(TransientError, match=rf"{re.escape(name)} in the site cannot be read"):
        site_target(DirectorySiteFiles(site)).publish(post(2, tags=("python",)), None)
    assert site_folder(site) == before


def test_a_stale_entry_that_is_not_a_listing_page_is_refused(tmp_path: Path) -> None:
    """The index is on a branch anyone with push access can edit; a page it names as stale is
    written or removed, so one that is not a listing page stops the publish, deleting
    nothing."""
    site = tmp_path / "site"
    site_target(DirectorySiteFiles(site)).publish_batch(BUILD[:5])
    (site / "CNAME").write_text("blog.example\n")
    summary = json.loads((site / SUMMARY).read_bytes())
    (site / SUMMARY).write_text(json.dumps({**summary, "stale": ["CNAME"]}))
    with pytest.raises(TransientError, match="'CNAME' is not a listing page"):
        site_target(DirectorySiteFiles(site)).publish(post(6), None)
    assert (site / "CNAME").read_text() == "blog.example\n"


def _hrefs(page: Path) -> set[str]:
    return set(re.findall(r'href="([^"]+)"', page.read_text()))


def _as_version_3(site: Path) -> None:
    """The index as steadypress wrote it before version 4: every file at version 3, and the
    summary counting each year's articles in place of `years.json` and the total."""
    to_summary_before_version_6(site, version=4)
    for path in site.glob(".steadypress/**/*.json"):
        path.write_text(json.dumps({**json.loads(path.read_bytes()), "version": 3}))
    summary = json.loads((site / SUMMARY).read_bytes())
    years = json.loads((site / YEARS).read_bytes())["years"]
    counts = {
        year: sum(json.loads((site / year_file(year)).read_bytes())["months"].values())
        for year in years
    }
    del summary["total"]
    (site / SUMMARY).write_text(json.dumps({**summary, "years": counts}))
    (site / YEARS).unlink()
    for path in site.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))


def test_a_version_3_index_moves_its_years_out_of_the_summary_on_the_next_publish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary of version 3 counted each year's articles (it grew with the years and
    changed with every article): the next publish lists the years in `years.json`, which
    changes only when a year appears or goes, and the summary keeps the total alone."""
    for layout in ("ARTICLE_SHARDS", "URL_SHARDS"):  # as version 3 laid its files out
        monkeypatch.setattr(indexfiles, layout, indexfiles.FIRST_SHARDS)
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n, day=400 * n), None) for n in range(3)])
    _as_version_3(tmp_path)
    site_target(DirectorySiteFiles(tmp_path)).publish(post(3, day=810), None)  # in 2002
    summary = json.loads((tmp_path / SUMMARY).read_bytes())
    assert summary["version"] == 7 and "years" not in summary and summary["first_shards"]
    assert json.loads((tmp_path / NEWEST_FILE).read_bytes())["total"] == 4
    years = json.loads((tmp_path / YEARS).read_bytes())
    assert years == {"version": 4, "years": ["2000", "2001", "2002"]}
    for path in tmp_path.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))
    before = (tmp_path / YEARS).stat().st_mtime_ns
    site_target(DirectorySiteFiles(tmp_path)).publish(post(4, day=811), None)
    assert (tmp_path / YEARS).stat().st_mtime_ns == before, "no year appeared"
    site_target(DirectorySiteFiles(tmp_path)).publish(post(5, day=1200), None)
    assert json.loads((tmp_path / YEARS).read_bytes())["years"][-1] == "2003"
    assert {"/archive/2000/", "/archive/2003/"} <= _hrefs(tmp_path / "archive/index.html")
    site_target(DirectorySiteFiles(tmp_path)).unpublish("content/p0.md", None)
    assert json.loads((tmp_path / YEARS).read_bytes())["years"] == ["2001", "2002", "2003"]
    assert "/archive/2000/" not in _hrefs(tmp_path / "archive/index.html")
    assert not (tmp_path / "archive/2000/index.html").exists()
    assert json.loads((tmp_path / NEWEST_FILE).read_bytes())["total"] == 5


def test_a_tag_of_many_years_links_its_newest_ten_and_a_page_of_them_all(
    tmp_path: Path,
) -> None:
    """A tag's page stays small however many years the tag has: it links its ten newest, and
    a page of every year, which a new article in a year the tag has does not change. Back to
    ten years, that page goes, from the site and its sitemaps."""
    site = site_target(DirectorySiteFiles(tmp_path))
    # Two articles a year over twelve years: more than the tag's page lists.
    site.publish_batch([(post(n, day=183 * n, tags=("go",)), None) for n in range(24)])
    tag_page, every = tmp_path / "tags/go/index.html", tmp_path / "tags/go/years/index.html"
    shown = {href for href in _hrefs(tag_page) if re.fullmatch(r"/tags/go/\d{4}/", href)}
    assert shown == {f"/tags/go/{year}/" for year in range(2002, 2012)}
    assert "/tags/go/years/" in _hrefs(tag_page)
    assert {f"/tags/go/{year}/" for year in range(2000, 2012)} <= _hrefs(every)
    assert "https://blog.example/tags/go/years/" in _sitemap_locations(tmp_path)
    before = stamps(tmp_path)
    site.publish(post(24, day=183 * 23 + 30, tags=("go",)), None)
    after = stamps(tmp_path)
    assert after["tags/go/years/index.html"] == before["tags/go/years/index.html"]
    assert after["tags/go/index.html"] != before["tags/go/index.html"]
    site.unpublish_batch([(f"content/p{n}.md", None) for n in range(4)])
    assert not every.exists() and "/tags/go/years/" not in _hrefs(tag_page)
    assert "https://blog.example/tags/go/years/" not in _sitemap_locations(tmp_path)


def test_a_tag_past_twenty_articles_has_a_page_a_year_and_back_at_twenty_it_has_one(
    tmp_path: Path,
) -> None:
    """A tag whose articles all fit on its page (20) has that page alone. Its 21st article,
    whatever its year, brings the page of every year of the tag at once, in the sitemaps too;
    back to 20, they all go again, and the site is the one built from its articles."""
    folder, fresh = tmp_path / "site", tmp_path / "fresh"
    site = site_target(DirectorySiteFiles(folder))
    # Twenty articles, 2000 to 2003.
    site.publish_batch([(post(n, day=73 * n, tags=("go",)), None) for n in range(20)])
    tag_page = folder / "tags/go/index.html"
    assert not list(folder.glob("tags/go/*/index.html"))
    assert len(re.findall(r'<a href="/p\d+/">', tag_page.read_text())) == 20
    assert not any(re.fullmatch(r"/tags/go/\d{4}/", href) for href in _hrefs(tag_page))

    site.publish(post(20, day=73 * 19 + 1, tags=("go",)), None)  # in 2003, a year it has
    years = {f"/tags/go/{year}/" for year in range(2000, 2004)}
    assert {href for href in _hrefs(tag_page) if re.fullmatch(r"/tags/go/\d{4}/", href)} == years
    assert {f"tags/go/{year}/index.html" for year in range(2000, 2004)} == {
        str(page) for page in _pages(folder) if str(page).startswith("tags/go/")
    } - {"tags/go/index.html"}
    assert {f"https://blog.example{href}" for href in years} <= _sitemap_locations(folder)

    site.unpublish("content/p0.md", None)
    assert not list(folder.glob("tags/go/*/index.html"))
    assert not any("/tags/go/2" in location for location in _sitemap_locations(folder))
    site_target(DirectorySiteFiles(fresh)).publish_batch(
        [(post(n, day=73 * n if n < 20 else 73 * 19 + 1, tags=("go",)), None)
         for n in range(1, 21)]
    )  # fmt: skip
    assert _not_index(folder) == _not_index(fresh)


def test_a_tag_of_twenty_articles_keeps_their_rows_in_its_years_file(tmp_path: Path) -> None:
    """While a tag's page lists all its articles, the rows of its years are in its
    `years.json`, not a file a year (at 1,000 articles of 200 tags those were a quarter of
    the site's files); its 21st article moves them out to a file a year, and back at 20 they
    move in again, the files removed. The site is the one built from its articles all along,
    and the index follows its schema."""
    folder, fresh = tmp_path / "site", tmp_path / "fresh"
    site = site_target(DirectorySiteFiles(folder))
    years_file = folder / tag_years_file("tags/go/index.html")

    def year_files() -> list[str]:
        return sorted(p.name for p in years_file.parent.glob("*.json") if p != years_file)

    def held() -> dict[str, int]:
        rows = json.loads(years_file.read_bytes()).get("rows", {})
        return {year: len(articles) for year, articles in rows.items()}

    site.publish_batch([(post(n, day=73 * n, tags=("go",)), None) for n in range(20)])
    assert year_files() == [] and held() == {"2000": 6, "2001": 5, "2002": 5, "2003": 4}
    site.publish(post(20, day=73 * 19 + 1, tags=("go",)), None)
    assert year_files() == ["2000.json", "2001.json", "2002.json", "2003.json"] and held() == {}
    site.unpublish("content/p0.md", None)
    assert year_files() == [] and held() == {"2000": 5, "2001": 5, "2002": 5, "2003": 5}
    for path in folder.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))
    site_target(DirectorySiteFiles(fresh)).publish_batch(
        [(post(n, day=73 * n if n < 20 else 73 * 19 + 1, tags=("go",)), None)
         for n in range(1, 21)]
    )  # fmt: skip
    assert site_folder(folder) == site_folder(fresh)


def test_a_small_tags_year_files_an_earlier_version_wrote_are_read_and_folded_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index written before (its summary of version 6) kept a file for each year of every
    tag: read as it is, and the next write that reads them all (the tag's page lists every
    article) moves their rows into the tag's `years.json` and removes them. The summary is
    then of version 7, which a steadypress that reads 6 refuses rather than drop the rows."""
    folder = tmp_path / "site"
    build = [post(n, day=200 * n, tags=("go",)) for n in range(6)]
    with monkeypatch.context() as earlier:
        earlier.setattr(indexdocuments_module, "listed_whole", lambda _count: False)  # in files
        site_target(DirectorySiteFiles(folder)).publish_batch([(a, None) for a in build])
    summary = json.loads((folder / SUMMARY).read_bytes())
    (folder / SUMMARY).write_text(json.dumps({**summary, "version": 6}))
    years_file = folder / tag_years_file("tags/go/index.html")
    assert "rows" not in json.loads(years_file.read_bytes())
    assert len(list(years_file.parent.glob("2*.json"))) == 3
    site_target(DirectorySiteFiles(folder)).publish(post(6, day=1201, tags=("go",)), None)
    assert json.loads((folder / SUMMARY).read_bytes())["version"] == 7
    assert not list(years_file.parent.glob("2*.json"))
    rows = json.loads(years_file.read_bytes())["rows"]
    assert {year: len(articles) for year, articles in rows.items()} == {
        "2000": 2, "2001": 2, "2002": 2, "2003": 1
    }  # fmt: skip
    page = (folder / "tags/go/index.html").read_text()
    assert [f"P{n}" for n in range(6, -1, -1)] == re.findall(r'<a href="/p\d+/">(P\d+)</a>', page)


def test_the_year_pages_of_a_small_tag_an_earlier_layout_wrote_go_with_the_next_publish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summary that names no layout of the listings is of the first, which gave every tag a
    page a year: the next publish, of any article, takes those of each tag its page lists
    whole off the site and its sitemaps, and records the layout."""
    site, fresh = tmp_path / "site", tmp_path / "fresh"
    build = [post(n, day=200 * n, tags=("go", "rust") if n % 2 else ("go",)) for n in range(6)]
    with monkeypatch.context() as earlier:
        earlier.setattr(listings_module, "listed_whole", lambda _count: False)  # every tag
        site_target(DirectorySiteFiles(site)).publish_batch([(a, None) for a in build])
    summary = json.loads((site / SUMMARY).read_bytes())
    del summary["listings"]
    (site / SUMMARY).write_text(json.dumps(summary))
    assert len(list(site.glob("tags/*/*/index.html"))) == 3 + 3  # go's years, and rust's
    VALIDATORS["site-index"].validate(summary)

    site_target(DirectorySiteFiles(site)).publish(post(6, day=1300), None)  # of no tag
    assert not list(site.glob("tags/*/*/index.html"))
    assert not any(re.search(r"/tags/\w+/\d{4}/", loc) for loc in _sitemap_locations(site))
    summary = json.loads((site / SUMMARY).read_bytes())
    assert summary["listings"] == 2 and "stale" not in summary
    site_target(DirectorySiteFiles(fresh)).publish_batch(
        [(a, None) for a in [*build, post(6, day=1300)]]
    )
    assert _not_index(site) == _not_index(fresh)


def test_a_full_file_of_the_index_splits_and_every_article_is_still_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of articles or URLs that a write leaves with more than `SPLIT_ABOVE` entries
    becomes a split marker, its entries moved to files one hex digit longer; a new process
    finds each article there (a new version replaces its entry, a removal takes it out), and
    each file holds few entries. (16 files to begin with, split above 3: a small blog does.)"""
    small_shard_tree(monkeypatch)
    site_target(DirectorySiteFiles(tmp_path)).publish_batch([(post(n), None) for n in range(96)])
    index = tmp_path / ".steadypress"

    def files(folder: str) -> dict[str, dict[str, Any]]:
        """By name: a deeper file is in a folder per digit beyond the first (`a/b.json`)."""
        found = {}
        for p in (index / folder).rglob("*.json"):
            name = str(p.relative_to(index / folder)).removesuffix(".json")
            assert name.count("/") == len(name.replace("/", "")) - 1
            found[name.replace("/", "")] = json.loads(p.read_bytes())
        return found

    for folder in ("articles", "urls"):
        found = files(folder)
        markers = {name for name, document in found.items() if "split" in document}
        assert markers and {len(name) for name in markers} <= {1, 2}
        assert markers == {
            name for name in found if any(o.startswith(name) for o in found if o != name)
        }
        for name, document in found.items():
            if name not in markers:
                held = document[folder]
                assert all(shardtree.digest(key).startswith(name) for key in held)
                assert len(held) <= 3 or len(name) == 3
        for document in found.values():
            VALIDATORS["site-index"].validate(document)
    assert set(local_site_articles(tmp_path)) == {f"content/p{n}.md" for n in range(96)}

    again = site_target(DirectorySiteFiles(tmp_path))
    again.publish(replace(post(7), blob="b2", title="Seven"), None)
    again.unpublish_batch([("content/p8.md", None), ("content/p9.md", None)])
    articles = local_site_articles(tmp_path)
    assert len(articles) == 94 and articles["content/p7.md"]["title"] == "Seven"
    assert "content/p8.md" not in articles and not (tmp_path / "p8/index.html").exists()
    assert json.loads((tmp_path / NEWEST_FILE).read_bytes())["total"] == 94
    assert links(tmp_path, 10) == ("/p7/", "/p11/")


def test_the_batches_of_a_run_read_each_split_marker_of_the_index_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A split marker is never merged back, so a run's batches read it once, not once a batch
    (at 10^5 that was 8% of a first build); and every article is still found."""
    small_shard_tree(monkeypatch)
    site_target(DirectorySiteFiles(tmp_path)).publish_batch([(post(n), None) for n in range(96)])
    markers = {
        str(p.relative_to(tmp_path))
        for p in (tmp_path / ".steadypress").rglob("*.json")
        if "split" in json.loads(p.read_bytes())
    }
    reads: Counter[str] = Counter()
    real_read = files_module._DirectoryWriter.read

    def read(writer: Any, path: str) -> bytes | None:
        reads[path] += 1
        return real_read(writer, path)

    monkeypatch.setattr(files_module._DirectoryWriter, "read", read)
    run = site_target(DirectorySiteFiles(tmp_path))
    for n in range(96, 106):
        run.publish_batch([(post(n), None)], final=n == 105)
    read_markers = {path: count for path, count in reads.items() if path in markers}
    assert read_markers and set(read_markers.values()) == {1}, read_markers
    assert set(local_site_articles(tmp_path)) == {f"content/p{n}.md" for n in range(106)}


def test_tags_named_like_the_index_folders_are_kept_as_tags(tmp_path: Path) -> None:
    """A tag's files are told from the index's own by where they are, not by their names."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n, tags=("urls", "years", "articles")), None) for n in range(3)])
    site.publish(post(3, tags=("urls", "years")), None)
    for tag in ("urls", "years", "articles"):
        assert {f"/p{n}/" for n in range(3)} <= _hrefs(tmp_path / f"tags/{tag}/index.html")
    for path in tmp_path.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))


BLOB = "0123456789abcdef" * 2 + "01234567"  # a version's git blob id


def test_an_entry_keeps_64_bits_of_its_page_s_digest_and_version_and_reads_whole_ones_so(
    tmp_path: Path,
) -> None:
    """An entry and its month's row know the article's page by the first 64 bits of its
    SHA-256, and the entry the article's version by the first 64 bits of its blob id (whole,
    they were half an entry's bytes, in the file every push reads and rewrites); an entry
    written with the whole ones is read as their first 64 bits, so publishing the same
    articles again changes nothing."""
    articles = [(replace(post(n), blob=BLOB), None) for n in range(3)]
    site_target(DirectorySiteFiles(tmp_path)).publish_batch(articles)
    entries = local_site_articles(tmp_path)
    month = json.loads((tmp_path / ".steadypress/months/2000-01.json").read_bytes())["articles"]
    for path, entry in entries.items():
        assert re.fullmatch("[0-9a-f]{16}", entry["sha256"]) and entry["blob"] == BLOB[:16]
        assert month[path]["page"] == entry["sha256"]
    for file in (tmp_path / ".steadypress/articles").rglob("*.json"):
        document = json.loads(file.read_bytes())
        for entry in document["articles"].values():
            entry["sha256"] += hashlib.sha256(entry["sha256"].encode()).hexdigest()[:48]
            entry["blob"] = BLOB
        file.write_text(json.dumps(document))
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    site_target(DirectorySiteFiles(tmp_path)).publish_batch(articles)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


ONLY_IN_AN_ENTRY = {"blob", "sha256", "assets", "aliases"}


def test_listings_keep_rows_and_read_the_whole_entries_of_an_earlier_write(
    tmp_path: Path,
) -> None:
    """A month's and a tag's year's files and the summary's newest hold each article's row,
    not its whole entry (its version and page digest are its own file's); listings written
    whole before are read as rows, and a removal from the newest refills the feed from them,
    the article coming in with its summary."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(replace(post(n, tags=("go",)), description=f"About {n}."), None)
                        for n in range(22)])  # fmt: skip
    index = tmp_path / ".steadypress"
    month, tag_year = index / "months/2000-01.json", index / "tags/go/2000.json"
    entries = local_site_articles(tmp_path)
    assert all({"blob", "sha256"} <= set(e) for e in entries.values())
    summary = json.loads((index / "newest.json").read_bytes())
    rows = [
        *json.loads(month.read_bytes())["articles"].values(),
        *json.loads(tag_year.read_bytes())["articles"].values(),
        *(row for _path, row in summary["newest"]),
    ]
    assert len(rows) == 22 + 22 + 20 and not any(ONLY_IN_AN_ENTRY & set(row) for row in rows)

    for listing in (month, tag_year):  # as a write before rows were slimmed left them
        document = json.loads(listing.read_bytes())
        document["articles"] = {path: entries[path] for path in document["articles"]}
        listing.write_text(json.dumps(document))
    summary["newest"] = [[path, entries[path]] for path, _row in summary["newest"]]
    (index / "newest.json").write_text(json.dumps(summary))
    VALIDATORS["site-index"].validate(json.loads(month.read_bytes()))
    VALIDATORS["site-index"].validate(summary)

    site.unpublish("content/p21.md", None)
    feed = feedparser.parse((tmp_path / "feed.xml").read_bytes())
    assert [e.title for e in feed.entries] == [f"P{n}" for n in range(20, 0, -1)]
    assert feed.entries[-1].summary == "About 1.", "came in from the month's file"
    assert '<a href="/p1/">P1</a>' in (tmp_path / "archive/2000/01/index.html").read_text()
    for listing in (month, tag_year, index / "newest.json"):
        document = json.loads(listing.read_bytes())
        VALIDATORS["site-index"].validate(document)
        written = document.get("articles") or dict(document["newest"])
        assert not any(ONLY_IN_AN_ENTRY & set(row) for row in written.values()), listing


def _not_index(site: Path) -> dict[str, bytes]:
    """What the site shows: every file but the index's."""
    return {path: data for path, data in site_folder(site).items()
            if not path.startswith(".steadypress/")}  # fmt: skip


def _listing_files(site: Path, listing: str) -> dict[str, Any]:
    """A listing's own file and its parts' (`months/2000-01`), by path."""
    folder = site / ".steadypress" / listing
    found = {f"{listing}.json": json.loads(folder.with_suffix(".json").read_bytes())}
    found |= {f"{listing}/{p.name}": json.loads(p.read_bytes()) for p in folder.glob("*.json")}
    return found


# A crowded month: 3 articles a day for 20 days, every one tagged `busy`.
CROWDED = [post(n, day=n // 3, tags=("busy",)) for n in range(60)]
# Its listing pages: in parts, each shows its newest part and links to a page of each other.
CROWDED_PAGES = ("archive/2000/01/index.html", "tags/busy/2000/index.html")


def _pager_link(page: str, rel: str) -> str | None:
    _before, nav, after = page.partition('<nav class="pages">')
    pager = after.split("</nav>", maxsplit=1)[0] if nav else ""
    found = re.search(rf'rel="{rel}" href="([^"]+)"', pager)
    return found[1] if found else None


def _paged(site: Path, page: str) -> list[list[str]]:
    """The articles each page of a month's or tag's year's listing shows, from its own page
    along the links to older pages, each page checked to link back to the one it came from."""
    shown: list[list[str]] = []
    url: str | None = "/" + page.removesuffix("index.html")
    newer = None
    while url is not None:
        html = (site / url.lstrip("/") / "index.html").read_text()
        html5lib.HTMLParser(strict=True).parse(html)  # raises on the first parse error
        shown.append(re.findall(r'<a href="/(p\d+)/">', html.split('<ol class="articles">')[1]
                                .split("</ol>")[0]))  # fmt: skip
        assert _pager_link(html, "prev") == newer, url
        newer, url = url, _pager_link(html, "next")
    return shown


def _part_pages(site: Path, page: str) -> set[str]:
    """The pages of a listing's older parts in the site's folder."""
    return {str(path.relative_to(site)) for path in (site / page).parent.glob("p*/index.html")}


def _not_listed(site: Path) -> dict[str, bytes]:
    """What the site shows but the crowded listing pages and their parts' pages."""
    folders = tuple(page.removesuffix("index.html") for page in CROWDED_PAGES)
    return {path: data for path, data in _not_index(site).items()
            if not (path.startswith(folders) and path.count("/") in (3, 4))}  # fmt: skip


def _assert_paged_as_listed(parted: Path, whole: Path) -> None:
    """Each crowded listing of `parted` shows on its pages, one part a page, what `whole`
    (without parts) shows on one, in the same order; no page of a part is left over; and
    every other page is the same."""
    assert _not_listed(parted) == _not_listed(whole)
    for page in CROWDED_PAGES:
        [everything] = _paged(whole, page)
        pages = _paged(parted, page)
        assert [n for shown in pages for n in shown] == everything
        assert all(0 < len(shown) <= 8 for shown in pages), pages
        expected = {
            f"{page.removesuffix('index.html')}p{n}/index.html" for n in _parts(parted, page)[:-1]
        }
        assert _part_pages(parted, page) == expected


def _parts(site: Path, page: str) -> list[int]:
    """The numbers of a crowded listing's parts, in date order, as its index file names them."""
    listing = "months/2000-01" if page.startswith("archive/") else "tags/busy/2000"
    document = json.loads((site / ".steadypress" / f"{listing}.json").read_bytes())
    return [part["part"] for part in document["parts"]]


@pytest.mark.parametrize(("batches", "each_final"), [(1, True), (6, True), (60, True), (6, False)])
def test_a_crowded_month_is_kept_in_parts_and_the_site_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batches: int, each_final: bool
) -> None:
    """Past `PART_ROWS` rows a month's (and a tag's year's) rows are kept in parts of a range
    of dates each: each part small, every row in the part its date falls in, its listing page
    showing the newest part and linking a page of each older one, together listing what one
    page of a site without parts lists; every other page, the feed and the sitemaps byte for
    byte that site's, as the month fills (in one batch or article by article) and as articles
    leave it; also when a run's batches leave the listing pages to its last (`each_final`
    False: the last renders every page of each listing, as earlier batches changed them)."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    parted, whole = site_target(DirectorySiteFiles(tmp_path / "parted")), None
    size = len(CROWDED) // batches
    for start in range(0, len(CROWDED), size):
        final = each_final or start + size >= len(CROWDED)
        parted.publish_batch(
            [(article, None) for article in CROWDED[start : start + size]], final=final
        )
    monkeypatch.setattr(parts_module, "PART_ROWS", 10**6)
    whole = site_target(DirectorySiteFiles(tmp_path / "whole"))
    whole.publish_batch([(article, None) for article in CROWDED])
    _assert_paged_as_listed(tmp_path / "parted", tmp_path / "whole")
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)

    for listing in ("months/2000-01", "tags/busy/2000"):
        files = _listing_files(tmp_path / "parted", listing)
        parts = files[f"{listing}.json"]["parts"]
        assert len(parts) >= len(CROWDED) // 8 and "from" not in parts[0]
        starts = [(part["from"][0], part["from"][1]) for part in parts[1:]]
        assert starts == sorted(starts)
        for part in parts:
            rows = files[f"{listing}/{part['part']}.json"]["articles"]
            assert 0 < len(rows) <= 8
            dates = sorted((row["date"], row["slug"]) for row in rows.values())
            after = [s for s in starts if s > tuple(part.get("from", ("", "")))]
            assert tuple(part.get("from", ("", ""))) <= dates[0]
            assert not after or dates[-1] < after[0]
        for document in files.values():
            VALIDATORS["site-index"].validate(document)
    # The tag's years file hints the year's newest parts, for its page's read-ahead.
    tag_years = json.loads((tmp_path / "parted/.steadypress/tags/busy/years.json").read_text())
    VALIDATORS["site-index"].validate(tag_years)
    parts = _listing_files(tmp_path / "parted", "tags/busy/2000")["tags/busy/2000.json"]["parts"]
    assert tag_years["newest_parts"] == {"2000": [part["part"] for part in parts[-5:]]}

    # Articles leave: a whole part's worth from the middle, the first, the newest.
    gone = [f"content/p{n}.md" for n in (*range(20, 30), 0, 59)]
    parted.unpublish_batch([(path, None) for path in gone])
    monkeypatch.setattr(parts_module, "PART_ROWS", 10**6)
    whole.unpublish_batch([(path, None) for path in gone])
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    _assert_paged_as_listed(tmp_path / "parted", tmp_path / "whole")
    for document in _listing_files(tmp_path / "parted", "months/2000-01").values():
        VALIDATORS["site-index"].validate(document)
    assert len(local_site_articles(tmp_path / "parted")) == len(CROWDED) - len(gone)

    # Articles move within the month (a new date), from one part to another.
    moved = [replace(CROWDED[n], date=START + timedelta(days=19 - n // 3)) for n in range(1, 12)]
    parted.publish_batch([(article, None) for article in moved])
    monkeypatch.setattr(parts_module, "PART_ROWS", 10**6)
    whole.publish_batch([(article, None) for article in moved])
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    _assert_paged_as_listed(tmp_path / "parted", tmp_path / "whole")

    # The month empties: its pages go, its parts' pages with them.
    rest = [f"content/p{n}.md" for n in range(len(CROWDED)) if f"content/p{n}.md" not in gone]
    parted.unpublish_batch([(path, None) for path in rest])
    for page in CROWDED_PAGES:
        assert not (tmp_path / "parted" / page).exists()
        assert _part_pages(tmp_path / "parted", page) == set()


# A theme's month and tag pages from before listings had parts: no `pager.html` in them.
_PAGERLESS = {
    name: f'{{% extends "base.html" %}}{{% block main %}}<h1>{heading}</h1>'
    '{% include "list.html" %}{% endblock %}'.encode()
    for name, heading in (("month.html", "{{ period }}"), ("tag.html", "{{ tag }}"))
}


def test_a_theme_without_the_pager_still_links_every_part_of_a_crowded_month(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A month's or a tag's year's page whose template does not show the links to the other
    parts gets the theme's `pager.html` before `</body>`: every part is reached from another,
    as with the default theme; a page that shows them is left as its template made it."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    sites = {"own": Theme(_PAGERLESS.get, where="theme"), "default": Theme()}
    for name, theme in sites.items():
        site_target(DirectorySiteFiles(tmp_path / name), theme=theme).publish_batch(
            [(article, None) for article in CROWDED]
        )
    pager = re.compile(rb'<nav class="pages">.*?</nav>', re.S)
    for page in CROWDED_PAGES:
        shown = [page, *sorted(_part_pages(tmp_path / "default", page))]
        assert len(shown) > 2
        for path in shown:
            own = (tmp_path / "own" / path).read_bytes()
            default = (tmp_path / "default" / path).read_bytes()
            assert pager.findall(own) == pager.findall(default) != [], path
            assert own.index(b'<nav class="pages">') < own.rindex(b"</body>")
            assert own.count(b'<nav class="pages">') == default.count(b'<nav class="pages">') == 1


def test_a_publish_into_a_crowded_month_rewrites_one_part(tmp_path: Path) -> None:
    """The month's own file names its parts and is rewritten only when they change; a new
    article rewrites the part its date falls in, not the month, and of the month's and the
    tag's year's pages, the page of that part (and those beside it, when it splits): pages of
    a part's rows, never one of the whole month's."""
    crowded = [post(n, day=n // 20, tags=("busy",)) for n in range(400)]
    site_target(DirectorySiteFiles(tmp_path)).publish_batch([(a, None) for a in crowded])
    before = site_folder(tmp_path)
    site_target(DirectorySiteFiles(tmp_path)).publish(post(400, day=19, tags=("busy",)), None)
    changed = {path for path, data in site_folder(tmp_path).items() if before.get(path) != data}
    month = {path for path in changed if path.startswith(".steadypress/months/")}
    assert len(month) == 1 and month <= {
        f".steadypress/months/2000-01/{p['part']}.json"
        for p in json.loads(before[".steadypress/months/2000-01.json"])["parts"]
    }
    largest = max(len(site_folder(tmp_path)[path]) for path in month)
    assert (
        largest
        < len(b"".join(before[p] for p in before if p.startswith(".steadypress/months/2000-01/")))
        / 4
    )
    for folder in ("archive/2000/01/", "tags/busy/2000/"):
        pages = {path for path in changed if path.startswith(folder)}
        assert 1 <= len(pages) <= 3, pages
        assert all(len(site_folder(tmp_path)[page]) < 20_000 for page in pages)
        every_page = [path for path in site_folder(tmp_path) if path.startswith(folder)]
        assert len(every_page) >= 400 // parts_module.PART_ROWS


@pytest.mark.parametrize(
    ("before", "after", "written", "repaged"),
    [
        ([1, 2, 3], [1, 2, 3], {3}, set()),  # rows into the newest: its page is the listing's
        ([1, 2, 3], [1, 2, 3], {2}, {2}),  # rows into an older part: its page alone
        ([1, 2, 3], [1, 2, 3, 4], {3}, {2, 3}),  # the newest split: its page appears, 2 links it
        ([1, 2, 3], [1, 2, 4, 3], {2}, {2, 4}),  # an older part split: 3 still links 2's page
        ([1, 2, 3, 4], [1, 3, 4], {2}, {1, 2, 3}),  # a part went: its page, and those beside it
        ([1, 2, 3], [1, 2], {3}, {1, 2}),  # the newest went: 2 is now the listing's own page
        ([], [1, 2, 3], {1}, {1, 2}),  # a listing turned into parts: a page of each older one
        ([1, 2], [], {1, 2}, {1}),  # emptied: its pages go
    ],
)
def test_a_part_page_is_written_when_its_rows_or_its_neighbours_change(
    before: list[int], after: list[int], written: set[int], repaged: set[int]
) -> None:
    """Every part but the newest has a page, linking the pages beside it (the newest is the
    listing's own): a page is written when its rows change, when it appears or its neighbours
    change, and removed when its part goes or becomes the newest."""
    assert parts_module.repaged(before, after, written) == repaged


def reads_counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths a folder site's writes read from now on, in order."""
    read: list[str] = []
    real_read = files_module._DirectoryWriter.read

    def counted(writer: Any, path: str) -> bytes | None:
        read.append(path)
        return real_read(writer, path)

    monkeypatch.setattr(files_module._DirectoryWriter, "read", counted)
    return read


def test_a_publish_into_a_crowded_month_reads_a_few_of_its_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of a month and a tag's year of 30-odd parts, a new article reads the parts its page
    and its neighbours need (the newest few, and those beside its own), not all of them; one
    dated into the middle reads the parts beside its own too."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    crowded = [post(n, day=n // 7, tags=("busy",)) for n in range(200)]
    site_target(DirectorySiteFiles(tmp_path)).publish_batch([(a, None) for a in crowded])
    read = reads_counted(monkeypatch)
    folders = (".steadypress/months/2000-01/", ".steadypress/tags/busy/2000/")
    for n, day in ((200, 28), (201, 14)):
        read.clear()
        site_target(DirectorySiteFiles(tmp_path)).publish(post(n, day=day, tags=("busy",)), None)
        for folder in folders:
            parts = len(list((tmp_path / folder).glob("*.json")))
            assert parts > 30
            assert 0 < len({path for path in read if path.startswith(folder)}) <= 8, read


def test_a_back_dated_publish_reads_nothing_of_the_newest_year(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An article dated into a year before the newest, between articles of its own year,
    changes neither the front page's nor the feed's newest: nothing of the newest year is
    read but its month counts, asked in the first read as every year beside a change's is
    (where a sparse blog's neighbours are), never its months' rows, which refilling the
    newest would walk."""
    in_2001 = [post(n, day=400 + n) for n in range(25)]
    in_2000 = [post(100 + day, day=day) for day in (10, 50, 60)]
    site_target(DirectorySiteFiles(tmp_path)).publish_batch(
        [(article, None) for article in [*in_2001, *in_2000]]
    )
    read = reads_counted(monkeypatch)
    site_target(DirectorySiteFiles(tmp_path)).publish(post(99, day=30), None)  # in 2000
    assert ".steadypress/years/2000.json" in read
    newest_year = [path for path in read if path.startswith(".steadypress/") and "2001" in path]
    assert newest_year == [".steadypress/years/2001.json"]


@pytest.mark.parametrize(
    "parts",
    [[{"part": 1, "from": ["2000-01-05T00:00:00Z", "p5"]}],
     [{"part": 1}, {"part": 2}],
     [{"part": 1}, {"part": 2, "from": ["2000-01-09T00:00:00Z", "p9"]},
      {"part": 3, "from": ["2000-01-02T00:00:00Z", "p2"]}],
     [{"part": 1}, {"part": 1, "from": ["2000-01-09T00:00:00Z", "p9"]}], []],
)  # fmt: skip
def test_parts_that_could_lose_rows_are_refused(tmp_path: Path, parts: list[Any]) -> None:
    """A month's file edited by hand into parts that leave rows nowhere (the first not from
    the beginning, out of order, two of one number, none) stops the publish, the file named,
    and nothing is written."""
    site_target(DirectorySiteFiles(tmp_path)).publish_batch([(post(n), None) for n in range(3)])
    month = tmp_path / ".steadypress/months/2000-01.json"
    month.write_text(json.dumps({"version": 4, "parts": parts}))
    before = site_folder(tmp_path)
    with pytest.raises(TransientError, match=r"months/2000-01\.json"):
        site_target(DirectorySiteFiles(tmp_path)).publish(post(3), None)
    assert site_folder(tmp_path) == before


@pytest.mark.parametrize("hint", [{"2000": [99]}, {"2000": []}, {}])
def test_a_stale_hint_of_a_tags_newest_parts_costs_a_read_never_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hint: dict[str, list[int]]
) -> None:
    """A tag's years file that names parts its year no longer has (or none) only reads ahead
    in vain: the tag's pages are what they would be, and the next write mends the hint."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    for folder in ("hinted", "plain"):
        site_target(DirectorySiteFiles(tmp_path / folder)).publish_batch(
            [(post(n, tags=("busy",)), None) for n in range(30)]
        )
    tag_years = tmp_path / "hinted/.steadypress/tags/busy/years.json"
    mended = json.loads(tag_years.read_text())
    tag_years.write_text(json.dumps({**mended, "newest_parts": hint}))
    for folder in ("hinted", "plain"):
        site_target(DirectorySiteFiles(tmp_path / folder)).publish(post(30, tags=("busy",)), None)
    assert site_folder(tmp_path / "hinted") == site_folder(tmp_path / "plain")


def test_a_hint_of_a_tags_newest_parts_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    """A tag's years file whose hint is not year -> part numbers stops the publish, the file
    named, and nothing is written."""
    site_target(DirectorySiteFiles(tmp_path)).publish(post(0, tags=("busy",)), None)
    tag_years = tmp_path / ".steadypress/tags/busy/years.json"
    document = json.loads(tag_years.read_text())
    tag_years.write_text(json.dumps({**document, "newest_parts": {"2000": "seven"}}))
    before = site_folder(tmp_path)
    with pytest.raises(TransientError, match=r"tags/busy/years\.json"):
        site_target(DirectorySiteFiles(tmp_path)).publish(post(1, tags=("busy",)), None)
    assert site_folder(tmp_path) == before


def test_a_row_left_outside_its_parts_range_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local write that died while a part split leaves the rows it handed on in both parts:
    each part shows only the rows of its range, and the copy goes when that part is written."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    for site in ("parted", "clean"):
        site_target(DirectorySiteFiles(tmp_path / site)).publish_batch(
            [(article, None) for article in CROWDED]
        )
    folder = tmp_path / "parted/.steadypress/months/2000-01"
    first, second = (json.loads((folder / f"{n}.json").read_bytes()) for n in (1, 2))
    stray = next(iter(second["articles"].items()))
    first["articles"][stray[0]] = stray[1]
    (folder / "1.json").write_text(json.dumps(first))
    newest = post(60, day=0, tags=("busy",))  # dated into the first part: it is written again
    for site in ("parted", "clean"):
        site_target(DirectorySiteFiles(tmp_path / site)).publish(newest, None)
    assert _not_index(tmp_path / "parted") == _not_index(tmp_path / "clean")
    assert stray[0] not in json.loads((folder / "1.json").read_bytes())["articles"]


def test_a_write_that_dies_once_the_month_names_its_parts_loses_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local write killed right after the month's file first names its parts (before the
    write lands: nothing of it is written) loses no row: the next publish lists every article.
    (Killed as it lands: test_site.py, test_a_write_killed_midway_is_finished_by_the_next_one.)"""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    real_put = files_module._DirectoryWriter.put

    def dies_after_naming_parts(
        writer: Any, path: str, data: bytes, *, unread: bool = False
    ) -> None:
        real_put(writer, path, data, unread=unread)
        if path == ".steadypress/months/2000-01.json" and b'"parts"' in data:
            raise KeyboardInterrupt  # the process killed between two files

    monkeypatch.setattr(files_module._DirectoryWriter, "put", dies_after_naming_parts)
    with pytest.raises(KeyboardInterrupt):
        site_target(DirectorySiteFiles(tmp_path)).publish_batch(
            [(article, None) for article in CROWDED[:20]]
        )
    monkeypatch.setattr(files_module._DirectoryWriter, "put", real_put)
    assert not (tmp_path / "archive").exists()  # nothing of the write landed
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(article, None) for article in CROWDED[:20]])  # the executor's retry
    site.publish(CROWDED[20], None)
    listed = [n for shown in _paged(tmp_path, "archive/2000/01/index.html") for n in shown]
    assert sorted(listed) == sorted(f"p{n}" for n in range(21)), listed


@given(
    starts=st.lists(
        st.tuples(st.integers(0, 50).map(float), st.sampled_from("abc")), unique=True, max_size=12
    ),
    key=st.tuples(st.integers(-1, 51).map(float), st.sampled_from("abcd")),
)
def test_a_row_falls_in_the_last_part_that_begins_at_or_before_it(
    starts: list[tuple[float, str]], key: tuple[float, str]
) -> None:
    """A crowded listing's parts, in date order, the first from the beginning: a row belongs
    to the last one that begins at or before it."""
    parts = [parts_module.Part("x.json", 0, None)] + [
        parts_module.Part("x.json", number, start)
        for number, start in enumerate(sorted(starts), start=1)
    ]
    found = part_at(parts, key)
    assert parts[found].begins <= key
    assert found == len(parts) - 1 or parts[found + 1].begins > key


def _shard_files(site: Path, folder: str) -> set[str]:
    return {p.relative_to(site / ".steadypress" / folder).as_posix()
            for p in (site / ".steadypress" / folder).rglob("*.json")}  # fmt: skip


def test_a_new_index_files_its_articles_in_256_files_and_an_older_one_keeps_its_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build of 300 articles writes at most 256 files of articles and of URLs, each
    named by two hex digits (the first layout wrote one of 4,096 for nearly every article).
    An index begun in the first layout (its summary of version 4) keeps it: an article from
    before is found where it is, updated and removed, and no shallower file appears."""
    new = tmp_path / "new"
    site_target(DirectorySiteFiles(new)).publish_batch([(post(n), None) for n in range(300)])
    for folder in ("articles", "urls"):
        files = _shard_files(new, folder)
        assert len(files) <= 256 and all(re.fullmatch(r"[0-9a-f]{2}\.json", f) for f in files)
    assert json.loads((new / SUMMARY).read_bytes())["version"] == 7

    old = tmp_path / "old"
    with monkeypatch.context() as first:
        for layout in ("ARTICLE_SHARDS", "URL_SHARDS"):
            first.setattr(indexfiles, layout, indexfiles.FIRST_SHARDS)
        site_target(DirectorySiteFiles(old)).publish_batch([(post(n), None) for n in range(40)])
    to_summary_before_version_6(old, version=4)
    before = _shard_files(old, "articles")
    assert all(re.fullmatch(r"[0-9a-f]{3}\.json", name) for name in before)

    site = site_target(DirectorySiteFiles(old))
    site.publish(replace(post(7), title="P7, again", blob="b2"), None)
    site.publish(post(40), None)
    site.unpublish("content/p8.md", None)
    assert all(
        re.fullmatch(r"[0-9a-f]{3}(/[0-9a-f])*\.json", f) for f in _shard_files(old, "articles")
    )
    summary = json.loads((old / SUMMARY).read_bytes())
    assert summary["version"] == 7 and summary["first_shards"] is True
    articles = local_site_articles(old)
    assert len(articles) == 40 and "content/p8.md" not in articles
    assert articles["content/p7.md"]["title"] == "P7, again"
    for path in old.glob(".steadypress/**/*.json"):
        VALIDATORS["site-index"].validate(json.loads(path.read_bytes()))


def test_an_index_of_a_later_version_is_refused_not_written_over(tmp_path: Path) -> None:
    """A summary of a version this steadypress does not know (a later one's, whose files may
    hold what this one would drop) stops the publish, naming the file, and nothing is
    written."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish(post(0, tags=("go",)), None)
    summary = json.loads((tmp_path / SUMMARY).read_bytes())
    (tmp_path / SUMMARY).write_text(json.dumps({**summary, "version": UNFILED_VERSION + 1}))
    before = site_folder(tmp_path)
    with pytest.raises(TransientError, match=r"\.steadypress/summary\.json"):
        site_target(DirectorySiteFiles(tmp_path)).publish(post(1, tags=("go",)), None)
    assert site_folder(tmp_path) == before


def test_a_row_a_tags_years_file_holds_that_does_not_parse_is_reported_in_that_file(
    tmp_path: Path,
) -> None:
    """A tag's rows kept in its `years.json` are read with it: a row that does not parse
    (hand-edited, with no title) stops the publish naming that file, and nothing is written."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish(post(0, tags=("go",)), None)
    years_file = tmp_path / tag_years_file("tags/go/index.html")
    document = json.loads(years_file.read_bytes())
    (row,) = document["rows"]["2000"].values()
    del row["title"]
    years_file.write_text(json.dumps(document))
    before = site_folder(tmp_path)
    with pytest.raises(TransientError, match=r"\.steadypress/tags/go/years\.json.*title"):
        site_target(DirectorySiteFiles(tmp_path)).publish(post(1, tags=("go",)), None)
    assert site_folder(tmp_path) == before


OFFSETS = [UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=9))]


@given(
    moment=st.datetimes(
        min_value=datetime(1970, 1, 2), max_value=datetime(2100, 1, 1),
        timezones=st.sampled_from(OFFSETS),
    ),
    slug=st.from_regex(r"[a-z0-9-]{1,20}(/[a-z0-9-]{1,10})?", fullmatch=True),
)  # fmt: skip
def test_a_rows_order_read_from_its_date_and_slug_is_the_whole_rows(
    moment: datetime, slug: str
) -> None:
    """`listed_order` reads a row's date and slug alone, where it made the whole row: the
    order is the same, whatever the offset its date was written in."""
    listed = Listed(slug=slug, title="T", date=moment.astimezone(UTC), updated=moment,
                    description=None, summary="", tags=("a",), cover=None)  # fmt: skip
    row = {**indexfiles.listing_row(listed), "date": moment.isoformat()}
    assert indexfiles.listed_order("m.json", row) == indexfiles.date_order(Listed.from_json(row))
    with pytest.raises(TransientError, match=r"m\.json"):
        indexfiles.listed_order("m.json", {"slug": slug})
