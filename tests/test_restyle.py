"""A site follows its settings and its theme: a change to either publishes every article to it
again at the next reconcile, with no one asking, a window at a time like an import, and so does
a local site's folder deleted; a state written before looks were recorded takes the look the
site has, and publishes nothing again."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import pytest

from steadypress import executor, planning
from steadypress.codec import RECONCILED_FILE, encode_state
from steadypress.errors import StateError, TransientError
from steadypress.ledger import Backlog, Ledger, Look, Reconciled
from steadypress.statedecode import decode_state
from steadypress.targets.site import parts as parts_module
from steadypress.targets.site.index import STYLED
from steadypress.targets.site.target import SiteTarget
from steadypress.theme import SINGLE_TEMPLATES, Theme
from tests.helpers import Repo, article, run_cli
from tests.schema import validate_state_file

ARTICLES = {f"content/p{n}.md": article(f"P{n}", tags="[news]") for n in range(10)}


def _pages(repo: Repo) -> dict[str, str]:
    """Every HTML page of the local site, by its path there."""
    site = repo.root / "_site"
    return {str(page.relative_to(site)): page.read_text() for page in site.rglob("*.html")}


def _titles(repo: Repo) -> set[str]:
    """The site's name as each page's title ends with it (`Title · Site`, or the site alone)."""
    titles = set()
    for text in _pages(repo).values():
        (title,) = re.findall(r"<title>([^<]*)</title>", text)
        titles.add(title.rpartition(" · ")[2])
    return titles


def test_a_new_site_title_reaches_every_page_a_window_at_a_time(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(planning, "ADMISSION", 4)
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    assert _titles(repo) == {"steadypress"}

    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, title: My Blog}\n"})
    result = run_cli(repo, "run")
    assert "10 published" in result.out, result.out + result.err
    assert "the look of site changed" in result.err
    assert _titles(repo) == {"My Blog"}  # articles, front page, archive, months, tags, 404
    assert "<title>My Blog</title>" in (repo.root / "_site/feed.xml").read_text()
    assert "0 published" in run_cli(repo, "run").out, "published once, not at every run"
    markers = [
        repo.git("show", f"{commit}:{RECONCILED_FILE}")
        for commit in repo.git("rev-list", "steadypress-state").split()
    ]
    assert any('"restyle"' in marker for marker in markers), "the windows carried the restyle"
    for marker in markers:
        validate_state_file(RECONCILED_FILE, marker.encode())


def test_a_push_that_changes_the_look_publishes_every_article_in_its_own_run(
    repo: Repo,
) -> None:
    """The push event is the main path: the run of the push that commits a new title (and an
    article with it) publishes that article and every other one again, not the next sweep."""
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    before = repo.head()
    config = "targets:\n  site: {kind: site, title: My Blog}\n"
    after = repo.commit(**{"steadypress.yml": config, "content/new.md": article("New")})
    result = run_cli(repo, "drain", "--push", before, after)
    assert "11 published" in result.out, result.out + result.err
    assert _titles(repo) == {"My Blog"}
    assert "0 published" in run_cli(repo, "sweep").out


def test_status_says_a_restyle_is_under_way(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """An executor stopped after the restyle's first window (as one killed would): status says
    what is left and that it is published again; the next sweep finishes it."""
    monkeypatch.setattr(planning, "ADMISSION", 4)
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, title: My Blog}\n"})
    with monkeypatch.context() as patch:
        patch.setattr(executor, "admission", lambda _pipeline: lambda ledger, _now: (ledger, []))
        assert "4 published" in run_cli(repo, "run").out
    assert "to publish again to site (its look changed)" in run_cli(repo, "status").out
    assert "6 published" in run_cli(repo, "sweep").out
    assert _titles(repo) == {"My Blog"}


def test_a_theme_edit_reaches_every_page(repo: Repo) -> None:
    shipped = (resources.files("steadypress") / "theme" / "base.html").read_text()

    def theme(mark: str) -> str:
        return shipped.replace("<body>", f"<body><!--{mark}-->", 1)

    config = "targets:\n  site: {kind: site, theme: look}\n"
    repo.commit(**ARTICLES, **{"steadypress.yml": config, "look/base.html": theme("first")})
    assert "10 published" in run_cli(repo, "run").out
    assert all("<!--first-->" in text for text in _pages(repo).values())

    repo.commit(**{"look/base.html": theme("second")})
    result = run_cli(repo, "run")
    assert "10 published" in result.out, result.out + result.err
    pages = _pages(repo)
    assert all("<!--second-->" in text and "<!--first-->" not in text for text in pages.values())
    assert {"index.html", "archive/index.html", "tags/news/index.html"} <= pages.keys()


def test_a_deleted_site_folder_is_published_again_whole(repo: Repo) -> None:
    """`rm -rf _site` and a run: every article is published again (its listings and feed
    too), with no one asking, and only once."""
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    before = _pages(repo)
    shutil.rmtree(repo.root / "_site")
    result = run_cli(repo, "run")
    assert "10 published" in result.out, result.out + result.err
    assert "holds no index" in result.err
    assert _pages(repo) == before
    assert (repo.root / "_site/feed.xml").exists() and (repo.root / "_site/sitemap.xml").exists()
    assert "0 published" in run_cli(repo, "run").out


@pytest.mark.parametrize(
    "recorded",
    [
        None,
        "4f" * 32,
        {"pages": "4f" * 32, "static": "5e" * 32},
        {"pages": "4f" * 32, "singles": "5e" * 32},
    ],
    ids=["no looks", "one digest a look", "pages and static", "pages and singles"],
)
def test_a_state_without_looks_takes_the_look_the_site_has(
    repo: Repo, recorded: str | dict[str, str] | None
) -> None:
    """An upgrade from a steadypress that recorded no look, one digest for the whole of it
    (before the stylesheet had its own), `pages` and `static` (before the front page, archive
    and tags page were written alone), or `pages` and `singles` (before the listing pages
    were), does not publish a blog again."""
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    marker = json.loads(repo.state_file("state/reconciled.json"))
    if recorded is None:
        del marker["reconciled"]["looks"]
    else:
        marker["reconciled"]["looks"] = {"site": recorded}
    validate_state_file(RECONCILED_FILE, json.dumps(marker).encode())
    repo.overwrite_state_file("state/reconciled.json", json.dumps(marker).encode())
    stripped = repo.ledger().reconciled
    assert stripped is not None and stripped.looks == ()

    assert "0 published" in run_cli(repo, "run").out
    reconciled = repo.ledger().reconciled
    assert reconciled is not None and [name for name, _look in reconciled.looks] == ["site"]


def test_a_push_after_an_upgrade_moves_the_marker_on_and_records_the_look(repo: Repo) -> None:
    """The push path adopts the look as the reconcile does: the marker moves on to the push's
    commit (so the next sweep compares nothing), with the site's look recorded."""
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    marker = json.loads(repo.state_file("state/reconciled.json"))
    del marker["reconciled"]["looks"]
    repo.overwrite_state_file("state/reconciled.json", json.dumps(marker).encode())
    before = repo.head()
    after = repo.commit(**{"content/new.md": article("New")})
    assert "1 published" in run_cli(repo, "drain", "--push", before, after).out
    reconciled = repo.ledger().reconciled
    assert reconciled is not None and reconciled.commit == after
    assert [name for name, _look in reconciled.looks] == ["site"]


def test_a_site_is_not_published_again_for_a_change_that_is_not_its_look(repo: Repo) -> None:
    """Another target added, the configuration's comments edited: the site's look is the same."""
    repo.commit(**ARTICLES, **{"steadypress.yml": "targets:\n  site: {kind: site}\n"})
    assert "10 published" in run_cli(repo, "run").out
    repo.commit(**{"steadypress.yml": "# the blog\ntargets:\n  site: {kind: site}\n"})
    result = run_cli(repo, "run")
    assert "0 published" in result.out and "look" not in result.err


def test_looks_and_a_restyle_round_trip_and_garbage_in_them_is_refused() -> None:
    backlog = Backlog(since=None, after="content/p3.md", newest_first=True, restyle=("site",))
    look = Look(pages="ab12", listings="ef56", singles="cd34")
    marker = Reconciled("c" * 40, ("site",), "0" * 40, backlog, looks=(("site", look),))
    ledger = Ledger(reconciled=marker)
    files = encode_state(ledger)
    validate_state_file(RECONCILED_FILE, files[RECONCILED_FILE])
    assert decode_state(files).reconciled == marker
    for looks in (
        {"site": 7},
        ["site"],
        {"site": {"pages": "ab12"}},
        {"site": {"pages": "ab12", "listings": "ef56", "singles": ""}},
        {"site": {"pages": "ab12", "listings": "ef56", "singles": "cd34", "more": "x"}},
        {"site": {"pages": "ab12", "static": "cd34", "singles": "ef56"}},
        {"site": {"pages": "ab12", "listings": "ef56"}},
    ):
        document = json.loads(files[RECONCILED_FILE])
        document["reconciled"]["looks"] = looks
        with pytest.raises(StateError, match="looks"):
            decode_state({**files, RECONCILED_FILE: json.dumps(document).encode()})


THEMED_CONFIG = {"steadypress.yml": "targets:\n  site: {kind: site, theme: theme}\n"}
THEMED = {**THEMED_CONFIG, **ARTICLES}


def _site_files(repo: Repo) -> dict[str, tuple[bytes, int]]:
    """Every file of the local site: its bytes and when it was last written."""
    site = repo.root / "_site"
    return {
        str(path.relative_to(site)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in site.rglob("*")
        if path.is_file()
    }


_MISSING = '{% extends "base.html" %}{% block main %}MESSAGE{% endblock %}\n'


def _shipped_marked(template: str, mark: str) -> str:
    """The shipped `template` with `mark` at the start of its main block."""
    shipped = (resources.files("steadypress") / "theme" / template).read_text()
    return shipped.replace("{% block main %}", "{% block main %}" + mark, 1)


@pytest.mark.parametrize(
    ("template", "written", "texts"),
    [
        ("style.css", "style.css", ("body { color: red; }\n", "body { color: teal; }\n", "teal")),
        ("404.html", "404.html", (_MISSING.replace("MESSAGE", "Not here"),
                                  _MISSING.replace("MESSAGE", "Gone fishing"), "Gone fishing")),
        *(
            (template, page, (_shipped_marked(template, "<p>first</p>"),
                              _shipped_marked(template, "<p>second</p>"), "<p>second</p>"))
            for template, page in (
                ("index.html", "index.html"),
                ("archive.html", "archive/index.html"),
                ("tags.html", "tags/index.html"),
            )
        ),
    ],
)  # fmt: skip
def test_an_edit_of_a_single_files_template_rewrites_that_file_alone(
    repo: Repo, template: str, written: str, texts: tuple[str, str, str]
) -> None:
    """The stylesheet, the 404 page, the front page, the archive and the tags page are files
    the site has one of, which no other page holds: an edit to one's template (`texts`: the
    first, the edit, what the edit shows) rewrites that file in the run of its push, and not
    one other page."""
    first, edit, mark = texts
    repo.commit(**THEMED, **{f"theme/{template}": first})
    assert "10 published" in run_cli(repo, "run").out
    before = _site_files(repo)
    start = repo.head()
    pushed = repo.commit(**{f"theme/{template}": edit})
    result = run_cli(repo, "drain", "--push", start, pushed)
    assert result.code == 0 and "0 published" in result.out, result.out + result.err
    assert "page of site changed: written again" in result.err
    after = _site_files(repo)
    assert {path for path in after if after[path] != before.get(path)} == {written, STYLED}
    assert mark in after[written][0].decode()
    reconciled = repo.ledger().reconciled
    assert reconciled is not None and reconciled.commit == pushed
    quiet = run_cli(repo, "sweep")
    assert "0 published" in quiet.out and "changed" not in quiet.err, "written once"
    assert _site_files(repo) == after


# Twelve articles over two years, three months a year, two tags.
SPREAD = {
    f"content/s{n:02d}.md": article(
        f"S{n}", date=f"{2024 + n % 2}-{1 + n % 3:02d}-{10 + n}",
        tags="[news, misc]" if n % 2 else "[news]",
    )
    for n in range(12)
}  # fmt: skip
_LISTED = {
    "month.html": r"archive/\d{4}/\d{2}/index\.html",
    "year.html": r"archive/\d{4}/index\.html",
    "tag.html": r"tags/[a-z]+/(\d{4}/)?index\.html",
    "list.html": r"index\.html|archive/\d{4}/\d{2}/index\.html|tags/[a-z]+/(\d{4}/)?index\.html",
}


def _marked(template: str, mark: str) -> str:
    """The shipped `template` showing `mark`: in its main block, or first for a partial."""
    shipped = (resources.files("steadypress") / "theme" / template).read_text()
    if "{% block main %}" in shipped:
        return shipped.replace("{% block main %}", "{% block main %}" + mark, 1)
    return mark + shipped


@pytest.mark.parametrize("template", sorted(_LISTED))
def test_an_edit_of_a_listings_template_rewrites_the_listing_pages_alone(
    repo: Repo, template: str
) -> None:
    """A month's, a year's or a tag's page template, or the list they share, shows on no
    article's page: an edit to it rewrites every listing page that shows it (a year's months,
    a tag's years, the front page for the shared list) in the run of its push, and not one
    article's page."""
    repo.commit(**THEMED_CONFIG, **SPREAD, **{f"theme/{template}": _marked(template, "<p>1</p>")})
    assert "12 published" in run_cli(repo, "run").out
    before = _site_files(repo)
    start = repo.head()
    pushed = repo.commit(**{f"theme/{template}": _marked(template, "<p>2</p>")})
    result = run_cli(repo, "drain", "--push", start, pushed)
    assert result.code == 0 and "0 published" in result.out, result.out + result.err
    assert "listing pages of site changed: written again" in result.err
    after = _site_files(repo)
    changed = {path for path in after if after[path] != before.get(path)} - {STYLED}
    showing = {path for path, (data, _mtime) in after.items() if b"<p>2</p>" in data}
    listed = {path for path in after if re.fullmatch(_LISTED[template], path)}
    assert changed == showing == listed, (changed, showing, listed)
    assert not any(re.fullmatch(r"s\d\d/index\.html", path) for path in changed)
    quiet = run_cli(repo, "sweep")
    assert "0 published" in quiet.out and "changed" not in quiet.err, "written once"
    assert _site_files(repo) == after


def test_a_crowded_months_every_part_page_follows_its_template(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A month of 30 articles kept in parts of at most 8 rows: an edit of the month page's
    template rewrites the month's page and the page of every older part, and only those of
    the archive."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    crowded = {f"content/c{n:02d}.md": article(f"C{n}", date=f"2025-03-{1 + n % 28:02d}")
               for n in range(30)}  # fmt: skip
    repo.commit(
        **THEMED_CONFIG, **crowded, **{"theme/month.html": _marked("month.html", "<p>1</p>")}
    )
    assert "30 published" in run_cli(repo, "run").out
    before = _site_files(repo)
    parts = {path for path in before if re.fullmatch(r"archive/2025/03/p\d+/index\.html", path)}
    assert len(parts) >= 2, sorted(before)
    start = repo.head()
    pushed = repo.commit(**{"theme/month.html": _marked("month.html", "<p>2</p>")})
    assert "0 published" in run_cli(repo, "drain", "--push", start, pushed).out
    after = _site_files(repo)
    changed = {path for path in after if after[path] != before.get(path)} - {STYLED}
    assert changed == {"archive/2025/03/index.html", *parts}
    assert all(b"<p>2</p>" in after[path][0] for path in changed)


def test_a_listings_template_an_article_page_includes_is_published_with_every_page(
    repo: Repo,
) -> None:
    """A template of the listing pages that an article's page includes too: an edit to it has
    every article published again, as for a template of every page."""
    shipped = (resources.files("steadypress") / "theme" / "article.html").read_text()
    including = shipped.replace("{% block main %}", '{% block main %}{% include "list.html" %}')
    repo.commit(**THEMED_CONFIG, **SPREAD, **{"theme/article.html": including,
                                               "theme/list.html": "<p>L1</p>\n"})  # fmt: skip
    assert "12 published" in run_cli(repo, "run").out
    repo.commit(**{"theme/list.html": "<p>L2</p>\n"})
    result = run_cli(repo, "run")
    assert "12 published" in result.out, result.out + result.err
    assert "changed in a template its other pages include" in result.err
    assert "<p>L2</p>" in (repo.root / "_site" / "s00" / "index.html").read_text()


def test_a_stylesheet_a_page_includes_is_published_with_every_page(repo: Repo) -> None:
    """A theme whose pages hold the stylesheet (inlined by an include) has every article
    published again when it changes, as for any other template of the pages."""
    base = (resources.files("steadypress") / "theme" / "base.html").read_text()
    inlined = base.replace("</head>", '<style>{% include "style.css" %}</style>\n</head>')
    repo.commit(**THEMED, **{"theme/base.html": inlined, "theme/style.css": "p { color: red }"})
    assert "10 published" in run_cli(repo, "run").out
    repo.commit(**{"theme/style.css": "p { color: blue }"})
    result = run_cli(repo, "run")
    assert "10 published" in result.out, result.out + result.err
    assert "changed in a template its other pages include" in result.err
    pages = _pages(repo)
    assert pages and all(
        "color: blue" in text for path, text in pages.items() if path != "404.html"
    )


def test_a_stylesheet_that_could_not_be_written_is_written_by_the_next_run(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marker keeps the stylesheet's look as it was until its write lands: a write that
    failed (GitHub down a moment) is reported as deferred (the run fails, so it is seen) and
    made again by the next run, with nothing asked."""
    repo.commit(**THEMED, **{"theme/style.css": "p { color: red }"})
    assert "10 published" in run_cli(repo, "run").out
    repo.commit(**{"theme/style.css": "p { color: blue }"})
    refresh = SiteTarget.refresh

    def unavailable(_self: SiteTarget, _parts: object) -> bool:
        raise TransientError("the Pages branch did not answer")

    monkeypatch.setattr(SiteTarget, "refresh", unavailable)
    failed = run_cli(repo, "run")
    assert failed.code == 1 and "1 deferred" in failed.out, failed.out + failed.err
    assert "its stylesheet, 404 page, front page, archive and tags page could not be written" in (
        failed.err
    )
    assert "red" in (repo.root / "_site/style.css").read_text()
    monkeypatch.setattr(SiteTarget, "refresh", refresh)
    result = run_cli(repo, "run")
    assert result.code == 0 and "page of site changed: written again" in result.err
    assert "blue" in (repo.root / "_site/style.css").read_text()


def test_what_the_pages_reach_of_a_theme() -> None:
    """A template the pages extend, include or import, however deep, or one named only when a
    page renders, counts; the shipped theme's pages reach none of the single files' templates."""
    themes = {
        "shipped": {},
        "a partial that includes the 404 page": {
            "article.html": '{% extends "base.html" %}{% block main %}'
            '{% include "parts/foot.html" %}{% endblock %}',
            "parts/foot.html": '{% include "404.html" %}',
        },
        "an include from a variable": {"tag.html": "{% include site.title %}"},
        "a stylesheet linked, not included": {
            "base.html": '<link rel="stylesheet" href="style.css">{% block main %}{% endblock %}'
        },
    }

    def theme(files: dict[str, str]) -> Theme:
        return Theme(lambda name: files[name].encode() if name in files else None)

    reached = {name: theme(files).pages_reach(SINGLE_TEMPLATES) for name, files in themes.items()}
    assert reached == {
        "shipped": False,
        "a partial that includes the 404 page": True,
        "an include from a variable": True,
        "a stylesheet linked, not included": False,
    }


def test_a_stylesheet_that_does_not_render_fails_the_run_and_names_its_file(repo: Repo) -> None:
    """A broken stylesheet template keeps the site's last stylesheet and fails each run, naming
    the file, until it is fixed (an article published meanwhile dies of it, as every page
    write writes the stylesheet); the fix's run writes it, and revives that article."""
    repo.commit(**THEMED, **{"theme/style.css": "p { color: red }"})
    assert "10 published" in run_cli(repo, "run").out
    repo.commit(**{"theme/style.css": "p { color: {% if %} }", "content/new.md": article("New")})
    broken = run_cli(repo, "run")
    assert broken.code == 1 and "1 deferred" in broken.out, broken.out + broken.err
    unwritten = "site: its stylesheet, 404 page, front page, archive and tags page could not be"
    assert f"{unwritten} written: theme template " in broken.err
    assert "content/new.md: theme template theme/style.css" in broken.err
    assert "red" in (repo.root / "_site/style.css").read_text()
    assert run_cli(repo, "run").code == 1, "until it is fixed"
    repo.commit(**{"theme/style.css": "p { color: blue }"})
    fixed = run_cli(repo, "run")
    assert fixed.code == 0 and "1 published" in fixed.out, fixed.out + fixed.err
    assert "blue" in (repo.root / "_site/style.css").read_text()
    assert (repo.root / "_site/new/index.html").exists()


def test_a_template_is_compiled_once_a_process_and_again_when_its_source_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each run (a reload, each run of `live`) builds its theme anew: a template it rendered
    before is not compiled again, one whose source changed is."""
    compiled: list[str | None] = []
    real = jinja2.Environment.compile

    def counting(environment: jinja2.Environment, source: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(args[1] if len(args) > 1 else kwargs.get("filename"))
        return real(environment, source, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    files = {"404.html": "<p>one {{ 1 + 1 }}</p>"}
    where = tmp_path.name  # a folder no other test's theme is in

    def theme() -> Theme:
        return Theme(lambda name: files[name].encode() if name in files else None, where=where)

    assert theme().render("404.html") == b"<p>one 2</p>"
    assert theme().reloaded().render("404.html") == b"<p>one 2</p>"
    files["404.html"] = "<p>two</p>"
    assert theme().render("404.html") == b"<p>two</p>"
    assert compiled.count(f"{where}/404.html") == 2, compiled


_OWN_404 = "<!doctype html><html lang=en><head><title>Lost</title></head><body>BODY</body></html>\n"
_OWN_ARTICLE = (
    "<!doctype html><html lang=en><head><title>{{ article.title }}</title></head><body>"
    "{{ article.body }}{% include 'neighbours.html' %}</body></html>\n"
)


def test_pages_of_a_theme_s_own_templates_without_the_generator_mark_are_still_its_own(
    repo: Repo,
) -> None:
    """A theme's 404 page and article page that extend nothing steadypress ships carry no
    `<meta name="generator">`: steadypress marks what it writes from them, so that an edit of
    the 404 template replaces the page (it once passed for an old site's own, and stayed as
    first written), and a new article relinks its neighbour's page."""
    config = "targets:\n  site: {kind: site, theme: theme}\n"
    repo.commit(**{
        "steadypress.yml": config, "theme/404.html": _OWN_404.replace("BODY", "Gone"),
        "theme/article.html": _OWN_ARTICLE,
        "content/a.md": article("A", date="2025-01-01"),
    })  # fmt: skip
    assert "1 published" in run_cli(repo, "run").out
    site = repo.root / "_site"
    assert "Gone" in (site / "404.html").read_text()
    repo.commit(**{"theme/404.html": _OWN_404.replace("BODY", "Nothing here")})
    run_cli(repo, "run")
    assert "Nothing here" in (site / "404.html").read_text()
    repo.commit(**{"content/b.md": article("B", date="2025-01-02")})
    assert "1 published" in run_cli(repo, "run").out
    assert 'href="/b/"' in (site / "a/index.html").read_text(), "a's page links to b now"
