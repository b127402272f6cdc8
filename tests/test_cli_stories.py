"""Stories through the real command line, on a real git repository."""

import gc
import json
import math
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path

import pytest

from steadypress import commands
from steadypress.claiming import claim
from steadypress.claims import CLAIM_BATCH, claim_size
from steadypress.cli import GC_THRESHOLDS, main
from steadypress.ledger import Ledger
from steadypress.render import Prerendered, prerender
from steadypress.store import transact
from steadypress.store.localgit import LocalGitStore
from steadypress.targets.site.index import SUMMARY
from steadypress.timefmt import format_time
from steadypress.transitions import Sighting, enqueue
from tests.fakes.clock import ManualClock
from tests.helpers import Repo, article, run_cli

# The sample blog the tests publish: their own copy, never the repository's content/ (yours).
SAMPLES = Path(__file__).resolve().parent / "fixtures" / "blog"
FAST = """
timings: {lease: 10m, grace: 0s, backoff_initial: 0s, backoff_max: 0s}
max_attempts: 2
"""


def with_samples(repo: Repo) -> str:
    shutil.copytree(SAMPLES, repo.root / "content")
    return repo.commit("samples")


def published_keys(repo: Repo) -> set[str]:
    """The items the targets hold now (unpublished tombstones left out)."""
    return {key for key, record in repo.ledger().published.items() if not record.unpublished}


def test_the_sample_articles_publish(repo: Repo) -> None:
    """`run` on the shipped samples writes a page for each and records each as published."""
    with_samples(repo)
    result = run_cli(repo, "run")
    samples = sorted(f"content/{p.relative_to(SAMPLES).as_posix()}" for p in SAMPLES.rglob("*.md"))
    assert result.code == 0, result.err
    assert sorted(published_keys(repo)) == [f"site:{path}" for path in samples]
    for path in samples:
        slug = path.removeprefix("content/").removesuffix(".md")
        assert (repo.root / "_site" / slug / "index.html").exists()
        assert repo.ledger().published[f"site:{path}"].url == f"http://localhost:8000/{slug}/"
    assert f"{len(samples)} published" in result.out


def test_a_second_run_makes_no_commit(repo: Repo) -> None:
    """Once everything is published, running again reads and writes nothing."""
    with_samples(repo)
    run_cli(repo, "run")
    head = repo.state_head()
    result = run_cli(repo, "run")
    assert result.code == 0 and repo.state_head() == head
    assert "0 published" in result.out and "0 state commit(s)" in result.out


def test_publishing_a_push_costs_two_state_commits(repo: Repo) -> None:
    """Enqueue and claim share one commit, the outcomes of the batch another."""
    with_samples(repo)
    run_cli(repo, "run")
    assert repo.state_commits() == 2


def test_an_edited_article_is_republished(repo: Repo) -> None:
    """A new version of an article replaces its page."""
    repo.commit(**{"content/a.md": article("First title")})
    run_cli(repo, "run")
    repo.commit(**{"content/a.md": article("Second title")})
    result = run_cli(repo, "run")
    assert result.code == 0 and "1 published" in result.out
    assert "<h1>Second title</h1>" in (repo.root / "_site/a/index.html").read_text()
    assert repo.ledger().published["site:content/a.md"].blob == repo.blob("content/a.md")


def test_a_broken_article_is_dead_lettered_while_the_others_publish(repo: Repo) -> None:
    """One bad article never blocks the others; its dead letter names the file and the reason."""
    repo.commit(
        **{
            "content/good.md": article("Good"),
            "content/broken.md": "---\ndescription: forgot the title\n---\nbody\n",
            "content/also-good.md": article("Also good"),
        }
    )
    result = run_cli(repo, "run")
    assert result.code == 0, "a dead letter is reported, not a crash"
    assert published_keys(repo) == {"site:content/good.md", "site:content/also-good.md"}
    dead = repo.ledger().dead["site:content/broken.md"]
    assert dead.permanent and dead.alert == 1
    assert "content/broken.md: front matter has no 'title'" in dead.last_error
    letter = (repo.root / ".steadypress/dead-letters/0001.md").read_text()
    assert "content/broken.md" in letter and "no 'title'" in letter
    assert "dead letter #1: content/broken.md on site" in result.err
    assert "1 dead-lettered" in result.out


def test_fixing_a_dead_article_with_a_new_version_publishes_it(repo: Repo) -> None:
    """A new blob of a dead article is new work, and its success resolves the letter."""
    repo.commit(**{"content/a.md": "---\nno: title\n---\n"})
    run_cli(repo, "run")
    repo.commit(**{"content/a.md": article("Fixed")})
    assert run_cli(repo, "run").code == 0
    assert "site:content/a.md" in published_keys(repo) and not repo.ledger().dead
    assert (
        (repo.root / ".steadypress/dead-letters/0001.md").read_text().startswith("Status: resolved")
    )


def expired_lease_by(repo: Repo, holder: str, *, age: timedelta) -> None:
    """Leave the ledger as an executor named `holder` would if it died `age` ago mid-publish."""
    store = LocalGitStore(repo.root, "steadypress-state")
    then = datetime.now(UTC) - age
    sighting = Sighting("site", "content/a.md", repo.blob("content/a.md"), repo.head())

    def abandoned(ledger: Ledger) -> tuple[Ledger, None]:
        ledger, _ = enqueue(ledger, [sighting], now=then)
        ledger, _, _ = claim(
            ledger,
            [sighting.key],
            holder=holder,
            token="dead",
            now=then,
            lease_ttl=timedelta(minutes=10),
        )
        return ledger, None

    transact(store, abandoned, message="an executor that died")


def test_an_expired_lease_held_by_workers_does_not_stop_sweep(repo: Repo) -> None:
    """'workers' died an hour ago holding the item: the sweeper takes it, no hand-over needed."""
    repo.commit(**{"content/a.md": article("A")})
    expired_lease_by(repo, "workers", age=timedelta(hours=1))
    result = run_cli(repo, "sweep")
    assert result.code == 0 and "1 published" in result.out
    assert "site:content/a.md" in published_keys(repo) and not repo.ledger().pending


def test_a_live_lease_is_respected_by_sweep(repo: Repo) -> None:
    """A lease taken a minute ago is still running: the sweeper leaves the item alone."""
    repo.commit(**{"content/a.md": article("A")})
    expired_lease_by(repo, "workers", age=timedelta(minutes=1))
    result = run_cli(repo, "sweep")
    assert "0 published" in result.out
    lease = repo.ledger().pending["site:content/a.md"].lease
    assert lease is not None and lease.holder == "workers"


def test_a_batch_slower_than_a_lease_renews_it_as_its_pages_are_laid_out(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The site lays out a claimed batch's pages in one call; each body here takes a quarter
    of a lease. The executor renews the batch's leases as they fall due in that call, as it
    does between the articles of a target that publishes one at a time: at no point of the
    batch could another executor take one of its items."""
    repo.commit(**{f"content/a{n:02d}.md": article(f"A{n}") for n in range(CLAIM_BATCH)})
    # Started after the commit: the articles, dated by it, are due (a clock started a moment
    # before a commit in the next second finds them dated in its future, and claims none).
    clock = ManualClock(datetime.now(UTC))
    lease = timedelta(minutes=10)  # the default
    lapsed: set[str] = set()

    def slow(text: str) -> Prerendered:
        clock.advance(lease.total_seconds() / 4)
        pending = repo.ledger().pending.values()
        lapsed.update(i.key for i in pending if i.lease and not i.lease.is_live(clock.now()))
        return prerender(text)

    monkeypatch.setattr("steadypress.targets.site.rendering.prerender", slow)
    result = run_cli(repo, "run", clock=clock)
    assert f"{CLAIM_BATCH} published" in result.out, result.out + result.err
    assert clock.seconds > 2 * lease.total_seconds(), "the batch outlasted its first lease"
    assert not lapsed


def test_sweep_publishes_what_no_push_event_announced(repo: Repo) -> None:
    """A missed event: the article is committed but never enqueued; the sweep reconciles it."""
    repo.commit(**{"content/a.md": article("A")})
    run_cli(repo, "run")
    repo.commit(**{"content/missed.md": article("Missed")})
    result = run_cli(repo, "sweep")
    assert result.code == 0 and "site:content/missed.md" in published_keys(repo)


def test_sweep_leaves_fresh_items_to_the_executor_that_enqueued_them(repo: Repo) -> None:
    """Within the grace period, an item a push enqueued is left to that push's executor."""
    repo.commit(**{"content/a.md": article("A")})
    assert run_cli(repo, "enqueue", "content/a.md").code == 0
    result = run_cli(repo, "sweep")
    assert "0 published" in result.out and "site:content/a.md" in repo.ledger().pending
    assert run_cli(repo, "drain").code == 0
    assert "site:content/a.md" in published_keys(repo)


def test_a_push_enqueues_only_what_it_changed(repo: Repo) -> None:
    """`enqueue --push BEFORE AFTER` takes the push's articles; drain publishes them."""
    before = repo.commit(**{"content/old.md": article("Old")})
    assert run_cli(repo, "sweep").code == 0, "the state's first reconcile"
    after = repo.commit(**{"content/new.md": article("New")})
    assert run_cli(repo, "enqueue", "--push", before, after).code == 0
    assert set(repo.ledger().pending) == {"site:content/new.md"}
    assert run_cli(repo, "drain").code == 0
    assert published_keys(repo) == {"site:content/old.md", "site:content/new.md"}


def test_a_first_push_into_a_new_state_publishes_the_whole_blog(repo: Repo) -> None:
    """A blog adopting steadypress: the first push after it, whatever it changed, compares
    every article (the state was never reconciled), and records the site's look, so a push of
    the theme right after it publishes every page again."""
    before = repo.commit(**{"content/old.md": article("Old")})
    after = repo.commit(**{"content/new.md": article("New")})
    assert run_cli(repo, "drain", "--push", before, after).code == 0
    assert published_keys(repo) == {"site:content/old.md", "site:content/new.md"}
    base = (resources.files("steadypress") / "theme" / "base.html").read_text()
    themed = repo.commit(**{
        "steadypress.yml": "targets:\n  site: {kind: site, theme: theme}\n",
        "theme/base.html": base.replace("<body>", "<body><p>restyled</p>"),
    })  # fmt: skip
    assert run_cli(repo, "drain", "--push", after, themed).code == 0
    for page in ("old/index.html", "new/index.html"):
        assert "<p>restyled</p>" in (repo.root / "_site" / page).read_text()


def test_a_first_push_with_a_zero_before_enqueues_everything_unpublished(repo: Repo) -> None:
    """With no usable BEFORE the push reconciles the whole content folder instead."""
    after = repo.commit(**{"content/a.md": article("A"), "content/b.md": article("B")})
    run_cli(repo, "enqueue", "--push", "0" * 40, after)
    assert set(repo.ledger().pending) == {"site:content/a.md", "site:content/b.md"}


def test_a_future_dated_article_is_published_only_once_due(repo: Repo) -> None:
    """Scheduled publishing: not before `publish_at`, then by the next run."""
    clock = ManualClock(datetime.now(UTC).replace(microsecond=0))
    due = clock.now() + timedelta(hours=3)
    repo.commit(**{"content/later.md": article("Later", publish_at=f"'{due.isoformat()}'")})
    assert "0 published" in run_cli(repo, "run", clock=clock).out
    assert repo.ledger().pending["site:content/later.md"].not_before == due
    assert f"publishes at {format_time(due)}" in run_cli(repo, "status", clock=clock).out
    clock.advance(3 * 3600 - 1)
    assert "0 published" in run_cli(repo, "run", clock=clock).out, "a second early is early"
    clock.advance(1)
    assert "1 published" in run_cli(repo, "run", clock=clock).out


def test_drafts_wait_until_they_flip(repo: Repo) -> None:
    """`draft: true` is not published; the commit that removes it publishes the article."""
    repo.commit(**{"content/d.md": article("D", draft="true")})
    run_cli(repo, "run")
    ledger = repo.ledger()
    assert not ledger.pending and not ledger.published, "no work: only where the reconcile was"
    assert ledger.reconciled is not None and ledger.reconciled.commit == repo.head()
    head = repo.state_head()
    run_cli(repo, "run")
    assert repo.state_head() == head, "the same content again: nothing written"
    repo.commit(**{"content/d.md": article("D", draft="false")})
    run_cli(repo, "run")
    assert published_keys(repo) == {"site:content/d.md"}


def test_a_transient_failure_stays_pending_and_retry_by_hand_publishes(repo: Repo) -> None:
    """A failing target defers the item (exit 1) with its error; after the fix, `retry PATH`."""
    repo.commit(**{"content/a.md": article("A")})
    broken_site(repo)
    result = run_cli(repo, "run")
    item = repo.ledger().pending["site:content/a.md"]
    assert result.code == 1 and item.attempts == 1 and "cannot be read" in (item.last_error or "")
    assert item.next_attempt_at is not None and item.next_attempt_at > datetime.now(UTC)
    (repo.root / "_site" / SUMMARY).unlink()
    result = run_cli(repo, "retry", "content/a.md")
    assert result.code == 0 and published_keys(repo) == {"site:content/a.md"}


def test_what_keeps_failing_is_dead_lettered_and_retry_by_issue_revives_it(repo: Repo) -> None:
    """After max_attempts the item is dead with one letter; `retry --issue N` republishes it."""
    repo.commit(**{"steadypress.yml": FAST, "content/a.md": article("A")})
    broken_site(repo)
    assert run_cli(repo, "run").code == 1
    assert run_cli(repo, "sweep").code == 0
    dead = repo.ledger().dead["site:content/a.md"]
    assert (dead.attempts, dead.alert, dead.permanent) == (2, 1, False)
    assert len(list((repo.root / ".steadypress/dead-letters").glob("*.md"))) == 1
    (repo.root / "_site" / SUMMARY).unlink()
    result = run_cli(repo, "retry", "--issue", "1")
    assert result.code == 0 and published_keys(repo) == {"site:content/a.md"}
    assert (
        (repo.root / ".steadypress/dead-letters/0001.md").read_text().startswith("Status: resolved")
    )


def test_retry_all_dead(repo: Repo) -> None:
    """`retry --all-dead` gives every dead item a fresh start."""
    repo.commit(**{"content/a.md": "---\n---\nno title\n", "content/b.md": "---\n---\nnone\n"})
    run_cli(repo, "run")
    assert len(repo.ledger().dead) == 2
    result = run_cli(repo, "retry", "--all-dead")
    assert len(repo.ledger().dead) == 2, "still broken: dead again, same letters"
    assert {d.alert for d in repo.ledger().dead.values()} == {1, 2} and result.code == 0


@pytest.mark.parametrize(
    "path", ["../etc/passwd", "/etc/passwd.md", "content/../x.md", "notes/a.md", "content/a.txt"]
)
def test_retry_refuses_paths_outside_content(repo: Repo, path: str) -> None:
    """Retry takes only .md files under content/, with no '..': anything else is exit 2."""
    repo.commit(**{"content/a.md": article("A")})
    result = run_cli(repo, "retry", path)
    assert result.code == 2 and "not an article path" in result.err


def test_status_shows_the_ledger_and_json_for_scripts(repo: Repo) -> None:
    """`status` says what is published, pending and dead; `--json` gives the whole ledger."""
    repo.commit(**{"content/a.md": article("A"), "content/bad.md": "x"})
    run_cli(repo, "run")
    text = run_cli(repo, "status").out
    assert "published: 1" in text and "dead: 1" in text and "site:content/bad.md: " in text
    assert "dead-letters/0001.md" in text
    document = json.loads(run_cli(repo, "status", "--json").out)
    assert set(document) == {"format", "state_version", "pending", "published", "dead"}
    assert document["state_version"] == repo.state_head()
    assert document["published"]["site:content/a.md"]["url"] == "http://localhost:8000/a/"


def test_status_says_when_a_dead_version_left_an_older_one_on_the_target(repo: Repo) -> None:
    """A new version that died does not take the old one down: status says which is shown."""
    repo.commit(**{"steadypress.yml": FAST, "content/a.md": article("A")})
    run_cli(repo, "run")
    repo.commit(**{"content/a.md": "---\ntitle: [unclosed\n---\n"})
    run_cli(repo, "run")
    text = run_cli(repo, "status").out
    assert "  site:content/a.md: " in text and "dead-letters/0001.md" in text
    assert "the target still shows an older version (http://localhost:8000/a/)" in text


def test_inside_github_actions_the_job_summary_and_annotations_are_written(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With GITHUB_STEP_SUMMARY set, the run appends a table with links; errors are annotated."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    repo.commit(**{"content/a.md": article("A"), "content/bad.md": "x"})
    result = run_cli(repo, "run", "--backend", "local")
    text = summary.read_text()
    assert (
        "| `site:content/a.md` | published | [http://localhost:8000/a/](http://localhost:8000/a/) |"
        in text
    )
    assert "| `site:content/bad.md` | dead letter #1 |" in text
    assert (
        "::error file=content/bad.md,title=Dead letter (site)::content/bad.md%3A" not in result.out
    )
    assert (
        "::error file=content/bad.md,title=Dead letter (site)::content/bad.md: front matter"
        in result.out
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("max_atempts: 3\n", "unknown key 'max_atempts'"),
        ("timings: {lease: soon}\n", "timings.lease"),
    ],
)
def test_a_configuration_mistake_is_exit_2_with_the_key_named(
    repo: Repo, config: str, message: str
) -> None:
    """Bad configuration stops every command before anything is read or written."""
    repo.commit(**{"steadypress.yml": config, "content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert result.code == 2 and message in result.err and repo.state_head() is None


def test_a_directory_that_is_not_a_repository_is_exit_2(tmp_path: Path) -> None:
    """Pointing --repo at a plain folder is a usage error, said plainly."""
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["run", "--repo", str(plain)]) == 2


COMMANDS = [
    ["run"],
    ["enqueue", "content/a.md"],
    ["enqueue", "--push", "HEAD~1", "HEAD"],
    ["drain"],
    ["sweep"],
    ["retry", "content/a.md"],
    ["retry", "--all-dead"],
    ["status"],
    ["status", "--json"],
    ["live", "--ticks", "1", "--interval", "0"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_corrupt_pending_json_makes_every_command_exit_3_without_writing(
    repo: Repo, command: list[str]
) -> None:
    """State that cannot be parsed is never overwritten: exit 3, branch and site untouched."""
    repo.commit(**{"content/a.md": article("A")})
    run_cli(repo, "run")
    repo.commit(**{"content/b.md": article("B")})
    repo.overwrite_state_file("state/pending.json", b'{"version": 1, "pending": {"x": ')
    head, site = repo.state_head(), sorted((repo.root / "_site").rglob("*"))
    result = run_cli(repo, *command)
    assert result.code == 3, result.err
    assert (
        "state/pending.json: not valid JSON" in result.err and "nothing was changed" in result.err
    )
    assert repo.state_head() == head and sorted((repo.root / "_site").rglob("*")) == site


def test_a_dead_letter_that_cannot_be_opened_is_opened_by_a_later_sweep(repo: Repo) -> None:
    """The ledger is written first: when the channel fails, the item is dead with no alert, and
    every sweep tries again until the alert exists."""
    repo.commit(**{"content/bad.md": "no front matter", "steadypress.yml": FAST})
    blocker = repo.root / ".steadypress"
    blocker.write_text("a file where the dead-letter folder should be")
    result = run_cli(repo, "run")
    assert "could not open a dead letter for site:content/bad.md" in result.err
    assert repo.ledger().dead["site:content/bad.md"].alert is None
    blocker.unlink()
    result = run_cli(repo, "sweep")
    assert result.code == 0 and repo.ledger().dead["site:content/bad.md"].alert == 1
    assert (repo.root / ".steadypress/dead-letters/0001.md").exists()


def test_state_commits_grow_with_batches_not_with_articles(repo: Repo) -> None:
    """60 new articles cost one claim per batch, the enqueue inside the first claim and each
    batch's outcomes inside the next claim, and one record of the last batch's: the commit
    count follows the number of batches, not of articles."""
    repo.commit(**{f"content/p{n:02d}.md": article(f"P{n}") for n in range(60)})
    result = run_cli(repo, "run")
    assert result.code == 0 and "60 published" in result.out
    assert repo.state_commits() == math.ceil(60 / CLAIM_BATCH) + 1
    assert repo.state_writes() == [
        "steadypress: claim",
        "steadypress: record outcomes and claim",
        "steadypress: record outcomes and claim",
        "steadypress: record outcomes",
    ]


def test_a_claim_that_fails_still_leaves_the_batch_before_recorded(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next claim's write was to record the batch's outcomes: when that claim fails, they
    are recorded by a write of their own, and the published batch is not published again."""

    def broken(_pipeline: object) -> object:
        def apply(_ledger: Ledger, _now: datetime) -> object:
            raise RuntimeError("the backlog could not be planned")

        return apply

    monkeypatch.setattr("steadypress.executor.admission", broken)
    repo.commit(**{f"content/p{n:02d}.md": article(f"P{n}") for n in range(60)})
    with pytest.raises(RuntimeError, match="the backlog could not be planned"):
        run_cli(repo, "run")
    ledger = repo.ledger()
    assert len(ledger.published) == CLAIM_BATCH
    assert len(ledger.pending) == 60 - CLAIM_BATCH
    assert repo.state_writes() == [
        "steadypress: claim",
        "steadypress: record outcomes",
    ]


def test_a_big_push_is_claimed_in_batches_that_grow_with_the_work(repo: Repo) -> None:
    """400 articles: a quarter of what waits, and never less than the drain's first claim
    took, so the site's listings are rewritten four times, not sixteen (25 a claim) nor a
    dozen (a quarter of what is left)."""
    repo.commit(**{f"content/p{n:03d}.md": article(f"P{n}") for n in range(400)})
    result = run_cli(repo, "run")
    assert result.code == 0 and "400 published" in result.out
    assert claim_size(400) == 100 and claim_size(300, earlier=100) == 100
    assert repo.state_commits() == 4 + 1


def broken_site(repo: Repo) -> None:
    """A site whose index cannot be read: every publish to it fails, transiently."""
    (repo.root / "_site" / SUMMARY).parent.mkdir(parents=True, exist_ok=True)
    (repo.root / "_site" / SUMMARY).write_text("{broken")


def test_a_pending_article_that_is_deleted_is_not_published(repo: Repo) -> None:
    """HEAD is the desired state: a waiting version of a deleted article is not published from
    git history; its work becomes an unpublish (a failed attempt may have reached the target),
    which here finds nothing to remove."""
    repo.commit(
        **{"steadypress.yml": FAST, "content/a.md": article("A"), "content/b.md": article("B")}
    )
    broken_site(repo)
    run_cli(repo, "run")
    assert set(repo.ledger().pending) == {"site:content/a.md", "site:content/b.md"}
    repo.git("rm", "-q", "content/a.md")
    repo.commit("remove a")
    (repo.root / "_site" / SUMMARY).unlink()
    assert run_cli(repo, "sweep").code == 0
    assert published_keys(repo) == {"site:content/b.md"} and not repo.ledger().pending
    assert not (repo.root / "_site/a").exists()


def test_a_push_that_deletes_or_drafts_a_pending_article_publishes_neither(repo: Repo) -> None:
    """The push path sees removals and new drafts too, so its drain publishes neither."""
    before = repo.commit(
        **{
            "steadypress.yml": FAST,
            "content/a.md": article("A"),
            "content/b.md": article("B"),
        }
    )
    broken_site(repo)
    run_cli(repo, "run")
    repo.git("rm", "-q", "content/a.md")
    after = repo.commit(**{"content/b.md": article("B", draft="true")})
    (repo.root / "_site" / SUMMARY).unlink()
    assert run_cli(repo, "enqueue", "--push", before, after).code == 0
    assert all(item.unpublishes for item in repo.ledger().pending.values())
    assert run_cli(repo, "drain").code == 0 and not published_keys(repo)
    assert not repo.ledger().pending


def test_drain_with_a_push_enqueues_and_claims_in_one_write(repo: Repo) -> None:
    """`drain --push` publishes the push's articles with two state commits: enqueue with the
    claim, then the outcomes."""
    before = repo.commit(**{"content/old.md": article("Old")})
    run_cli(repo, "run")
    commits = repo.state_commits()
    after = repo.commit(**{"content/new.md": article("New")})
    result = run_cli(repo, "drain", "--push", before, after)
    assert result.code == 0 and "1 published" in result.out and "1 enqueued" in result.out
    assert repo.state_commits() == commits + 2


def test_work_for_a_target_removed_from_the_configuration_is_withdrawn(repo: Repo) -> None:
    """An item whose target is gone from steadypress.yml would wait forever: sweep drops it."""
    hook = "  hook: {kind: webhook, url: 'http://127.0.0.1:9/none', secret_env: NOT_SET_ANYWHERE}\n"
    site_only = "timings: {grace: 0s}\ntargets:\n  site: {kind: site}\n"
    repo.commit(**{"steadypress.yml": site_only + hook, "content/a.md": article("A")})
    run_cli(repo, "run")
    assert set(repo.ledger().pending) == {"hook:content/a.md"}, "skipped: no secret in this run"
    repo.commit(**{"steadypress.yml": site_only})
    result = run_cli(repo, "sweep")
    assert "withdrawing work for targets no longer configured: hook:content/a.md" in result.err
    assert not repo.ledger().pending and set(repo.ledger().published) == {"site:content/a.md"}


def test_a_command_runs_with_the_startup_objects_frozen_and_unfreezes_them_after(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collector leaves what a command starts with (modules, classes) alone while it runs,
    and collects the young far more rarely than by default (a large build's index is not
    walked again and again); both are given back after: a caller running many commands in one
    process pins nothing and keeps its own thresholds."""
    repo.commit(**{"content/a.md": article("A")})
    frozen_while_running: list[int] = []
    thresholds_while_running: list[tuple[int, int, int]] = []
    real_run = commands.run

    def run(*args: object, **kwargs: object) -> int:
        frozen_while_running.append(gc.get_freeze_count())
        thresholds_while_running.append(gc.get_threshold())
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(commands, "run", run)
    monkeypatch.chdir(repo.root)
    own = gc.get_threshold()
    gc.set_threshold(123, 4, 5)
    gc.unfreeze()  # a caller that froze nothing (this suite's workers freeze what they load)
    try:
        assert main(["run", "--repo", str(repo.root)]) == 0
        assert gc.get_threshold() == (123, 4, 5)
        assert gc.get_freeze_count() == 0
        # A caller that froze its own objects keeps them frozen.
        gc.freeze()
        frozen = gc.get_freeze_count()
        repo.commit(**{"content/b.md": article("B")})
        assert main(["run", "--repo", str(repo.root)]) == 0
        # (Some frozen objects die of their last reference meanwhile; thawed, none would stay.)
        assert gc.get_freeze_count() > frozen * 0.9
    finally:
        gc.set_threshold(*own)
        gc.freeze()
    assert frozen_while_running[0] > 1000, "the modules a command imports are frozen"
    assert thresholds_while_running == [GC_THRESHOLDS] * 2 and GC_THRESHOLDS[0] >= 10_000
    assert set(repo.ledger().published) == {"site:content/a.md", "site:content/b.md"}


RENDERERS = ("cmarkgfm", "jinja2", "pygments")


def loaded_renderers(repo: Repo, *args: str) -> list[str]:
    """The rendering libraries a fresh process has imported after running the command."""
    script = (
        "import sys\nfrom steadypress.cli import main\n"
        f"try:\n    code = main({list(args)!r})\n"
        "except SystemExit as exit:  # argparse's --help\n    code = exit.code\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:]))\n"
        "print('LOADED', code, *loaded, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *RENDERERS], cwd=repo.root, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
    _, code, *loaded = line.split()
    assert code == "0", done.stderr
    return loaded


def test_a_command_that_renders_nothing_loads_no_renderer(repo: Repo) -> None:
    """Jinja2, cmark-gfm and Pygments are imported when a page is first rendered: `--help`
    and an idle sweep start without them; a sweep that publishes loads them."""
    repo.commit(**{"content/a.md": article("A")})
    assert loaded_renderers(repo, "sweep") == list(RENDERERS)
    assert loaded_renderers(repo, "sweep") == []
    assert loaded_renderers(repo, "--help") == []


@pytest.mark.parametrize(
    "config",
    [None, "targets:\n  site:\n    kind: site\n    branch: gh-pages\n"],
    ids=["embedded default", "the site on a branch, as init writes it"],
)
def test_status_loads_neither_a_target_nor_the_content_nor_the_article_parser(
    repo: Repo, config: str | None
) -> None:
    """`status` reads the state and the dead letters: what publishes (the targets, the
    content branch, front matter's parser, the feeds' XML) is never imported for it, as a
    sweep imports them, not even to check the site's settings; nor the modules only an HTTP
    answer's date, a job summary's escaping, a host's name, a time zone's database or a
    configuration file would need (some 10 ms of its start each); nor OpenSSL's library, the
    temporary files' and random numbers' modules, a run's report and context (some 9 ms); nor
    the ledger's transitions, with the sightings and outcomes they take (four dataclasses,
    whose methods are compiled as their module loads: some 4 ms), nor what targets are
    built with (one more)."""
    heavy = ["steadypress.articles", "steadypress.content", "steadypress.pipeline",
             "steadypress.targets.base", "frontmatter", "xml.etree"]  # fmt: skip
    not_needed = ["email.utils", "html", "socket", "uuid", "zoneinfo", "_hashlib", "tempfile",
                  "random", "steadypress.report", "steadypress.runcontext",
                  "steadypress.transitions", "steadypress.claiming",
                  "steadypress.targets.context"]  # fmt: skip
    not_needed += [] if config else ["yaml"]  # PyYAML only for a configuration to read
    repo.commit(**{"content/a.md": article("A")}, **({"steadypress.yml": config} if config else {}))
    assert run_cli(repo, "run").code == 0
    script = (
        "import sys\nfrom steadypress.cli import main\ncode = main(sys.argv[1:2])\n"
        "print('LOADED', code, *sorted(set(sys.modules) & set(sys.argv[2:])), file=sys.stderr)"
    )

    def loaded(command: str, modules: list[str]) -> list[str]:
        done = subprocess.run([sys.executable, "-c", script, command, *modules], cwd=repo.root,
                              capture_output=True, text=True, check=True)  # fmt: skip
        (line,) = [line for line in done.stderr.splitlines() if line.startswith("LOADED ")]
        _, code, *names = line.split()
        assert code == "0", done.stderr
        return names

    assert loaded("status", [*heavy, *not_needed]) == []
    assert loaded("sweep", heavy) == sorted(heavy)


def test_a_repository_with_no_commit_is_told_to_commit_its_articles_first(tmp_path: Path) -> None:
    """The first day: `git init`, articles written, nothing committed yet. Exit 2, one line."""
    repo = Repo(tmp_path / "blog")
    repo.write("content/a.md", article("A"))
    for command in ("run", "check"):
        result = run_cli(repo, command)
        assert result.code == 2, (command, result.err)
        assert "has no commit to read articles from: commit your articles first" in result.err
        assert "CNAME" not in result.err, "not the custom domain's file's problem"
        assert "Traceback" not in result.err


def test_run_and_check_name_the_articles_not_committed_yet(repo: Repo) -> None:
    """What is published is the commit: an article edited or added and not committed is left
    out, and named, not passed over in silence."""
    repo.commit(**{"content/a.md": article("A")})
    repo.write("content/a.md", article("A, edited"))
    repo.write("content/new.md", article("New"))
    repo.write("content/notes.txt", "not an article")
    ran = run_cli(repo, "run")
    assert ran.code == 0
    said = "steadypress: 2 article(s) with changes not committed, left out until they are: "
    assert f"{said}content/a.md, content/new.md" in ran.err
    assert "notes.txt" not in ran.err
    assert not (repo.root / "_site/new").exists()
    assert f"{said}content/a.md, content/new.md" in run_cli(repo, "check").err
    assert "not committed" not in run_cli(repo, "check", "--worktree").err
    repo.commit()
    assert "not committed" not in run_cli(repo, "run").err


def test_paths_relative_to_the_current_folder_work_as_from_the_root(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In `content/guides/`, `check a.md`, `enqueue ./a.md` and `retry a.md` name the article
    as a shell completes it there; a path from the root still works from anywhere."""
    repo.commit(**{"content/guides/a.md": article("A"), "content/b.md": article("B")})
    monkeypatch.chdir(repo.root / "content/guides")
    assert run_cli(repo, "check", "a.md").code == 0
    assert run_cli(repo, "check", "content/b.md").code == 0, "from the root, as ever"
    assert run_cli(repo, "enqueue", "./a.md").code == 0
    assert "site:content/guides/a.md" in repo.ledger().pending
    missing = run_cli(repo, "check", "nope.md")
    assert missing.code == 2 and "nope.md" in missing.err
