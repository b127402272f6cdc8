"""Stories about real processes: killed executors, racing writers, racing drains."""

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from steadypress.targets.site.files import JOURNAL
from steadypress.targets.site.index import NEWEST_FILE, SUMMARY
from steadypress.targets.site.manifest import GENERATED_FOLDERS
from tests.fakes.clock import ManualClock
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, cli_process, publications, run_cli, spawn_cli
from tests.schema import invalid_state_files

pytestmark = pytest.mark.slow

SHORT_LEASES = "timings: {lease: 2s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"


def many_articles(repo: Repo, count: int, *, timings: str = SHORT_LEASES) -> None:
    files = {
        f"content/post-{n:03d}.md": article(f"Post {n}", body=f"Body {n}. " * 50)
        for n in range(count)
    }
    repo.commit(**files, **{"steadypress.yml": timings})


def months_listed(repo: Repo) -> str:
    """The text of every month's pages of the local site: a crowded month's own, and one per
    older part."""
    months = [*repo.root.glob("_site/archive/*/*/index.html"),
              *repo.root.glob("_site/archive/*/*/p*/index.html")]  # fmt: skip
    return "".join(page.read_text() for page in months)


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
    archive = months_listed(repo)
    assert all(archive.count(f'href="/post-{n:03d}/"') == 1 for n in range(count))


# A fault put into the CLI's process: rendering a body that says so kills the process there and
# then, as a native crash in a renderer or the kernel's out-of-memory killer would.
KILLER = """
import os, signal
import steadypress.render as render

_real = render.prerender

def prerender(text):
    if "THIS BODY KILLS ITS RUN" in text:
        os.kill(os.getpid(), signal.SIGKILL)
    return _real(text)

render.prerender = prerender
"""


def test_an_article_that_kills_every_run_it_is_in_is_buried_after_four_and_the_rest_publish(
    repo: Repo, tmp_path: Path
) -> None:
    """An article that kills whatever process publishes it (a crash in a native library, an
    out-of-memory kill) never gets to say so: each run holding it dies, its leases run out,
    and without lapses it would take its whole batch down at every try, forever. Counted as
    lapses, it takes its batch down once, a smaller one once, then goes alone, and after two
    runs alone it is buried with a dead letter, while each of the others is published once."""
    fault = tmp_path / "fault"
    fault.mkdir()
    (fault / "sitecustomize.py").write_text(KILLER)
    path = [str(fault), *filter(None, [os.environ.get("PYTHONPATH")])]
    killing = {"PYTHONPATH": os.pathsep.join(path)}
    lease = timedelta(seconds=1)
    names = ["a", "b", "c-kills", "d", "e", "f"]
    poison = "THIS BODY KILLS ITS RUN"
    repo.commit(
        **{f"content/{n}.md": article(n, body=poison if "kills" in n else n) for n in names},
        **{"steadypress.yml": "timings: {lease: 1s, grace: 0s, backoff_initial: 0s}\n"},
    )

    # The whole push; all of it again, in batches of 25 at most; then alone: a, b, c; c again.
    # (d, e and f are left as the second run left them: a claim changes only what it takes.)
    for killed in range(4):
        if killed:  # the leases the run before left run out
            time.sleep(lease.total_seconds() * 1.2)
        assert cli_process(repo, "run", env=killing).code == -signal.SIGKILL
    ledger = repo.ledger()
    assert sorted(ledger.published) == ["site:content/a.md", "site:content/b.md"]
    assert {key: item.lapses for key, item in ledger.pending.items()} == {
        "site:content/c-kills.md": 3,
        **{f"site:content/{n}.md": 1 for n in "def"},
    }

    last = run_cli(repo, "run", clock=ManualClock(datetime.now(UTC) + lease))
    ledger = repo.ledger()
    assert sorted(ledger.published) == [f"site:content/{n}.md" for n in names if "kills" not in n]
    (corpse,) = ledger.dead.values()
    assert corpse.path == "content/c-kills.md" and corpse.permanent
    assert len(corpse.history) == 4
    assert all("stopped before it finished" in attempt.error for attempt in corpse.history)
    # Dead letters are reported, not crashes: the run that buried it did its work.
    assert last.code == 0 and "1 dead-lettered" in last.out
    assert "gave up on site:content/c-kills.md" in last.err
    letter = (repo.root / ".steadypress/dead-letters/0001.md").read_text()
    assert "content/c-kills.md" in letter and "stopped before it finished" in letter
    assert publications([(last.out, last.err)])["site:content/c-kills.md"] == 0
    assert invalid_state_files(repo.root, "steadypress-state") == []


# A fault put into the CLI's process: the first file of the site's index that the run puts in
# place (its pages are in place before it, its listings and sitemaps after) is its last; the
# process is killed there, as a stopped runner would be.
LANDING_KILLER = """
import os, signal

_real = os.replace

def replace(source, target, *args, **kwargs):
    _real(source, target, *args, **kwargs)
    if any(f"/_site/.steadypress/{kind}/" in str(target) for kind in ("articles", "unfiled")):
        os.kill(os.getpid(), signal.SIGKILL)

os.replace = replace
"""


def test_a_run_killed_while_it_writes_the_site_leaves_nothing_half_written(
    repo: Repo, tmp_path: Path
) -> None:
    """A run killed in the middle of its site write (its pages in place, the index begun, the
    listings and sitemaps not) leaves the write's journal; the next run finishes it before
    anything else, then publishes what the killed one never recorded: every article listed
    once, in the sitemaps and the index, and the journal gone. Without the journal, the next
    run met an index naming every version already, and redid nothing."""
    fault = tmp_path / "fault"
    fault.mkdir()
    (fault / "sitecustomize.py").write_text(LANDING_KILLER)
    path = [str(fault), *filter(None, [os.environ.get("PYTHONPATH")])]
    count = 30
    many_articles(repo, count)
    killed = cli_process(repo, "run", env={"PYTHONPATH": os.pathsep.join(path)})
    assert killed.code == -signal.SIGKILL, killed.err
    assert (repo.root / "_site" / JOURNAL).exists()
    assert not repo.ledger().published

    lease = max(item.lease.expires_at for item in repo.ledger().pending.values() if item.lease)
    result = run_cli(repo, "run", clock=ManualClock(lease))
    assert result.code == 0, result.err
    assert not (repo.root / "_site" / JOURNAL).exists()
    ledger = repo.ledger()
    assert len(ledger.published) == count and not ledger.pending and not ledger.dead
    archive = months_listed(repo)
    sitemaps = "".join(page.read_text() for page in repo.root.glob("_site/sitemap-*.xml"))
    summary = json.loads((repo.root / "_site" / SUMMARY).read_text())
    newest = json.loads((repo.root / "_site" / NEWEST_FILE).read_text())
    for n in range(count):
        assert archive.count(f'href="/post-{n:03d}/"') == 1, n
        assert sitemaps.count(f"/post-{n:03d}/</loc>") == 1, n
    assert newest["total"] == count and "stale" not in summary, summary


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


@contextlib.contextmanager
def _cpu_0_to_ourselves() -> Iterator[None]:
    """Held while busy loops take CPU 0: two such tests at once (this suite's and the one a
    blog made from the template runs inside it) would each give their drains half of what
    they measure, and leases meant to be renewed in time would lapse."""
    with open(Path(tempfile.gettempdir()) / "steadypress-tests-cpu-0.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _starved() -> None:
    """Run on CPU 0 only, at a low priority, beside busy loops that take nearly all of it."""
    os.sched_setaffinity(0, {0})
    os.nice(10)


# Leases for drains starved of CPU: renewed every 2 s (a third of a lease), so a drain must go
# 6 s without the CPU to lose one. With 2 s leases, a 2-core machine that also ran a second copy
# of the suite let a drain go that long, and an article was published twice; idle, the starved
# drains take some 13 s together, so 6 s still leaves them slowed past a lease.
STARVED_LEASES = "timings: {lease: 6s, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\n"


def test_drains_starved_of_cpu_still_renew_their_leases_in_time(repo: Repo) -> None:
    """Four drains squeezed onto one core beside two busy loops, with 6-second leases: the
    drains take longer than a lease, yet renewals keep up and every article is published by
    exactly one of them."""
    many_articles(repo, 60, timings=STARVED_LEASES)
    assert cli_process(repo, "enqueue", "--push", "0" * 40, "HEAD").code == 0
    with _cpu_0_to_ourselves():
        outputs, took = _starved_drains(repo)
    assert all(code == 0 for code, _out, _err in outputs), outputs
    assert took > 6, "the drains were not slowed past a lease: the test proves nothing"
    published = publications([(out, err) for _code, out, err in outputs])
    assert len(published) == 60 and set(published.values()) == {1}, published
    assert len(repo.ledger().published) == 60 and not repo.ledger().pending


def _starved_drains(repo: Repo) -> tuple[list[tuple[int, str, str]], float]:
    """Four drains on CPU 0 beside two busy loops: (exit code, stdout, stderr) of each, and
    how long they took together."""
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
        outputs = [(drain, *drain.communicate(timeout=300)) for drain in drains]
        took = time.monotonic() - started
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    return [(drain.returncode, out, err) for drain, out, err in outputs], took


def test_live_mode_publishes_new_commits_and_stops_cleanly(repo: Repo) -> None:
    """A live poller publishes a commit within a poll or two, and SIGTERM ends it, as it ends
    every publishing command, with what it finished recorded and exit 143 (128 + SIGTERM)."""
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
    assert live.returncode == 128 + signal.SIGTERM, err
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


HOOK_SECRET = "signal-story-secret"


def _when(condition: Callable[[], bool], *, seconds: float = 60.0) -> None:
    """Wait for `condition`, checking every 20 ms (a generous bound: a loaded machine)."""
    ends = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < ends, "timed out waiting"
        time.sleep(0.02)


def _slow_hook_blog(repo: Repo, hook: WebhookReceiver, count: int) -> None:
    files = {f"content/p{n:02d}.md": article(f"P{n}") for n in range(count)}
    config = (
        "timings: {grace: 0s}\n"
        f"targets:\n  hook: {{kind: webhook, url: '{hook.url}', secret_env: WEBHOOK_SECRET}}\n"
    )
    repo.commit(**files, **{"steadypress.yml": config})


STOPPING = [
    ("run", signal.SIGINT),
    ("run", signal.SIGTERM),
    ("drain", signal.SIGTERM),
    ("sweep", signal.SIGTERM),
    ("live", signal.SIGTERM),
]


@pytest.mark.parametrize(
    ("command", "signum"), STOPPING, ids=[f"{c}-{s.name}" for c, s in STOPPING]
)
def test_a_signal_mid_batch_records_what_finished_and_gives_back_the_rest(
    repo: Repo, command: str, signum: int
) -> None:
    """A command asked to stop while it delivers ten articles: it finishes the one in hand,
    records every delivery made, gives back the rest (no lease left, no attempt or lapse
    counted) and exits 128 + the signal; the next run delivers the rest, none twice."""
    with WebhookReceiver(HOOK_SECRET) as hook:
        hook.delay = 0.2
        _slow_hook_blog(repo, hook, 10)
        if command == "drain":
            paths = [f"content/p{n:02d}.md" for n in range(10)]
            assert cli_process(repo, "enqueue", *paths).code == 0
        extra = ["--interval", "1"] if command == "live" else []
        process = spawn_cli(repo, command, *extra, env={"WEBHOOK_SECRET": HOOK_SECRET})
        _when(lambda: hook.requests >= 3)
        process.send_signal(signum)
        out, err = process.communicate(timeout=60)
        assert process.returncode == 128 + signum, err
        assert f"stopped by {signal.Signals(signum).name}" in out
        ledger = repo.ledger()
        assert len(ledger.published) == len(hook.deliveries) >= 3
        assert len(ledger.pending) == 10 - len(ledger.published)
        assert all(
            item.lease is None and item.attempts == 0 and item.lapses == 0
            for item in ledger.pending.values()
        )
        hook.delay = 0.0
        assert cli_process(repo, "run", env={"WEBHOOK_SECRET": HOOK_SECRET}).code == 0
    assert len(repo.ledger().published) == 10 and len(hook.deliveries) == 10
    assert hook.requests == 10, "no article delivered twice"


def test_a_second_signal_stops_the_article_in_hand_too(repo: Repo) -> None:
    """Actions cancels with SIGINT, then SIGTERM 7.5 s later: the second stops a delivery that
    hangs, which is given back unrecorded with the rest, and the process is gone at once."""
    with WebhookReceiver(HOOK_SECRET) as hook:
        _slow_hook_blog(repo, hook, 5)
        hook.delay, hook.delay_from = 30.0, 2  # the third delivery hangs
        process = spawn_cli(repo, "run", env={"WEBHOOK_SECRET": HOOK_SECRET})
        _when(lambda: hook.requests >= 2)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        time.sleep(0.3)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=60)
        assert time.monotonic() - started < 20
        assert process.returncode == 128 + signal.SIGINT, err
        ledger = repo.ledger()
        assert len(ledger.published) == 2 and len(ledger.pending) == 3
        assert not any(item.lease or item.attempts for item in ledger.pending.values())
