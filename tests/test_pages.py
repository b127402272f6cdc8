"""A page beside the articles (`layout: page`, Hugo's `type: page`, a file in `pages/` or
another place the configuration's `pages` names): at its URL on the site, in
the sitemaps and, where `menu` names it, the header; never on the front page, an archive, a
tag's page, the feed or a neighbour's links, and never sent to a platform."""

from __future__ import annotations

import json

import pytest
import yaml

from steadypress.config import parse_config
from steadypress.errors import ConfigError
from tests.fakes.devto import FakeForem
from tests.helpers import Repo, article, run_cli
from tests.schema import VALIDATORS

ABOUT = "---\ntitle: About me\nlayout: page\ntags: [life]\n---\nWho writes here.\n"


def config(served: str, forem: FakeForem) -> str:
    return (
        "timings: {grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"
        f"targets:\n  site: {{kind: site, url: '{served}', menu: {{About: /about/, "
        "Code: 'https://example.net/code'}}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 2s}}\n"
    )


def site_text(repo: Repo) -> dict[str, str]:
    site = repo.root / "_site"
    return {
        path.relative_to(site).as_posix(): path.read_text(encoding="utf-8")
        for path in site.rglob("*")
        if path.is_file() and path.suffix in (".html", ".xml")
    }


def test_a_page_is_on_the_site_and_in_the_menu_but_listed_nowhere_and_sent_nowhere(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    repo.commit(
        **{
            "steadypress.yml": config(served, forem),
            "content/about.md": ABOUT,
            "content/first.md": article("First", date="2024-01-01", tags=["life"]),
            "content/second.md": article("Second", date="2024-01-02"),
        }
    )

    result = run_cli(repo, "run")

    assert result.code == 0, result.err
    files = site_text(repo)
    assert "Who writes here." in files["about/index.html"]
    assert "<time" not in files["about/index.html"], "a page shows no date"
    header = '<nav class="site"><a href="/about/">About</a> <a href="https://example.net/code">'
    assert all(header in text for name, text in files.items() if name.endswith("index.html"))
    listed = {name for name, text in files.items() if "About me" in text}
    assert listed == {"about/index.html"}, "on no listing, feed or neighbour's links"
    assert "about/" in "".join(text for name, text in files.items() if name.startswith("sitemap-"))
    assert not (repo.root / "_site/tags/life/index.html").read_text().count('/about/">About me')
    assert sorted(post["title"] for post in forem.posts.values()) == ["First", "Second"]
    index = sorted((repo.root / "_site/.steadypress").rglob("*.json"))
    for file in index:  # the page in the summary and its entry, as state/schema says
        VALIDATORS["site-index"].validate(json.loads(file.read_bytes()))
    assert '"is_page": true' in "".join(file.read_text() for file in index)


def test_an_article_that_becomes_a_page_leaves_the_listings_and_the_platforms(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    repo.commit(
        **{
            "steadypress.yml": config(served, forem),
            "content/about.md": article("About me", date="2024-01-03"),
            "content/first.md": article("First", date="2024-01-01"),
        }
    )
    assert run_cli(repo, "run").code == 0
    assert "About me" in (repo.root / "_site/index.html").read_text()

    repo.commit(**{"content/about.md": ABOUT})
    assert run_cli(repo, "run").code == 0

    files = site_text(repo)
    assert {name for name, text in files.items() if "About me" in text} == {"about/index.html"}
    about_on_devto = [post for post in forem.posts.values() if post["title"] == "About me"]
    assert [post["published"] for post in about_on_devto] == [False], "unpublished there"

    repo.git("rm", "-q", "content/about.md")
    repo.commit("the page goes")
    assert run_cli(repo, "run").code == 0
    assert not (repo.root / "_site/about").exists()
    summary = json.loads((repo.root / "_site/.steadypress/summary.json").read_text())
    assert "pages" not in summary
    assert run_cli(repo, "status", "--site").code == 0


def test_hugos_type_page_marks_a_page_and_status_finds_the_sitemaps_agree(repo: Repo) -> None:
    repo.commit(
        **{
            "content/now.md": "---\ntitle: Now\ntype: page\n---\nWhat I do now.\n",
            "content/first.md": article("First", date="2024-01-01"),
        }
    )
    assert run_cli(repo, "run").code == 0
    assert "Now" not in (repo.root / "_site/index.html").read_text()
    assert (repo.root / "_site/now/index.html").is_file()
    status = run_cli(repo, "status", "--site")
    assert status.code == 0, status.out


@pytest.mark.parametrize(
    "case",
    [
        ("", {"pages/about.md"}, {"now.md"}),  # the folder of pages, as Pelican's
        ("pages: [now.md, notes/]\n", {"now.md"}, {"pages/about.md"}),
        ("pages: []\n", set(), {"now.md", "pages/about.md"}),
    ],
    ids=["pages/ by default", "files and folders named", "none"],
)
def test_a_file_is_a_page_by_its_place_as_the_configuration_names_it(
    repo: Repo, forem: FakeForem, served: str, case: tuple[str, set[str], set[str]]
) -> None:
    setting, pages, articles = case  # the setting, the files it makes pages, and articles
    repo.commit(
        **{
            "steadypress.yml": setting + config(served, forem),
            "content/pages/about.md": "---\ntitle: About me\n---\nWho writes here.\n",
            "content/now.md": "---\ntitle: Now\n---\nWhat I do now.\n",
        }
    )
    assert run_cli(repo, "run").code == 0
    front = (repo.root / "_site/index.html").read_text()
    titles = {"pages/about.md": "About me", "now.md": "Now"}
    assert {path for path, title in titles.items() if f">{title}</a>" in front} == articles
    assert {post["title"] for post in forem.posts.values()} == {titles[p] for p in articles}
    for path in pages | articles:
        assert (repo.root / "_site" / path.removesuffix(".md") / "index.html").is_file()


def test_a_change_to_the_pages_setting_reaches_every_target_with_the_run_of_its_commit(
    repo: Repo, forem: FakeForem, served: str
) -> None:
    """`pages` naming a file that was an article makes it a page with the next run, no edit of
    the file needed: the site's look depends on the setting, so every page is written again,
    and a platform unpublishes it; taken out of the setting, it is an article everywhere."""
    repo.commit(**{
        "steadypress.yml": config(served, forem),
        "content/now.md": "---\ntitle: Now\n---\nWhat I do now.\n",
        "content/post.md": "---\ntitle: A post\n---\nWords.\n",
    })  # fmt: skip
    assert run_cli(repo, "run").code == 0
    assert ">Now</a>" in (repo.root / "_site/index.html").read_text()

    repo.commit(**{"steadypress.yml": "pages: [now.md]\n" + config(served, forem)})
    assert run_cli(repo, "run").code == 0

    texts = site_text(repo)
    assert ">Now</a>" not in texts["index.html"] and "<title>Now</title>" not in texts["feed.xml"]
    assert ">A post</a>" in texts["index.html"] and (repo.root / "_site/now/index.html").is_file()
    now_on_devto = [post for post in forem.posts.values() if post["title"] == "Now"]
    assert [post["published"] for post in now_on_devto] == [False], "unpublished there"
    assert [post["published"] for post in forem.posts.values() if post["title"] == "A post"] == [
        True
    ]

    repo.commit(**{"steadypress.yml": "pages: []\n" + config(served, forem)})
    assert run_cli(repo, "run").code == 0

    assert ">Now</a>" in (repo.root / "_site/index.html").read_text()
    assert [post["published"] for post in forem.posts.values() if post["title"] == "Now"] == [True]


@pytest.mark.parametrize(
    ("value", "message"),
    [("pages/", "pages: a list of files"), (["../up"], "'../up' is not a path inside"),
     (["/etc"], "'/etc' is not a path inside"), ([3], "pages: a list")],
)  # fmt: skip
def test_pages_that_are_no_list_of_paths_inside_the_content_are_refused(
    value: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config({"pages": value}, source="steadypress.yml")


@pytest.mark.parametrize(
    ("menu", "message"),
    [
        ("[about]", "menu: a mapping of titles to links"),
        ("{About: about}", "'About' links to 'about': a path of the site"),
        ("{About: 'javascript:alert(1)'}", "a path of the site"),
    ],
)
def test_a_menu_that_is_not_titles_to_links_is_refused(menu: str, message: str) -> None:
    raw = {"targets": {"site": {"kind": "site", "menu": yaml.safe_load(menu)}}}
    with pytest.raises(ConfigError, match=message):
        parse_config(raw, source="steadypress.yml")
