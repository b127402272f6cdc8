"""Names in any script on the built-in site: a tag's page keeps the letters of its own script
(`новости`, `日本語`), `C++`, `C#` and `C` have a page each, an article file named in Cyrillic
is published, two tags that would share a page are refused naming both, and a site whose tag
pages were named the old way moves its articles to the new pages as they are published."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

import html5lib
import pytest

from steadypress.articles import Article
from steadypress.errors import PermanentError
from steadypress.slugs import slugify, tag_slug
from steadypress.targets.base import Receipt
from steadypress.targets.site import DirectorySiteFiles
from steadypress.targets.site import manifest as manifest_module
from steadypress.targets.site import refusals as refusals_module
from steadypress.targets.site.index import SUMMARY, tag_years_file
from steadypress.targets.site.manifest import tag_path
from tests.fakes.bluesky import FakeBluesky
from tests.fakes.devto import FakeForem
from tests.fakes.github import FakeGitHub
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.mastodon import FakeMastodon
from tests.helpers import Repo, article, run_cli, site_folder, site_target
from tests.test_sitemaps import check_sitemaps, locations

START = datetime(2024, 3, 1, tzinfo=UTC)
TAGS = ("новости", "日本語", "한국어", "C++", "C#", "C", "notícias")


def post(n: int, tags: tuple[str, ...], *, path: str | None = None, blob: str = "b1") -> Article:
    return Article(path=path or f"content/p{n}.md", blob=f"{blob}-{n}", title=f"P{n}",
                   body="Text.", date=START + timedelta(days=n), tags=tags)  # fmt: skip


def test_tags_in_any_script_and_with_symbols_each_have_a_page_of_their_own(tmp_path: Path) -> None:
    site = site_target(DirectorySiteFiles(tmp_path))
    results = site.publish_batch([(post(n, (tag,)), None) for n, tag in enumerate(TAGS)])
    assert not [r for r in results if isinstance(r, PermanentError)], results
    names = {p.parent.name for p in tmp_path.glob("tags/*/index.html")}
    assert names == {"новости", "日本語", "한국어", "cpp", "csharp", "c", "noticias"}
    page = (tmp_path / "p0/index.html").read_text()
    assert f'href="/tags/{quote("новости")}/"' in page, "a link carries its letters encoded"
    html5lib.HTMLParser(strict=True).parse(page)
    tags_index = (tmp_path / "tags/index.html").read_text()
    assert all(f">#{tag}<" in tags_index for tag in TAGS), tags_index
    check_sitemaps(tmp_path, len(TAGS))
    listed = {loc for p in tmp_path.glob("sitemap-*.xml") for loc in locations(p.read_bytes())}
    assert f"https://blog.example/tags/{quote('日本語')}/" in listed


def test_an_article_named_in_cyrillic_is_published_at_its_own_letters(tmp_path: Path) -> None:
    site = site_target(DirectorySiteFiles(tmp_path))
    (receipt,) = site.publish_batch([(post(1, (), path="content/Привет мир.md"), None)])
    assert isinstance(receipt, Receipt), receipt
    assert (tmp_path / "привет-мир/index.html").is_file()
    assert receipt.url == f"https://blog.example/{quote('привет-мир')}/"


def test_latin_names_keep_their_ascii_urls() -> None:
    """Every tag page ASCII spells stays where it was; one whose letters it cannot spell (`ß`,
    `ø`) keeps them now, where they were dropped (`strae`)."""
    for name in ("Notícias de Lisboa", "Ça va", "Hello World", "node.js", "Go"):
        assert tag_slug(name) == slugify(name)
    assert tag_slug("Straße") == "straße" and tag_slug("København") == "københavn"


def test_two_tags_on_one_page_are_refused_naming_both(tmp_path: Path) -> None:
    site = site_target(DirectorySiteFiles(tmp_path))
    first, second, same = site.publish_batch([
        (post(1, ("C#",)), None), (post(2, ("CSharp",)), None), (post(3, ("c#", "Go")), None),
    ])  # fmt: skip
    assert not isinstance(first, PermanentError) and not isinstance(same, PermanentError)
    assert isinstance(second, PermanentError)
    assert str(second) == (
        "tag 'CSharp' would share the page /tags/csharp/ with the tag 'C#' of other articles; "
        "spell one of them otherwise"
    )


def test_an_article_may_change_the_spelling_of_its_own_tag(tmp_path: Path) -> None:
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(1, ("C#",)), None)])
    (again,) = site.publish_batch([(post(1, ("CSharp",), blob="b2"), None)])
    assert not isinstance(again, PermanentError), again


def test_a_site_whose_tags_were_named_the_old_way_moves_them_as_its_articles_are_published(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Written when every tag outside ASCII was on `tags/tag/` and `C++` on `C`'s page: the
    articles published again (as a new render publishes every article) move to their own
    pages, the old pages go, and every sitemap and listing agrees with the index."""
    old_naming = lambda tag, latin=False: slugify(tag) or "tag"  # noqa: E731
    monkeypatch.setattr(manifest_module, "tag_slug", old_naming)
    monkeypatch.setattr(refusals_module, "same_tag", lambda _one, _other: True)  # merged silently
    tag_path.cache_clear()
    site = site_target(DirectorySiteFiles(tmp_path))
    site.publish_batch([(post(n, (tag,)), None) for n, tag in enumerate(TAGS)])
    assert {p.parent.name for p in tmp_path.glob("tags/*/index.html")} == {"tag", "c", "noticias"}
    spelt_three_ways = ["новости", "日本語", "한국어"]
    assert json.loads((tmp_path / SUMMARY).read_bytes())["tags"]["tags/tag/index.html"] == sorted(
        spelt_three_ways
    )
    years = json.loads((tmp_path / tag_years_file("tags/tag/index.html")).read_bytes())
    assert years["names"] == dict.fromkeys(spelt_three_ways, 1), "each spelling counted"
    monkeypatch.undo()
    tag_path.cache_clear()
    site = site_target(DirectorySiteFiles(tmp_path))
    # Half first, then the rest: a page holds old rows and new ones meanwhile.
    site.publish_batch([(post(n, (tag,), blob="b2"), None) for n, tag in enumerate(TAGS[:2])])
    assert (tmp_path / "tags/tag/index.html").exists(), "한국어 is still there"
    site.publish_batch([(post(n, (tag,), blob="b2"), None) for n, tag in enumerate(TAGS)])
    names = {p.parent.name for p in tmp_path.glob("tags/*/index.html")}
    assert names == {"новости", "日本語", "한국어", "cpp", "csharp", "c", "noticias"}
    summary = json.loads((tmp_path / SUMMARY).read_bytes())
    assert summary["tags"] == {tag_path(tag): [tag] for tag in TAGS}
    assert site.disagreements(repair=False) == []
    check_sitemaps(tmp_path, len(TAGS))
    before = site_folder(tmp_path)
    fresh = tmp_path.parent / "fresh"
    site_target(DirectorySiteFiles(fresh)).publish_batch(
        [(post(n, (tag,), blob="b2"), None) for n, tag in enumerate(TAGS)]
    )
    pages = {path: data for path, data in before.items() if path.endswith(".html")}
    assert pages == {p: d for p, d in site_folder(fresh).items() if p.endswith(".html")}, (
        "the same pages as a site made anew"
    )


def test_on_github_a_tag_in_its_own_script_is_a_page_of_the_pages_branch(
    repo: Repo, github: FakeGitHub
) -> None:
    repo.commit(**{"content/Привет мир.md": article("Привет", tags="[новости, C++]")})
    result = run_cli(repo, "run", "--backend", "github")
    assert result.code == 0, result.err
    listing = github.repository.text("ls-tree", "-r", "-z", "--name-only", "gh-pages")
    files = set(listing.split("\0"))
    assert {"привет-мир/index.html", "tags/новости/index.html", "tags/cpp/index.html"} <= files
    page = github.repository.text("show", "gh-pages:привет-мир/index.html")
    assert f'href="/blog/tags/{quote("новости")}/"' in page


def test_an_article_named_in_cyrillic_is_published_on_every_target(
    repo: Repo,
    served: str,
    *,
    forem: FakeForem,
    hashnode: FakeHashnode,
    mastodon: FakeMastodon,
    bluesky: FakeBluesky,
) -> None:
    """The site at its own letters, dev.to and Hashnode with a link to that page (Hashnode's
    slug in Latin letters, as its slugs are), Mastodon and Bluesky announcing it."""
    repo.commit(
        **{
            "steadypress.yml": (
                "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
                f"targets:\n  site: {{kind: site, url: '{served}'}}\n"
                f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
                f"  hn: {{kind: hashnode, publication_id: {hashnode.publication_id}, "
                f"api_url: '{hashnode.api_url}'}}\n"
                f"  masto: {{kind: mastodon, instance: '{mastodon.instance}'}}\n"
                f"  sky: {{kind: bluesky, handle: {bluesky.handle}, "
                f"service: '{bluesky.service}'}}\n"
            ),
            "content/Привет мир.md": article("Привет, мир", date="2024-01-01"),
        }
    )

    result = run_cli(repo, "run")

    assert result.code == 0, result.out + result.err
    page = f"{served}{quote('привет-мир')}/"
    assert (repo.root / "_site/привет-мир/index.html").is_file()
    (devto,) = forem.posts.values()
    assert devto["canonical_url"] == page
    (post,) = hashnode.posts.values()
    assert post["slug"] == "privet-mir"
    (status,) = mastodon.statuses.values()
    assert page in status["text"]
    (record,) = bluesky.records.values()
    assert "Привет, мир" in json.dumps(record, ensure_ascii=False)


def test_with_transliterate_pages_and_tags_are_named_in_latin_letters_on_every_target(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    """`transliterate: true`: an article and a tag named in another script are at addresses in
    Latin letters (`/privet-mir/`, `/tags/novosti/`), and the platforms link those; a name ASCII
    spells keeps its address. Turned on for a blog published without it, every page moves to
    its new address, and each old one is a redirect to it."""
    config = (
        "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, url: '{served}'@LATIN@}}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    )
    repo.commit(**{
        "steadypress.yml": config.replace("@LATIN@", ""),
        "content/Привет мир.md": article("Привет", date="2024-01-01", tags=["новости", "C++"]),
        "content/plain.md": article("Plain", date="2024-01-02", tags=["日本語"]),
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    site = repo.root / "_site"
    assert (site / "привет-мир/index.html").is_file() and (site / "tags/новости").is_dir()

    repo.commit(**{"steadypress.yml": config.replace("@LATIN@", ", transliterate: true")})
    result = run_cli(repo, "run")

    assert result.code == 0, result.err
    page = (site / "privet-mir/index.html").read_text()
    assert 'href="/tags/novosti/"' in page and 'href="/tags/cpp/"' in page
    assert {p.parent.name for p in site.glob("tags/*/index.html")} == {
        "novosti",
        "cpp",
        "ri-ben-yu",
    }
    assert (site / "plain/index.html").is_file(), "an ASCII name keeps its address"
    moved = (site / "привет-мир/index.html").read_text()
    assert f'content="0; url={served}privet-mir/"' in moved
    assert run_cli(repo, "status", "--site").code == 0
    # The platforms link each page where it is now: the posts sent before were sent again.
    repo.commit(**{"content/Новая статья.md": article("Новая", date="2024-01-03")})
    assert run_cli(repo, "run").code == 0
    posted = {post["title"]: post["canonical_url"] for post in forem.posts.values()}
    assert posted == {"Привет": f"{served}privet-mir/", "Plain": f"{served}plain/",
                      "Новая": f"{served}novaia-statia/"}  # fmt: skip
    assert (site / "novaia-statia/index.html").is_file()
