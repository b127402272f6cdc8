"""Stories about real processes: killed executors, racing writers, racing drains."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from steadypress.targets.site.index import SUMMARY
from steadypress.targets.site.manifest import GENERATED_FOLDERS
from tests.fakes.clock import ManualClock
from tests.helpers import Repo, article, cli_process, publications, run_cli, spawn_cli
from tests.schema import invalid_state_files

pytestmark = pytest.mark.slow

SHORT_LEASES = "timings: {lease: 2s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"


def many_articles(repo: Repo, count: int) -> None:
    files = {
        f"content/post-{n:03d}.md": article(f"Post {n}", body=f"Body {n}. " * 50)
        for n in range(count)
    }
    repo.commit(**files, **{"steadypress.yml": SHORT_LEASES})


def pages(repo: Repo) -> dict[str, tuple[int, int]]:
    """Each article's page with its inode and modification time: a rewrite changes them."""
    return {
        str(p.relative_to(repo.root / "_site")): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in (repo.root / "_site").glob("*/index.html")
        if p.parent.name not in GENERATED_FOLDERS
    }


def test_an_executor_killed_mid_drain_loses_nothing_and_sweep_publishes_each_once(
    repo: Repo,
) -> None:
    """SIGKILL in the middle of drain leaves readable state with its leases; once they expire,
    sweep publishes every article, and articles published before the kill are not published
    again."""
    count = 150
    many_articles(repo, count)
    assert cli_process(repo, "enqueue", "--push", "0" * 40, "HEAD").code == 0
    drain = spawn_cli(repo, "drain")
    manifest = repo.root / "_site" / SUMMARY
    deadline = time.monotonic() + 60
    while not manifest.exists() and time.monotonic() < deadline and drain.poll() is None:
        time.sleep(0.002)
    drain.send_signal(signal.SIGKILL)
    drain.wait()
    assert drain.returncode == -signal.SIGKILL, "the drain finished before it could be killed"

    written_before = pages(repo)
    status = cli_process(repo, "status")
    assert status.code == 0, status.err
    ledger = repo.ledger()
    assert 0 < len(written_before) < count
    assert len(ledger.published) < count, "the kill came before every outcome was recorded"
    leased = [item for item in ledger.pending.values() if item.lease is not None]
    assert leased, "the killed executor left its leases behind"

    # The leases expire by themselves; nobody hands anything over.
    expiry = max(item.lease.expires_at for item in leased if item.lease is not None)
    sweep = run_cli(repo, "sweep", clock=ManualClock(expiry))
    assert sweep.code == 0, sweep.err
    ledger = repo.ledger()
    assert len(ledger.published) == count and not ledger.pending and not ledger.dead
    after = pages(repo)
    assert len(after) == count
    # No publication is done twice: a page written before the kill is written again only for
    # its link to the next article, which did not exist yet (the newest one then, at most).
    rewritten = {page for page in written_before if after[page] != written_before[page]}
    assert len(rewritten) <= 1, rewritten
    # A crowded month's pages: its own, and one per older part.
    months = [*repo.root.glob("_site/archive/*/*/index.html"),
              *repo.root.glob("_site/archive/*/*/p*/index.html")]  # fmt: skip
    archive = "".join(page.read_text() for page in months)
    assert all(archive.count(f'href="/post-{n:03d}/"') == 1 for n in range(count))


WRITER = Path(__file__).resolve().parent.parent / "benchmarks" / "cas_writer.py"


def test_eight_processes_writing_one_ledger_lose_no_update(repo: Repo) -> None:
    """8 processes x 15 transactions on one local repository: all 120 items are there, and
    the 120 commits form one chain (compare-and-swap never let a write fork or vanish)."""
    repo.commit()
    writers = [
        subprocess.Popen(
            [sys.executable, str(WRITER), str(repo.root), f"w{n}", "15"],
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ.copy(),
        )
        for n in range(8)
    ]
    reports = [writer.communicate(timeout=300)[0].split() for writer in writers]
    assert all(writer.returncode == 0 for writer in writers)
    assert sum(int(commits) for commits, _ in reports) == 120
    assert len(repo.ledger().pending) == 120
    assert repo.state_commits() == 120
    assert sum(int(conflicts) for _, conflicts in reports) > 0, "the writers really raced"


def test_four_drains_racing_over_one_push_publish_each_article_once(repo: Repo) -> None:
    """Four executors started together over 50 articles: every article published by exactly one."""
    many_articles(repo, 50)
    assert cli_process(repo, "enqueue", "--push", "0" * 40, "HEAD").code == 0
    drains = [spawn_cli(repo, "drain") for _ in range(4)]
    outputs = [drain.communicate(timeout=300) for drain in drains]
    assert all(drain.returncode == 0 for drain in drains), outputs
    published = publications(outputs)
    assert len(published) == 50 and set(published.values()) == {1}
    assert len(repo.ledger().published) == 50 and not repo.ledger().pending


# A busy loop on CPU 0 that ends by itself should the test not end it.
BUSY_LOOP = """import os, time
os.sched_setaffinity(0, {0})
end = time.monotonic() + 120
while time.monotonic() < end:
    pass
"""


def _starved() -> None:
    """Run on CPU 0 only, at a low priority, beside busy loops that take nearly all of it."""
    os.sched_setaffinity(0, {0})
    os.nice(10)


def test_drains_starved_of_cpu_still_renew_their_leases_in_time(repo: Repo) -> None:
    """Four drains squeezed onto one core beside two busy loops, with 2-second leases: each
    batch takes longer than a lease, yet renewals keep up and every article is published by
    exactly one of them."""
    many_articles(repo, 60)
    assert cli_process(repo, "enqueue", "--push", "0" * 40, "HEAD").code == 0
    hogs = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(2)]
    try:
        drains = [
            subprocess.Popen(
                [sys.executable, "-m", "steadypress", "drain", "--repo", str(repo.root)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=_starved,  # noqa: PLW1509 - only sets affinity and priority
            )
            for _ in range(4)
        ]
        started = time.monotonic()
        outputs = [drain.communicate(timeout=300) for drain in drains]
        took = time.monotonic() - started
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    assert all(drain.returncode == 0 for drain in drains), outputs
    assert took > 2, "the drains were not slowed past a lease: the test proves nothing"
    published = publications(outputs)
    assert len(published) == 60 and set(published.values()) == {1}, published
    assert len(repo.ledger().published) == 60 and not repo.ledger().pending


def test_live_mode_publishes_new_commits_and_stops_cleanly(repo: Repo) -> None:
    """A live poller publishes a commit within a poll or two, and SIGTERM ends it with exit 0."""
    # As a blog ignores what the embedded default writes into its checkout (this repository's
    # .gitignore does): the commit below must not stage the site being written meanwhile.
    repo.commit(**{".gitignore": "_site/\n.steadypress/\n", "content/a.md": article("A")})
    live = spawn_cli(repo, "live", "--interval", "0.2")
    try:
        deadline = time.monotonic() + 30
        while not (repo.root / "_site/a/index.html").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        repo.commit(**{"content/b.md": article("B")})
        while not (repo.root / "_site/b/index.html").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (repo.root / "_site/b/index.html").exists()
    finally:
        live.send_signal(signal.SIGTERM)
        _out, err = live.communicate(timeout=30)
    assert live.returncode == 0, err
    assert set(repo.ledger().published) == {"site:content/a.md", "site:content/b.md"}


def test_every_state_commit_of_a_run_is_valid_against_the_schema(repo: Repo) -> None:
    """Not just the last state: each commit on the state branch holds schema-valid files."""
    repo.commit(
        **{"content/a.md": article("A"), "content/bad.md": "x", "steadypress.yml": SHORT_LEASES}
    )
    cli_process(repo, "run")
    repo.commit(**{"content/a.md": article("A2")})
    cli_process(repo, "run")
    commits = repo.git("rev-list", "steadypress-state").split()
    assert len(commits) >= 4
    assert invalid_state_files(repo.root, "steadypress-state") == []
