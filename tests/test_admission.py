"""A large import enters the ledger a window at a time: pending.json, which every claim rewrites,
holds at most one window (`ADMISSION` items) however many articles the blog brings, the rest is
the reconcile marker's backlog, and one run still publishes all of it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from steadypress import codec, executor, planning
from steadypress.articles import Article
from steadypress.backends import local_pipeline
from steadypress.clock import SystemClock
from steadypress.config import committed_config
from steadypress.content import ContentSource
from steadypress.credentials import Redactor
from steadypress.gitio import Git
from steadypress.pipeline import Pipeline
from steadypress.runcontext import RunContext
from steadypress.store import TransactionStats
from steadypress.targets.site.target import SiteTarget
from tests.fakes.clock import ManualClock
from tests.helpers import Repo, article, run_cli
from tests.schema import invalid_state_files

STATE = "steadypress-state"
WINDOW = 10


@pytest.fixture(autouse=True)
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(planning, "ADMISSION", WINDOW)


def pending_sizes(repo: Repo) -> list[int]:
    """How many items pending.json held after each commit of the state branch."""
    commits = repo.git("rev-list", "--reverse", STATE).split()
    return [
        len(json.loads(repo.git("show", f"{commit}:{codec.PENDING_FILE}"))["pending"])
        for commit in commits
    ]


def marker(repo: Repo) -> dict[str, object]:
    """The reconcile's marker: `reconciled.json`'s, with the commit `pending.json` holds."""
    data = json.loads(repo.state_file(codec.RECONCILED_FILE))
    commit = json.loads(repo.state_file(codec.PENDING_FILE))["reconciled"]
    return {**data["reconciled"], "commit": commit}


def published_paths(repo: Repo) -> set[str]:
    return {key.split(":", 1)[1] for key, r in repo.ledger().published.items() if r.url}


def test_a_first_build_publishes_everything_in_one_run_with_one_window_pending(
    repo: Repo,
) -> None:
    paths = [f"content/p{n:02}.md" for n in range(35)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "35 published" in result.out
    assert published_paths(repo) == set(paths)
    sizes = pending_sizes(repo)
    assert max(sizes) == WINDOW, sizes
    assert sizes[-1] == 0
    assert "backlog" not in marker(repo) and marker(repo)["commit"] == repo.head()
    assert invalid_state_files(repo.root, STATE) == []


def test_an_import_is_put_in_order_once_a_run_whatever_its_windows(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each claim of an import asks for the rest of the backlog in its order: the order is
    made once (at 10^5 articles, making it again cost 70 ms a claim, a claim every window)."""
    made: list[int] = []
    real = ContentSource.newest_first

    def newest_first(self: ContentSource, commit: str, articles: Any) -> list[str]:
        made.append(len(articles))
        return real(self, commit, articles)

    monkeypatch.setattr(ContentSource, "newest_first", newest_first)
    paths = [f"content/p{n:02}.md" for n in range(5 * WINDOW)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert published_paths(repo) == set(paths)
    assert len(repo.git("rev-list", STATE).split()) >= 5, "a claim a window, at least"
    # Once for the reconcile's first window, once for the backlog that follows it.
    assert made == [5 * WINDOW, 5 * WINDOW]


def test_a_pushed_import_is_the_backlog_of_the_marker_it_moves(repo: Repo) -> None:
    repo.commit(**{"content/first.md": article("First")})
    assert run_cli(repo, "run").code == 0
    before = repo.head()
    paths = [f"content/import/{n:02}.md" for n in range(25)]
    repo.commit(**{path: article(f"Imported {n}") for n, path in enumerate(paths)})
    result = run_cli(repo, "drain", "--push", before, repo.head())
    assert result.code == 0, result.err
    assert published_paths(repo) == {"content/first.md", *paths}
    assert max(pending_sizes(repo)) == WINDOW
    assert marker(repo)["commit"] == repo.head() and "backlog" not in marker(repo)
    with_backlog = [
        json.loads(repo.git("show", f"{c}:{codec.RECONCILED_FILE}"))["reconciled"].get("backlog")
        for c in repo.git("rev-list", STATE).split()
    ]
    # Articles of one date (here the commit's, with none in their front matter) come in path
    # order.
    assert {"since": before, "after": paths[WINDOW - 1], "order": "newest"} in with_backlog


def only_the_first_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """An executor that stops after its first claim, as one killed mid-import would."""

    def nothing(_pipeline: object) -> planning.Prepare:
        return lambda ledger, now: (ledger, [])

    monkeypatch.setattr(executor, "admission", nothing)


def test_a_backlog_is_compared_as_the_articles_are_now(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import interrupted after its first window: the articles of the backlog edited or
    removed since are enqueued as they are at the head, so no older version is published over
    a newer one and a removed article is never published; status says what is left."""
    paths = [f"content/p{n:02}.md" for n in range(30)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    with monkeypatch.context() as patch:
        only_the_first_window(patch)
        assert "10 published" in run_cli(repo, "run").out
    imported_at = repo.head()
    assert marker(repo)["backlog"] == {"since": None, "after": paths[WINDOW - 1], "order": "newest"}
    status = run_cli(repo, "status").out
    assert (
        f"not enqueued yet: the articles at {imported_at[:12]} after {paths[WINDOW - 1]}, "
        "newest first"
    ) in status

    repo.git("rm", "-q", "content/p20.md")
    repo.commit(**{"content/p15.md": article("P15, edited"), "content/p03.md": article("P3, ed")})
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    published = repo.ledger().published
    assert published_paths(repo) == set(paths) - {"content/p20.md"}
    assert published["site:content/p15.md"].blob == repo.blob("content/p15.md")
    assert "P15, edited" in (repo.root / "_site/p15/index.html").read_text()
    assert not (repo.root / "_site/p20").exists()
    assert marker(repo)["commit"] == imported_at and "backlog" not in marker(repo)
    # What changed after the marker's commit is the next reconcile's: the edit of an article
    # published in the first window.
    assert published["site:content/p03.md"].blob != repo.blob("content/p03.md")
    assert "1 published" in run_cli(repo, "sweep").out
    assert repo.ledger().published["site:content/p03.md"].blob == repo.blob("content/p03.md")
    assert marker(repo)["commit"] == repo.head()


def test_a_push_during_a_backlog_leaves_the_marker_to_finish_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push publishes its own articles at once but does not move a marker with a backlog;
    the next drain finishes the backlog."""
    paths = [f"content/p{n:02}.md" for n in range(25)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    with monkeypatch.context() as patch:
        only_the_first_window(patch)
        assert run_cli(repo, "run").code == 0
    imported_at = repo.head()
    repo.commit(**{"content/news.md": article("News")})
    result = run_cli(repo, "drain", "--push", imported_at, repo.head())
    assert result.code == 0, result.err
    assert published_paths(repo) == {*paths, "content/news.md"}
    assert marker(repo)["commit"] == imported_at and "backlog" not in marker(repo)


def dated(paths: list[str], dates: list[str]) -> dict[str, str]:
    return {path: article(path, date=date) for path, date in zip(paths, dates, strict=True)}


def test_a_large_import_enters_newest_first(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Dates that interleave with the paths (as a blog whose files are named by slug has):
    the first window is the newest articles, so the front page is right from the start, and
    each window lists a few months rather than every one."""
    paths = [f"content/p{n:02}.md" for n in range(30)]
    dates = [f"20{10 + n % 3}-{1 + n // 3:02}-01" for n in range(30)]  # 2010, 2011, 2012, ...
    repo.commit(**dated(paths, dates))
    newest = [path for path, date in zip(paths, dates, strict=True) if date.startswith("2012")]
    with monkeypatch.context() as patch:
        only_the_first_window(patch)
        assert f"{WINDOW} published" in run_cli(repo, "run").out
    assert published_paths(repo) == set(newest)
    years = sorted(
        folder.name for folder in (repo.root / "_site/archive").iterdir() if folder.is_dir()
    )
    assert years == ["2012"]
    assert marker(repo)["backlog"] == {"since": None, "after": newest[0], "order": "newest"}
    assert "newest first" in run_cli(repo, "status").out
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    assert published_paths(repo) == set(paths) and "backlog" not in marker(repo)


def test_an_import_goes_on_in_the_order_it_began_whatever_is_edited_meanwhile(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dates edited between windows do not move an article across the marker (its place is
    its date at the backlog's commit): none is skipped, and the edits are what is published."""
    paths = [f"content/p{n:02}.md" for n in range(25)]
    repo.commit(**dated(paths, [f"2020-01-{1 + n:02}" for n in range(25)]))
    with monkeypatch.context() as patch:
        only_the_first_window(patch)
        assert run_cli(repo, "run").code == 0
    assert published_paths(repo) == set(paths[-WINDOW:])
    # The oldest, still waiting, becomes the newest; a published one becomes the oldest.
    repo.commit(**{
        paths[0]: article("Now the newest", date="2025-01-01"),
        paths[-1]: article("Now the oldest", date="1999-01-01"),
    })  # fmt: skip
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    assert published_paths(repo) == set(paths) and "backlog" not in marker(repo)
    assert "Now the newest" in (repo.root / "_site/p00/index.html").read_text()
    assert run_cli(repo, "sweep").code == 0  # the edit after the marker's commit
    assert "Now the oldest" in (repo.root / "_site/p24/index.html").read_text()


def test_a_backlog_recorded_in_path_order_goes_on_in_path_order(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backlog written before imports went newest first has no `order`: it is continued by
    path, so no article between its marker and the end is skipped."""
    paths = [f"content/p{n:02}.md" for n in range(25)]
    # Newest first: p00 to p09, then p24 down to p10; by path, p10 to p19 come next.
    dates = [f"2021-01-{10 - n:02}" for n in range(10)] + [f"2020-01-{n:02}" for n in range(1, 16)]
    repo.commit(**dated(paths, dates))
    with monkeypatch.context() as patch:
        only_the_first_window(patch)
        assert run_cli(repo, "run").code == 0
        assert published_paths(repo) == set(paths[:WINDOW])
        data = json.loads(repo.state_file(codec.RECONCILED_FILE))
        del data["reconciled"]["backlog"]["order"]
        repo.overwrite_state_file(codec.RECONCILED_FILE, json.dumps(data).encode())
        assert "in path order" in run_cli(repo, "status").out
        assert run_cli(repo, "sweep").code == 0
    assert published_paths(repo) == set(paths[: 2 * WINDOW])
    assert marker(repo)["backlog"] == {"since": None, "after": paths[2 * WINDOW - 1]}
    assert run_cli(repo, "sweep").code == 0
    assert published_paths(repo) == set(paths)


def a_pipeline(repo: Repo) -> Pipeline:
    run = RunContext(
        holder="test", clock=SystemClock(), environ={}, redact=Redactor(), stats=TransactionStats()
    )
    return local_pipeline(repo.root, committed_config(Git(repo.root)), run)


def test_the_marker_another_executor_recorded_is_not_written_over(repo: Repo) -> None:
    """Two reconciles planned on one read: the second to write keeps the marker the first
    recorded rather than putting its own window back (enqueuing twice is harmless)."""
    repo.commit(**{f"content/p{n:02}.md": article(f"P{n}") for n in range(25)})
    first, second = planning.reconcile(a_pipeline(repo)), planning.reconcile(a_pipeline(repo))
    assert first is not None and second is not None
    now = datetime(2026, 12, 1, tzinfo=UTC)
    ledger, fresh = first(repo.ledger(), now)
    assert len(fresh) == WINDOW
    recorded = ledger.reconciled
    assert recorded is not None and recorded.backlog is not None
    again, fresh = second(ledger, now)
    assert again.reconciled == recorded and fresh == []


def test_a_backlog_field_that_is_not_ours_is_refused(repo: Repo) -> None:
    repo.commit(**{f"content/p{n:02}.md": article(f"P{n}") for n in range(15)})
    with pytest.MonkeyPatch.context() as patch:
        only_the_first_window(patch)
        assert run_cli(repo, "run").code == 0
    data = repo.state_file(codec.RECONCILED_FILE)
    repo.overwrite_state_file(codec.RECONCILED_FILE, data.replace(b'"after"', b'"cursor"'))
    head = repo.state_head()
    result = run_cli(repo, "sweep")
    assert result.code == 3, result.err
    assert f"{codec.RECONCILED_FILE}: 'backlog': missing field(s) after" in result.err
    assert repo.state_head() == head


def site_summary(repo: Repo) -> dict[str, object]:
    summary: dict[str, object] = json.loads(
        (repo.root / "_site/.steadypress/summary.json").read_text()
    )
    return summary


def test_the_listings_are_rendered_once_a_run_whatever_its_batches(repo: Repo) -> None:
    """A batch with more waiting behind it is not the run's last: its listing pages wait for
    the last batch, or for the drain's end when no batch came after it (here the backlog held
    only drafts), and then list everything the run published."""
    articles = {f"content/p{n:02}.md": article(f"Article {n}") for n in range(WINDOW)}
    drafts = {f"content/q{n:02}.md": article(f"Draft {n}", draft="true") for n in range(WINDOW)}
    repo.commit(**articles, **drafts)
    result = run_cli(repo, "run")
    assert result.code == 0 and f"{WINDOW} published" in result.out, result.out + result.err
    assert "stale" not in site_summary(repo)
    (month,) = (repo.root / "_site/archive").glob("*/*/index.html")
    listed = month.read_text()
    assert all(f">Article {n}<" in listed for n in range(WINDOW))


@pytest.mark.parametrize("dated", [False, True], ids=["undated", "newest-last-by-path"])
def test_each_batch_of_an_import_is_told_ahead_of_the_batch_before_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, dated: bool
) -> None:
    """A claim that more will follow is handed to the site to render before it is written, and
    the backlog's next window before the claimed batch is published, so the next batch's bodies
    render meanwhile: in the order it is published in, so that the first page laid out does
    not wait for the last body rendered. Dated, the windows come newest first, the reverse of
    the paths, and a batch is published in the order of its keys."""
    monkeypatch.setattr(executor, "READ_AHEAD_MOST", 2)
    events: list[tuple[str, list[str]]] = []
    real_ahead, real_publish = SiteTarget.render_ahead, SiteTarget.publish_batch

    def render_ahead(
        target: SiteTarget, count: int, articles: Callable[[], Sequence[Article]]
    ) -> None:
        told = [a.path for a in articles()]
        assert len(told) == count
        events.append(("told", told))
        real_ahead(target, count, articles)

    def publish_batch(target: SiteTarget, work: Any, **options: Any) -> Any:
        events.append(("published", [article.path for article, _previous in work]))
        return real_publish(target, work, **options)

    monkeypatch.setattr(SiteTarget, "render_ahead", render_ahead)
    monkeypatch.setattr(SiteTarget, "publish_batch", publish_batch)
    count = 3 * WINDOW + 5
    dates = [{"date": f"2020-01-01 00:{n + 1:02}:00"} if dated else {} for n in range(count)]
    repo.commit(**{f"content/p{n:02}.md": article(f"P{n}", **dates[n]) for n in range(count)})
    assert run_cli(repo, "run").code == 0
    batches = [paths for kind, paths in events if kind == "published"]
    if dated:  # the newest window first
        assert batches[0][0] == f"content/p{count - WINDOW:02}.md"
    assert [len(batch) for batch in batches] == [WINDOW, WINDOW, WINDOW, 5]
    first_told: dict[tuple[str, ...], int] = {}
    for at, (kind, paths) in enumerate(events):
        if kind == "told":
            first_told.setdefault(tuple(paths), at)
    published_at = [at for at, (kind, _paths) in enumerate(events) if kind == "published"]
    assert first_told[tuple(batches[0])] < published_at[0]
    for n in range(1, len(batches)):  # each told before the batch before it was published
        assert first_told[tuple(batches[n])] < published_at[n - 1], events


def test_a_prediction_that_fails_costs_the_saving_not_the_import(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object) -> list[tuple[str, str, str]]:
        raise RuntimeError("the backlog could not be read")

    monkeypatch.setattr(executor, "READ_AHEAD_MOST", 2)
    monkeypatch.setattr(executor, "upcoming", broken)
    paths = [f"content/p{n:02}.md" for n in range(2 * WINDOW + 3)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert "rendering ahead failed, rendered when written: the backlog could not" in result.err
    assert published_paths(repo) == set(paths)


def test_an_import_that_dies_of_one_cause_waits_for_the_fix(repo: Repo) -> None:
    """Every article shows an image that is not committed: the first window dies, and the
    backlog waits rather than filling dead.json with the whole blog; committing the image
    revives the window, and the import then runs to its end."""
    post = "---\ntitle: P{n}\n---\n\n![x](images/x.png)\n"
    paths = [f"content/p{n:02}.md" for n in range(25)]
    repo.commit(**{path: post.format(n=n) for n, path in enumerate(paths)})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    ledger = repo.ledger()
    assert len(ledger.dead) == WINDOW and not ledger.pending
    assert "backlog" in marker(repo)
    result = run_cli(repo, "sweep")
    assert "the backlog waits: 0 pending items and those dead within 1:00:00" in result.err
    assert len(repo.ledger().dead) == WINDOW
    repo.write("content/images/x.png", b"\x89PNG\r\n\x1a\n a picture")
    repo.commit("add the image")
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    assert published_paths(repo) == set(paths) and not repo.ledger().dead
    assert "backlog" not in marker(repo) and not repo.ledger().pending
    assert max(pending_sizes(repo)) <= WINDOW


def test_a_backlog_whose_commit_is_gone_is_found_by_comparing_everything(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """History rewritten after the first window and the old commits pruned (as a force push
    leaves a fresh checkout): the backlog's diff cannot be read again, so the sweep compares
    every article, and the import still completes instead of failing every sweep."""
    paths = [f"content/p{n:02}.md" for n in range(25)]
    repo.commit(**{path: article(f"P{n}") for n, path in enumerate(paths)})
    with monkeypatch.context() as patch:
        only_the_first_window(patch)
        assert run_cli(repo, "run").code == 0
    gone = str(marker(repo)["commit"])
    repo.git("commit", "-q", "--amend", "-m", "rewritten")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    with pytest.raises(subprocess.CalledProcessError):
        repo.git("cat-file", "-t", gone)
    result = run_cli(repo, "sweep")
    assert result.code == 0, result.err
    assert f"the backlog's commit {gone[:12]} is not in the checkout" in result.err
    assert published_paths(repo) == set(paths)
    assert marker(repo)["commit"] == repo.head() and "backlog" not in marker(repo)


def test_articles_broken_each_on_its_own_hold_an_import_an_hour_at_most(repo: Repo) -> None:
    """A window of articles each broken in its own way (no one commit fixes them): the import
    waits an hour for a fix, then goes on by itself; the broken ones stay dead letters."""
    broken = {f"content/a{n:02}.md": "---\ntitle: [unclosed\n---\n\nText.\n" for n in range(10)}
    fine = {f"content/p{n:02}.md": article(f"P{n}") for n in range(15)}
    repo.commit(**broken, **fine)
    clock = ManualClock(datetime.now(UTC))  # not before the commits: they date the articles
    assert run_cli(repo, "run", clock=clock).code == 0
    assert len(repo.ledger().dead) == WINDOW and not published_paths(repo)
    clock.advance(30 * 60)
    assert "the backlog waits" in run_cli(repo, "sweep", clock=clock).err
    clock.advance(31 * 60)
    result = run_cli(repo, "sweep", clock=clock)
    assert result.code == 0 and "the backlog waits" not in result.err, result.err
    assert published_paths(repo) == set(fine) and len(repo.ledger().dead) == WINDOW
    assert "backlog" not in marker(repo)
