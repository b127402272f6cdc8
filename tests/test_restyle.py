"""A site follows its settings and its theme: a change to either publishes every article to it
again at the next reconcile, with no one asking, a window at a time like an import, and so does
a local site's folder deleted; a state written before looks were recorded takes the look the
site has, and publishes nothing again."""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources

import pytest

from steadypress import executor, planning
from steadypress.codec import RECONCILED_FILE, decode_state, encode_state
from steadypress.errors import StateError
from steadypress.ledger import Backlog, Ledger, Reconciled
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


def test_a_state_without_looks_takes_the_look_the_site_has(repo: Repo) -> None:
    """An upgrade from a steadypress that recorded no look does not publish a blog again."""
    repo.commit(**ARTICLES)
    assert "10 published" in run_cli(repo, "run").out
    marker = json.loads(repo.state_file("state/reconciled.json"))
    del marker["reconciled"]["looks"]
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
    marker = Reconciled("c" * 40, ("site",), "0" * 40, backlog, looks=(("site", "ab12"),))
    ledger = Ledger(reconciled=marker)
    files = encode_state(ledger)
    validate_state_file(RECONCILED_FILE, files[RECONCILED_FILE])
    assert decode_state(files).reconciled == marker
    for looks in ({"site": 7}, ["site"]):
        document = json.loads(files[RECONCILED_FILE])
        document["reconciled"]["looks"] = looks
        with pytest.raises(StateError, match="looks"):
            decode_state({**files, RECONCILED_FILE: json.dumps(document).encode()})
