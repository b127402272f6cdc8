"""How long a command takes to start: `steadypress --help` and an idle local sweep (a blog of
generated articles, all published), side by side with the bare interpreter (`python -c pass`),
min and median of several runs, and the ratios. Each is a fresh process, as on a runner.

Usage: .venv/bin/python benchmarks/startup.py [--runs 9] [--articles 50]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers import Repo, article  # noqa: E402

STEADYPRESS = Path(sys.executable).parent / "steadypress"


def timed(command: list[str], cwd: Path, runs: int) -> list[float]:
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, capture_output=True, check=True)
        seconds.append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--articles", type=int, default=50)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        repo = Repo(Path(folder) / "blog")
        repo.commit(
            **{f"content/{n:03}.md": article(f"Article {n}") for n in range(options.articles)}
        )
        subprocess.run([str(STEADYPRESS), "run"], cwd=repo.root, capture_output=True, check=True)
        rows = {
            "python -c pass": timed([sys.executable, "-c", "pass"], repo.root, options.runs),
            "steadypress --help": timed([str(STEADYPRESS), "--help"], repo.root, options.runs),
            "steadypress sweep (idle)": timed([str(STEADYPRESS), "sweep"], repo.root, options.runs),
        }
    bare = statistics.median(rows["python -c pass"])
    print(f"{options.runs} runs each, {options.articles} articles published")
    print(f"{'command':28} {'min s':>7} {'median s':>9} {'x bare (median)':>16}")
    for name, seconds in rows.items():
        median = statistics.median(seconds)
        print(f"{name:28} {min(seconds):7.3f} {median:9.3f} {median / bare:16.1f}")


if __name__ == "__main__":
    main()
