"""A ledger holding 10^5 pending items: how fast does a drain work through it, and how soon does
an article pushed meanwhile go out? A large import no longer makes one (it enters the ledger a
window of 500 at a time, `planning.ADMISSION`), but a state branch written before that may hold
one, and this is what it costs then.

For each size it prints:
  drain rate      articles published per second by one `steadypress drain` in its first
                  `--seconds` (it is stopped then; the rest stays pending, as after a timeout)
  pushed article  seconds from `drain --push` of one new article to its publication, with
                  all of the above still waiting

Usage: .venv/bin/python benchmarks/pending_scale.py [--sizes 1000 100000] [--seconds 30]
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from steadypress.codec import shard_file
from steadypress.ledger import Ledger
from steadypress.published import shard_of
from steadypress.store.localgit import LocalGitStore
from steadypress.transitions import Sighting, enqueue

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
ARTICLE = b"---\ntitle: Imported\n---\n\nAn article from the old blog.\n"


def imported_blog(root: Path, size: int) -> str:
    """A repository whose one commit holds `size` articles (git fast-import: seconds, not
    minutes); returns the commit."""
    subprocess.run([*GIT, "init", "-q", "-b", "main", str(root)], check=True)
    stream = io.BytesIO()
    stream.write(b"blob\nmark :1\ndata %d\n%s\n" % (len(ARTICLE), ARTICLE))
    stream.write(
        b"commit refs/heads/main\ncommitter bench <b@l> 1700000000 +0000\ndata 7\nimport\n"
    )
    for n in range(size):
        stream.write(b"M 100644 :1 content/old/post-%06d.md\n" % n)
    subprocess.run([*GIT, "-C", str(root), "fast-import", "--quiet"], input=stream.getvalue(),
                   check=True)  # fmt: skip
    return git(root, "rev-parse", "HEAD")


def git(root: Path, *args: str, check: bool = True) -> str:
    """Git's output; with `check` False, empty when git fails (a file not there yet)."""
    completed = subprocess.run(
        [*GIT, "-C", str(root), *args], check=check, capture_output=True, text=True
    )
    return completed.stdout.strip() if completed.returncode == 0 else ""


def pending_ledger(root: Path, commit: str, size: int) -> None:
    blob = git(root, "rev-parse", f"{commit}:content/old/post-000000.md")
    sightings = [
        Sighting("site", f"content/old/post-{n:06d}.md", blob, commit) for n in range(size)
    ]
    ledger, _ = enqueue(Ledger(), sightings, now=datetime(2026, 1, 1, tzinfo=UTC))
    store = LocalGitStore(root, "steadypress-state")
    store.save(ledger, based_on=store.load(), message="a large import, all pending")


def published_count(root: Path) -> int:
    store = LocalGitStore(root, "steadypress-state")
    return len(store.load().ledger.published)


def measure(size: int, seconds: float) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "blog"
        commit = imported_blog(root, size)
        pending_ledger(root, commit, size)
        started = time.perf_counter()
        drain = subprocess.Popen(
            [sys.executable, "-m", "steadypress", "drain", "--repo", str(root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(seconds)
        drain.kill()
        drain.wait()
        drained = published_count(root)
        rate = drained / (time.perf_counter() - started)
        # A new article pushed while everything above still waits (the killed drain's leases
        # are live: they hold their own 25 items, not the new one).
        git(root, "read-tree", "HEAD")  # fast-import leaves the index empty
        (root / "content").mkdir()
        (root / "content/new.md").write_text("---\ntitle: New\n---\n\nJust pushed.\n")
        git(root, "add", "content/new.md")
        git(root, "commit", "-q", "-m", "new")
        after = git(root, "rev-parse", "HEAD")
        pushed = time.perf_counter()
        push_run = subprocess.Popen(
            [sys.executable, "-m", "steadypress", "drain", "--push", commit, after,
             "--repo", str(root)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        took: float | None = None
        new_shard = shard_file(shard_of("site:content/new.md"))
        while took is None and time.perf_counter() - pushed < 600:
            shard = git(root, "show", f"steadypress-state:{new_shard}", check=False)
            if '"site:content/new.md"' in shard:
                took = time.perf_counter() - pushed
            else:
                time.sleep(0.05)
        push_run.kill()
        push_run.wait()
        return {
            "drain rate": f"{rate:.1f} articles/s ({drained} in {seconds:.0f} s)",
            "pushed article": "not within 600 s" if took is None else f"{took:.1f} s",
        }


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    print("| pending | drain rate | pushed article published after |")
    print("| --- | --- | --- |")
    for size in args.sizes:
        figures = measure(size, args.seconds)
        print(f"| {size:,} | {figures['drain rate']} | {figures['pushed article']} |")


if __name__ == "__main__":
    main_()
