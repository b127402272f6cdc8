"""The site's sitemaps (`targets/site/sitemaps.py`): as many as the blog needs, split and merged
one at a time as it grows and shrinks, every page in exactly one, each valid against the
sitemaps.org schemas, and an earlier layout moved by the next publish."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import xmlschema

from steadypress.articles import Article
from steadypress.feeds import sitemap
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site import sitemaps as sitemaps_module
from steadypress.targets.site.index import SUMMARY
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.sitemaps import (
    LISTINGS_SITEMAP,
    SITEMAP,
    address_of,
    sitemap_count,
    sitemap_file,
)
from steadypress.targets.site.target import SiteTarget
from steadypress.theme import Theme
from tests.helpers import site_target, to_the_first_sitemaps_layout, to_the_second_sitemaps_layout

FIXTURES = Path(__file__).parent / "fixtures"
SITEMAP_XSD = xmlschema.XMLSchema(FIXTURES / "sitemap-0.9.xsd")
SITEINDEX_XSD = xmlschema.XMLSchema(FIXTURES / "siteindex-0.9.xsd")
SITEMAPS = "http://www.sitemaps.org/schemas/sitemap/0.9"
URL = "https://blog.example/"
START = datetime(2000, 1, 1, tzinfo=UTC)


def post(n: int) -> Article:
    return Article(path=f"content/p{n}.md", blob="b1", title=f"P{n}", body="Text.",
                   date=START + timedelta(days=3 * n), tags=(f"t{n % 3}",))  # fmt: skip


def locations(document: bytes) -> list[str]:
    return [loc.text or "" for loc in ET.fromstring(document).iter(f"{{{SITEMAPS}}}loc")]  # noqa: S314


def check_sitemaps(site: Path, articles: int, url: str = URL) -> None:
    """The index names exactly the sitemap files there are; each is valid, lists only URLs
    under its own folder (the protocol's location rule) and holds the pages its number says,
    and every page of the site is in exactly one."""
    index = (site / SITEMAP).read_bytes()
    SITEINDEX_XSD.validate(index)
    assert b"<lastmod>" not in index, "the index carries no dates, so no publish must change it"
    named = {location.removeprefix(url) for location in locations(index)}
    assert named == {p.name for p in site.glob("sitemap-*.xml")}
    assert not (site / "sitemaps").exists(), "no sitemap of an earlier layout left"
    count, listed = sitemap_count(articles), []
    for path in named:
        document = (site / path).read_bytes()
        SITEMAP_XSD.validate(document)
        folder = url + path.rpartition("/")[0]
        for location in locations(document):
            assert location.startswith(folder), f"{location} is outside {path}'s folder"
            assert sitemap_file(location.removeprefix(url), count) == path, location
            listed.append(location)
    pages = [url + address_of(str(p.relative_to(site))) for p in site.rglob("index.html")]
    assert sorted(listed) == sorted(pages), "every page, once"
    laid_out = {LISTINGS_SITEMAP, *(f"sitemap-pages-{n}.xml" for n in range(count))}
    summary = json.loads((site / SUMMARY).read_bytes())
    assert set(summary["sitemaps"]["absent"]) == laid_out - named, "what the index is made from"


def test_one_sitemap_more_moves_the_pages_of_one_sitemap_only() -> None:
    """Linear hashing: going from S sitemaps to S + 1, the pages that move all leave one
    sitemap, S - 2^i, for the new one; no page is ever in a sitemap beyond the count."""
    addresses = [f"article-{n}/" for n in range(3000)]
    for count in range(1, 300):
        before = {address: sitemap_file(address, count) for address in addresses}
        after = {address: sitemap_file(address, count + 1) for address in addresses}
        moved = {address for address in addresses if before[address] != after[address]}
        split = count - (1 << (count.bit_length() - 1))
        assert {before[a] for a in moved} <= {f"sitemap-pages-{split}.xml"}
        assert {after[a] for a in moved} <= {f"sitemap-pages-{count}.xml"}
        assert len({*after.values()}) == count + 1, "3,000 pages fill every sitemap"
    assert sitemap_file("", 7) == sitemap_file("archive/", 7) == LISTINGS_SITEMAP


def test_the_sitemaps_split_and_merge_as_the_blog_grows_and_shrinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two articles a sitemap (to see it happen): published one by one, then a batch, then
    removed in a batch and one by one, the sitemaps stay exact after every write."""
    monkeypatch.setattr(sitemaps_module, "ARTICLES_PER_SITEMAP", 2)
    site = site_target(DirectorySiteFiles(tmp_path))
    for n in range(9):
        site.publish(post(n), None)
        check_sitemaps(tmp_path, n + 1)
    site.publish_batch([(post(n), None) for n in range(9, 20)])
    check_sitemaps(tmp_path, 20)
    numbered = {p.name for p in tmp_path.glob("sitemap-pages-*.xml")}
    # Ten sitemaps for twenty articles and their listing pages (one may happen to hold none).
    assert numbered <= {f"sitemap-pages-{n}.xml" for n in range(10)} and len(numbered) >= 9
    site.unpublish_batch([(f"content/p{n}.md", None) for n in range(0, 20, 3)])
    check_sitemaps(tmp_path, 13)
    for n in (1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17):
        site.unpublish(f"content/p{n}.md", None)
        check_sitemaps(tmp_path, sum(1 for _ in tmp_path.glob("p*/index.html")))
    assert [p.name for p in tmp_path.glob("sitemap-pages-*.xml")] == ["sitemap-pages-0.xml"]


@pytest.mark.parametrize("layout", [1, 2])
def test_the_sitemaps_of_an_earlier_layout_move_on_the_next_publish(
    tmp_path: Path, layout: int
) -> None:
    """Layout 1: 256 sitemaps by a hash of the path; layout 2: today's, under `sitemaps/`, out
    of the protocol's location rule. The next publish moves every page to the root's."""
    site: SiteTarget = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n), None) for n in range(60)])
    earlier = to_the_first_sitemaps_layout if layout == 1 else to_the_second_sitemaps_layout
    DirectorySiteFiles(tmp_path).apply(lambda files: earlier(files, URL))
    assert len(list((tmp_path / "sitemaps").glob("*.xml"))) > (20 if layout == 1 else 2)
    assert not list(tmp_path.glob("sitemap-*.xml"))
    site.publish(post(60), None)
    check_sitemaps(tmp_path, 61)
    assert sorted(p.name for p in tmp_path.glob("sitemap-*.xml")) == [
        "sitemap-home.xml", "sitemap-pages-0.xml", "sitemap-pages-1.xml"
    ]  # fmt: skip
    mark = json.loads((tmp_path / SUMMARY).read_text())["sitemaps"]
    assert mark == {"layout": 3, "url": URL, "absent": []}


@pytest.mark.parametrize("first_layout", [False, True])
def test_a_site_given_a_new_address_has_its_sitemaps_made_again_for_it(
    tmp_path: Path, first_layout: bool
) -> None:
    """Every URL a sitemap names is absolute: when the site's `url` changes (a custom domain),
    the next publish names every page at the new address, and no old sitemap is left (from
    either layout)."""
    site_target(DirectorySiteFiles(tmp_path)).publish_batch([(post(n), None) for n in range(60)])
    if first_layout:
        DirectorySiteFiles(tmp_path).apply(lambda files: to_the_first_sitemaps_layout(files, URL))
    moved = SiteTarget(
        "site", DirectorySiteFiles(tmp_path), settings=SiteSettings(),
        address=SiteAddress(url="https://www.example.com/", base_url="/"), content_dir="content",
        theme=Theme(), assets=lambda _path, **_commit: None,
    )  # fmt: skip
    moved.publish(post(60), None)
    check_sitemaps(tmp_path, 61, url="https://www.example.com/")


def test_a_url_of_another_site_in_a_sitemap_is_dropped_not_a_blocker(tmp_path: Path) -> None:
    """A sitemap edited by hand to name another site's page: the next publish that rewrites
    that sitemap leaves it out (it is no page of this site) and goes through."""
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n), None) for n in range(3)])
    only = tmp_path / "sitemap-pages-0.xml"
    pages = [(url, None) for url in locations(only.read_bytes())]
    only.write_bytes(sitemap([("https://elsewhere.example/x/", None), *pages]))
    site.publish(post(3), None)
    check_sitemaps(tmp_path, 4)


@pytest.mark.parametrize(
    "order",
    [
        ["a", "b", "a", "b-final", "a-finish"],
        ["a", "b", "b", "a", "a-finish", "b-finish"],
        ["a", "b", "a-final", "b", "b-finish"],
    ],
)
def test_runs_whose_batches_interleave_lose_no_page_from_the_sitemaps(
    tmp_path: Path, order: list[str]
) -> None:
    """Two runs publishing in batches into the same month, their writes interleaved: each
    leaves the sitemaps behind for its last write, and neither's last write may take the
    other's pages for its own (once an equal record of what was behind made a run flush its
    own changes alone, and the other run's pages were missing for good)."""
    root = tmp_path / "site"
    runs = {name: site_target(DirectorySiteFiles(root)) for name in ("a", "b")}
    batches = iter(range(0, 100, 2))
    for step in order:
        name, _, how = step.partition("-")
        if how == "finish":
            runs[name].finish()
            continue
        first = next(batches)
        work = [(post(n), None) for n in range(first, first + 2)]
        runs[name].publish_batch(work, final=how == "final")
    published = 2 * len([step for step in order if not step.endswith("finish")])
    check_sitemaps(root, published)
