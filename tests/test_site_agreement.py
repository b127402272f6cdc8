"""The site's sitemaps and listing pages checked against its index (`status --site`), and made
again from it (`sweep --repair-site`): in a folder and on the Pages branch of the GitHub fake."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from steadypress.articles import Article
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site import sitemaps as sitemaps_module
from steadypress.targets.site.sitemaps import SITEMAP, sitemap_count, sitemap_file
from tests.fakes.github import FakeGitHub
from tests.helpers import Repo, Result, article, run_cli, site_folder, site_target
from tests.test_sitemaps import URL, check_sitemaps

START = datetime(2019, 1, 1, tzinfo=UTC)


def gh(repo: Repo, *args: str) -> Result:
    return run_cli(repo, *args, "--backend", "github")


def post(n: int) -> Article:
    return Article(path=f"content/p{n}.md", blob=f"b{n}", title=f"P{n}", body="Text.",
                   date=START + timedelta(days=40 * n), tags=(f"t{n % 3}",))  # fmt: skip


def published(tmp_path: Path, count: int = 12) -> Path:
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n), None) for n in range(count)])
    return tmp_path


def check(site: Path, *, repair: bool = False) -> list[str]:
    return site_target(DirectorySiteFiles(site)).disagreements(repair=repair)


def test_a_site_as_published_agrees_with_its_index_and_a_repair_writes_nothing(
    tmp_path: Path,
) -> None:
    site = published(tmp_path)
    before = site_folder(site)
    assert check(site) == []
    assert check(site, repair=True) == []
    assert site_folder(site) == before


def test_a_page_dropped_from_its_sitemap_is_named_and_put_back(tmp_path: Path) -> None:
    site = published(tmp_path)
    before = site_folder(site)
    holder = site / sitemap_file(_address_of(site, "p3"), sitemap_count(12))
    text = holder.read_text()
    cut = re.sub(r"<url>\s*<loc>[^<]*/p3/</loc>.*?</url>\s*", "", text, flags=re.S)
    assert cut != text
    holder.write_text(cut)
    lines = check(site)
    assert len(lines) == 1
    assert lines[0].startswith(f"{holder.relative_to(site)}: lacks 1 page (/")
    assert "p3/" in lines[0]
    assert holder.read_text() == cut, "a check writes nothing"
    assert check(site, repair=True) == lines
    assert site_folder(site) == before
    check_sitemaps(site, 12)
    assert check(site) == []


def test_a_page_the_site_does_not_have_listed_in_a_sitemap_is_named(tmp_path: Path) -> None:
    site = published(tmp_path)
    holder = site / "sitemap-home.xml"
    text = holder.read_text()
    holder.write_text(text.replace("</urlset>", f"<url><loc>{URL}gone/</loc></url>\n</urlset>"))
    assert check(site) == ["sitemap-home.xml: lists 1 page (/gone/) the site does not have there"]
    check(site, repair=True)
    assert holder.read_text() == text


def test_a_listing_page_edited_or_deleted_is_named_and_made_again(tmp_path: Path) -> None:
    site = published(tmp_path)
    before = site_folder(site)
    month = next(p for p in sorted(site.glob("archive/20*/*/index.html")))
    month.write_text(month.read_text().replace("P0", "P0 (edited by hand)"))
    tag = site / "tags/t1/index.html"
    tag.unlink()
    named = sorted(check(site))
    assert named == [
        f"{month.relative_to(site)}: not what the index lists",
        "tags/t1/index.html: missing",
    ]
    check(site, repair=True)
    assert site_folder(site) == before


def test_a_sitemap_deleted_and_one_left_over_are_both_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sitemaps_module, "ARTICLES_PER_SITEMAP", 2)
    site = published(tmp_path, count=9)
    before = site_folder(site)
    (site / "sitemap-pages-0.xml").unlink()
    (site / "sitemap-pages-40.xml").write_text((site / "sitemap-pages-1.xml").read_text())
    named = check(site)
    assert "sitemap-pages-0.xml: missing" in named
    assert "sitemap-pages-40.xml: lists no page of the site; it should be gone" not in named, (
        "a file the index does not name is not the site's: left alone"
    )
    check(site, repair=True)
    (site / "sitemap-pages-40.xml").unlink()
    assert site_folder(site) == before
    check_sitemaps(site, 9)


def test_a_sitemap_index_that_names_a_stray_file_has_it_removed(tmp_path: Path) -> None:
    site = published(tmp_path)
    before = site_folder(site)
    stray = site / "sitemap-pages-7.xml"
    stray.write_text((site / "sitemap-pages-0.xml").read_text())
    index = site / SITEMAP
    index.write_text(index.read_text().replace(
        "</sitemapindex>", f"<sitemap><loc>{URL}sitemap-pages-7.xml</loc></sitemap></sitemapindex>"
    ))  # fmt: skip
    named = check(site)
    assert f"{SITEMAP}: does not name the sitemaps the site has" in named
    assert "sitemap-pages-7.xml: lists no page of the site; it should be gone" in named
    check(site, repair=True)
    assert site_folder(site) == before


def _address_of(site: Path, name: str) -> str:
    """The address (relative to the site) of the page of the article `name`."""
    (page,) = site.glob(f"**/{name}/index.html")
    return str(page.parent.relative_to(site)) + "/"


def test_on_github_status_names_a_hand_edited_sitemap_and_listing_and_a_sweep_repairs_them(
    repo: Repo, github: FakeGitHub
) -> None:
    """On the Pages branch: `status --site` names what a hand edit broke and writes nothing
    (exit 1); `sweep --repair-site` writes them again in one commit; then all agree (exit 0)."""
    repo.commit(**{f"content/p{n}.md": article(f"P{n}", tags="[news]") for n in range(6)})
    assert "6 published" in gh(repo, "sweep").out
    head = github.repository.head_of("gh-pages")
    assert head is not None
    good = {path: github.repository.text("show", f"{head}:{path}") for path in
            ("sitemap-home.xml", "tags/news/index.html")}  # fmt: skip
    github.repository.edit("gh-pages", {
        "sitemap-home.xml": b"<?xml version='1.0'?><urlset "
                             b"xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'></urlset>",
        "tags/news/index.html": b"<p>edited by hand</p>",
    }, "hand edit")  # fmt: skip
    edited = github.repository.head_of("gh-pages")
    checked = gh(repo, "status", "--site")
    assert checked.code == 1, checked.err
    assert "site: sitemap-home.xml: lacks 3 pages (/, /archive/, /tags/)" in checked.out
    assert "site: tags/news/index.html: not what the index lists" in checked.out
    assert "`steadypress sweep --repair-site`" in checked.out
    assert github.repository.head_of("gh-pages") == edited, "status writes nothing"
    repaired = gh(repo, "sweep", "--repair-site")
    assert repaired.code == 0, repaired.err
    assert "site: 2 file(s) written again from the site's index" in repaired.out
    head = github.repository.head_of("gh-pages")
    assert github.repository.text("rev-list", "--count", f"{edited}..{head}") == "1"
    for path, text in good.items():
        assert github.repository.text("show", f"{head}:{path}") == text
    again = gh(repo, "status", "--site")
    assert again.code == 0 and "agree with the site's index" in again.out


def test_status_site_on_a_folder_site_and_its_json_stays_json(repo: Repo) -> None:
    repo.commit(**{f"content/p{n}.md": article(f"P{n}") for n in range(3)})
    assert run_cli(repo, "run").code == 0
    month = next(iter(sorted((repo.root / "_site").glob("archive/*/*/index.html"))))
    month.unlink()
    checked = run_cli(repo, "status", "--site", "--json")
    assert checked.code == 1
    json.loads(checked.out)
    assert f"site: {month.relative_to(repo.root / '_site')}: missing" in checked.err
    assert run_cli(repo, "sweep", "--repair-site").code == 0
    assert month.exists()
    assert run_cli(repo, "status", "--site").code == 0
