"""One pushed article into a blog with a history: its articles added two a commit, as a blog
grows (a year of weekly posts is 52 commits; 10,000 articles here are 5,000), where
`first_build.py`'s corpus is one commit. Each figure is the wall time of a whole `steadypress
run` after the push, on a copy of the built blog, min and median of --runs runs; beside it, a
walk of the whole content history (`git log --name-status`, which dated a push's articles
in older versions) and Hugo's build of the same articles, which is what a push costs a site
Hugo builds in CI. On tmpfs (`TMPDIR=/dev/shm`) for the reasons `first_build.py` gives.

Goal: one pushed article costs the same time at 10,000 articles as at 1,000.

Usage: [TMPDIR=/dev/shm] .venv/bin/python benchmarks/history.py [--sizes 1000 10000] [--runs 5]
(--sizes 100000 too: its blog and first build take several minutes)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the corpus is first_build's

from benchmarks.corpus import real_body  # noqa: E402
from benchmarks.first_build import (  # noqa: E402
    GIT,
    article_text,
    compiled,
    hugo_binary,
    hugo_site,
    settled,
    timed,
)

PER_COMMIT = 2
# Articles a folder holds: a blog of 100,000 in one folder makes each commit's tree 100,000
# entries, which fast-import writes anew for every commit (it had not finished after 12 minutes).
PER_FOLDER = 1_000


def article_path(n: int) -> str:
    return f"content/{n // PER_FOLDER:03d}/a{n:06d}.md"


def blog_with_history(root: Path, size: int) -> Path:
    """A repository of `size` articles (first_build's corpus) in folders of PER_FOLDER,
    PER_COMMIT added a commit, an hour apart, written by `git fast-import` (committing them one
    by one would take minutes)."""
    repo = root / "blog"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    stream = []
    for start in range(0, size, PER_COMMIT):
        stamp = 1_600_000_000 + start * 1_800
        stream.append(b"commit refs/heads/main\ncommitter bench <bench@localhost> %d +0000\n"
                      b"data 9\narticles\n" % stamp)  # fmt: skip
        for n in range(start, min(size, start + PER_COMMIT)):
            data = article_text(n).encode()
            stream.append(b"M 100644 inline %s\ndata %d\n%s\n"
                          % (article_path(n).encode(), len(data), data))  # fmt: skip
    fast_import = ["git", "-C", str(repo), "fast-import", "--quiet"]
    subprocess.run(fast_import, input=b"".join(stream), check=True)
    subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", "main"], check=True)
    return repo


def measure(size: int, runs: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {"push": [], "walk": [], "hugo": []}
    command = [sys.executable, "-m", "steadypress", "run"]
    with tempfile.TemporaryDirectory() as folder:
        repo = blog_with_history(Path(folder), size)
        subprocess.run([*command, "--repo", str(repo)], cwd=repo, check=True, capture_output=True)
        settled(repo)
        (repo / "content" / "new.md").write_text(f"---\ntitle: New\n---\n\n{real_body(-1)}")
        # The article alone: not the site the build wrote beside it.
        subprocess.run([*GIT, "-C", str(repo), "add", "content"], check=True)
        subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "new"], check=True)
        walk = ["git", "log", "-z", "--format=%x01%ct", "--name-status", "--", "content"]
        hugo = hugo_binary()
        site = hugo_site(Path(folder), size) if hugo else None
        for run in range(runs):
            copy = Path(folder) / f"copy{run}"
            shutil.copytree(repo, copy, symlinks=True)
            figures["push"].append(timed([*command, "--repo", str(copy)], copy).wall)
            settled(copy)
            shutil.rmtree(copy)
            figures["walk"].append(timed(walk, repo).wall)
            if hugo and site is not None:
                figures["hugo"].append(
                    timed([hugo, "--quiet", "-d", str(site / "public")], site).wall
                )
    return figures


def cell(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} s" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", str(ROOT / "scripts"))
    if not hugo_binary():
        print("hugo is not installed (Debian: apt-get install hugo): its column is empty")
    print("| articles | commits | one pushed article (min / median) "
          "| a walk of the whole history | Hugo's build of them all |")  # fmt: skip
    print("| ---: | ---: | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as bytecode:
        compiled(Path(bytecode))
        for size in args.sizes:
            figures = measure(size, args.runs)
            commits = -(-size // PER_COMMIT) + 1
            print(f"| {size:,} | {commits:,} | {cell(figures['push'])} | {cell(figures['walk'])} "
                  f"| {cell(figures['hugo'])} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
