"""Concurrent executors on one local repository: throughput of state transactions and conflicts.

Two measurements, each with K processes at once:
  cas     K writers each run T enqueue transactions on the state branch: raw compare-and-swap
          throughput (commits per second) and the conflict retries it took.
  drain   N new articles, then K `steadypress drain` processes started together: wall time,
          state commits, conflict retries, and that every article was published exactly once.

Usage: .venv/bin/python benchmarks/contention.py [--executors 1 2 4 8] [--articles 100 400]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

GIT_ENV = ["-c", "user.name=bench", "-c", "user.email=bench@localhost"]

WRITER = Path(__file__).resolve().parent / "cas_writer.py"


def new_repository(root: Path, articles: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for n in range(articles):
        path = root / "content" / f"post-{n:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"---\ntitle: Post {n}\ndate: 2026-01-01\n---\n\n" + "Words. " * 200)
    subprocess.run(["git", *GIT_ENV, "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", *GIT_ENV, "-C", str(root), "commit", "-qm", "articles"], check=True)


def cas(executors: int, per_writer: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        new_repository(root, 1)
        start = time.perf_counter()
        writers = [
            subprocess.Popen(
                [sys.executable, str(WRITER), str(root), f"w{n}", str(per_writer)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(executors)
        ]
        results = [writer.communicate()[0].split() for writer in writers]
        elapsed = time.perf_counter() - start
    commits = sum(int(c) for c, _ in results)
    conflicts = sum(int(c) for _, c in results)
    return (
        f"cas    K={executors:<2} {commits:>5} commits in {elapsed:6.2f} s = "
        f"{commits / elapsed:6.1f} commits/s, {conflicts:>4} conflict retries "
        f"({conflicts / commits:.2f} per commit)"
    )


def drain(executors: int, articles: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        new_repository(root, articles)
        cli = [sys.executable, "-m", "steadypress"]
        subprocess.run(
            [*cli, "enqueue", "--repo", str(root), "--push", "0" * 40, "HEAD"],
            check=True,
            capture_output=True,
        )
        start = time.perf_counter()
        processes = [
            subprocess.Popen(
                [*cli, "drain", "--repo", str(root)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(executors)
        ]
        outputs = [process.communicate() for process in processes]
        elapsed = time.perf_counter() - start
    published = Counter(
        line.split()[1]
        for _, err in outputs
        for line in err.splitlines()
        if line.startswith("published ")
    )
    commits = conflicts = 0
    for out, _ in outputs:
        closing = out.strip().splitlines()[-1]  # "...; N state commit(s), M conflict retries"
        numbers = closing.rsplit(";", 1)[1].split()
        commits += int(numbers[0])
        conflicts += int(numbers[3])
    once = (
        "each once"
        if len(published) == articles and set(published.values()) == {1}
        else "DUPLICATES"
    )
    return (
        f"drain  K={executors:<2} N={articles:<4} {elapsed:6.2f} s, {articles / elapsed:6.1f} "
        f"articles/s, {commits:>3} state commits, {conflicts:>3} conflict retries, {once}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executors", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--articles", type=int, nargs="+", default=[100, 400])
    parser.add_argument("--transactions", type=int, default=40, help="per writer, for cas")
    args = parser.parse_args()
    for executors in args.executors:
        print(cas(executors, args.transactions), flush=True)
    for articles in args.articles:
        for executors in args.executors:
            print(drain(executors, articles), flush=True)


if __name__ == "__main__":
    main()
