"""Runs of different commits overlap on GitHub (each push has its own), and the one that writes
last is not always the newest: a run of a commit before a theme edit must not put its older
stylesheet and pages over those the edit's run wrote. It writes nothing, and lets its articles
go (due at once, no attempt counted) to a run of the newer commit; and a reconcile of such an
older head keeps the newer look recorded."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import timedelta
from importlib import resources
from typing import Any

import pytest

from steadypress import planning
from steadypress.targets.site import styling
from steadypress.targets.site.index import STYLED
from steadypress.targets.site.target import SiteTarget
from tests.helpers import Repo, article, run_cli

CONFIG = "targets:\n  site: {kind: site, theme: look}\n"
SHIPPED = (resources.files("steadypress") / "theme" / "base.html").read_text()


def _theme(mark: str) -> dict[str, str]:
    return {
        "look/base.html": SHIPPED.replace("<body>", f"<body><!--{mark}-->", 1),
        "look/style.css": f"/* {mark} */\nbody {{ margin: 0 }}\n",
    }


def _marks(repo: Repo) -> dict[str, str]:
    """Each page of the local site, and its stylesheet, by the theme mark it carries."""
    site = repo.root / "_site"
    marks = {}
    for path in [*site.rglob("*.html"), site / "style.css"]:
        text = path.read_text()
        marks[str(path.relative_to(site))] = next(
            (mark for mark in ("first", "second", "third") if mark in text), "none"
        )
    return marks


def _racing(
    monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], None], method: str = "publish_batch"
) -> list[bool]:
    """SiteTarget's `method` running `meanwhile` once, before its first write: another run
    that overtakes this one between its claim and its write."""
    real = getattr(SiteTarget, method)
    raced: list[bool] = []

    def racing(self: SiteTarget, work: Sequence[Any], **options: Any) -> Any:
        if not raced:
            raced.append(True)
            meanwhile()
        return real(self, work, **options)

    monkeypatch.setattr(SiteTarget, method, racing)
    return raced


def _newer_theme(repo: Repo) -> Callable[[], None]:
    """A run of a theme edit, committed now, which publishes every article again (the one
    the older run holds but)."""

    def run() -> None:
        repo.commit(**_theme("second"))
        result = run_cli(repo, "run")
        assert "3 published" in result.out, result.out + result.err

    return run


def test_a_run_of_an_older_theme_writes_nothing_over_a_newer_ones_site(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    posts = {f"content/p{n}.md": article(f"P{n}") for n in range(3)}
    repo.commit(**posts, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "3 published" in run_cli(repo, "run").out
    before = repo.head()
    older = repo.commit(**{"content/new.md": article("New")})
    raced = _racing(monkeypatch, _newer_theme(repo))
    result = run_cli(repo, "drain", "--push", before, older, "--ref", older)
    assert raced
    assert result.code == 0, "nothing failed: the newer run's to finish"
    assert "0 published, 0 deferred, 1 left to a newer run" in result.out, result.out + result.err
    assert "left to a newer run: site:content/new.md" in result.err
    assert set(_marks(repo).values()) == {"second"}, "the older run wrote over the newer look"
    (item,) = repo.ledger().pending.values()
    assert item.path == "content/new.md" and item.lease is None and item.attempts == 0

    monkeypatch.undo()
    result = run_cli(repo, "run")  # on GitHub, the sweep once the grace period is over
    assert "1 published" in result.out, result.out + result.err
    marks = _marks(repo)
    assert marks["new/index.html"] == "second" and set(marks.values()) == {"second"}


def test_a_removal_by_a_run_of_an_older_theme_is_left_to_a_newer_run(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A removal rewrites listing pages too: an older run's is left, and the next run makes it
    in the newer look."""
    posts = {f"content/p{n}.md": article(f"P{n}") for n in range(4)}
    repo.commit(**posts, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "4 published" in run_cli(repo, "run").out
    before = repo.head()
    repo.git("rm", "-q", "content/p3.md")
    older = repo.commit()
    raced = _racing(monkeypatch, _newer_theme(repo), "unpublish_batch")
    result = run_cli(repo, "drain", "--push", before, older, "--ref", older)
    assert raced
    assert "left to a newer run: site:content/p3.md" in result.err, result.out + result.err
    marks = _marks(repo)
    assert marks.pop("p3/index.html") == "first", "still there, as the theme before left it"
    assert set(marks.values()) == {"second"}

    monkeypatch.undo()
    result = run_cli(repo, "run")
    assert "1 unpublished" in result.out, result.out + result.err
    assert not (repo.root / "_site/p3/index.html").exists()
    assert set(_marks(repo).values()) == {"second"}


def test_a_record_of_the_look_that_cannot_be_read_stops_the_write_and_is_kept(
    repo: Repo,
) -> None:
    repo.commit(**{"content/a.md": article("A")}, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "1 published" in run_cli(repo, "run").out
    record = repo.root / "_site" / STYLED
    record.write_text('{"version": 4, "look": "garbled"}')
    repo.commit(**{"content/b.md": article("B")})
    result = run_cli(repo, "run")
    assert "0 published" in result.out
    assert ".steadypress/look.json in the site cannot be read" in result.err, result.err
    assert record.read_text() == '{"version": 4, "look": "garbled"}'


def test_a_site_written_by_a_commit_this_copy_lacks_is_ordered_by_its_time(
    repo: Repo,
) -> None:
    """A commit the site names that this copy of the repository does not have: pushed after
    this run fetched (a later time: this run writes nothing), or rewritten away (an earlier
    one: this run writes, and records its own)."""
    repo.commit(**{"content/a.md": article("A")}, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "1 published" in run_cli(repo, "run").out
    record = repo.root / "_site" / STYLED
    written = json.loads(record.read_text())
    stranger = {**written, "look": ["0" * 64] * 3, "commit": "f" * 40}
    repo.commit(**{"content/b.md": article("B")})

    record.write_text(json.dumps({**stranger, "time": "2999-01-01T00:00:00Z"}))
    result = run_cli(repo, "run")
    assert "0 published" in result.out and "left to a newer run: site:content/b.md" in result.err

    # Recorded in the future (a runner's clock gone wrong): no reason to stop this run.
    future = "2999-01-01T00:00:00Z"
    record.write_text(json.dumps({**stranger, "time": future, "written": future}))
    assert "1 published" in run_cli(repo, "run").out
    assert json.loads(record.read_text())["commit"] == repo.head()

    repo.commit(**{"content/c.md": article("C")})
    record.write_text(json.dumps({**stranger, "time": "2000-01-01T00:00:00Z"}))
    assert "1 published" in run_cli(repo, "run").out
    assert json.loads(record.read_text())["commit"] == repo.head()


def test_a_theme_edit_reset_away_gives_the_site_back_its_look(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A theme edit published, then reset away (`git reset --hard`, a force push): the look
    the site records is of a later commit, which descends from the branch's. Within the
    half hour a run overtaken would meet it, the branch's runs leave it; after that the
    branch's look replaces it, with no one asking."""
    repo.commit(**{"content/a.md": article("A")}, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "1 published" in run_cli(repo, "run").out
    kept = repo.head()
    repo.commit(**_theme("second"))
    assert "1 published" in run_cli(repo, "run").out
    assert set(_marks(repo).values()) == {"second"}
    repo.git("update-ref", "refs/heads/main", kept)  # what a force push does to the branch

    result = run_cli(repo, "run")
    assert "0 published" in result.out, result.out + result.err
    assert "the look of site is a later commit's: left to a newer run" in result.err
    assert set(_marks(repo).values()) == {"second"}

    monkeypatch.setattr(styling, "OVERTAKEN_WITHIN", timedelta(0))  # half an hour on
    result = run_cli(repo, "run")
    assert "1 published" in result.out, result.out + result.err
    assert set(_marks(repo).values()) == {"first"}
    assert json.loads((repo.root / "_site" / STYLED).read_text())["commit"] == kept


def test_a_restyle_overtaken_renders_no_more_of_itself(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run restyling the site a window at a time, overtaken before its first write by a
    run that published with a later theme, renders no more of its restyle, which would be
    refused too: the window it let go stays pending, so the next is not enqueued
    (`admission`), and it does not take again what it has tried. Later runs finish the
    restyle, in the latest look."""
    monkeypatch.setattr(planning, "ADMISSION", 2)
    posts = {f"content/p{n}.md": article(f"P{n}") for n in range(6)}
    repo.commit(**posts, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "6 published" in run_cli(repo, "run").out
    restyling = repo.commit(**_theme("second"))
    real = SiteTarget.publish_batch
    overtaking: list[bool] = []
    batches: list[int] = []  # those of the overtaken run

    def counted(self: SiteTarget, work: Sequence[Any], **options: Any) -> Any:
        if not overtaking:
            overtaking.append(True)
            # The push of a later theme and an article: the restyle under way goes on, and
            # this run publishes its article (in its look) while the window is leased.
            newer = repo.commit(**_theme("third"), **{"content/new.md": article("New")})
            assert "1 published" in run_cli(repo, "drain", "--push", restyling, newer).out
            overtaking.append(False)
        if not overtaking[-1]:
            batches.append(len(work))
        return real(self, work, **options)

    monkeypatch.setattr(SiteTarget, "publish_batch", counted)
    result = run_cli(repo, "run", "--ref", restyling)
    assert "0 published" in result.out and "left to a newer run" in result.err, result.err
    assert batches == [2], "its first window, refused; no other rendered"
    monkeypatch.setattr(SiteTarget, "publish_batch", real)
    assert "6 published" in run_cli(repo, "run").out
    assert set(_marks(repo).values()) == {"third"}


@pytest.mark.parametrize(
    ("edit", "again"),
    [
        (_theme("second"), "publishing every article again"),
        ({"look/style.css": "/* second */\n"}, "written again"),
    ],
    ids=["a page template", "the stylesheet"],
)
def test_a_sweep_of_an_older_head_leaves_the_newer_look_recorded(
    repo: Repo, edit: dict[str, str], again: str
) -> None:
    """A sweep whose checkout came before a theme edit's push, and whose reconcile reads the
    state after that push's run: its look is not the site's, which a later commit's run wrote.
    It neither restyles the site (its writes would be refused) nor records its older look (the
    next run would restyle the site once more, every article again for a page template)."""
    posts = {f"content/p{n}.md": article(f"P{n}") for n in range(3)}
    older = repo.commit(**posts, **_theme("first"), **{"steadypress.yml": CONFIG})
    assert "3 published" in run_cli(repo, "run").out
    repo.commit(**edit)
    assert again in run_cli(repo, "run").err
    newer, site = repo.ledger().reconciled, _marks(repo)
    assert newer is not None and site["style.css"] == "second"

    stale = run_cli(repo, "sweep", "--ref", older)
    assert stale.code == 0 and "0 published" in stale.out, stale.out + stale.err
    assert again not in stale.err and "left to a newer run" in stale.err, stale.err
    marker = repo.ledger().reconciled
    assert marker is not None and marker.looks == newer.looks
    assert _marks(repo) == site

    result = run_cli(repo, "run")
    assert "0 published" in result.out and "changed" not in result.err, result.err
    assert _marks(repo) == site
