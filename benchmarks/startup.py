"""How long a command takes to start: `steadypress --help`, `status` and an idle local sweep
(a blog of generated articles, all published), side by side with the bare interpreter
(`python -c pass`): wall and CPU time (user and system, of the process and its children: git),
min and median of several runs, and the ratios. Each is a fresh process, as on a runner, with
steadypress's modules compiled to bytecode first, as `pip install` leaves them (an editable
install under PYTHONDONTWRITEBYTECODE would compile them again in every process).

Usage: .venv/bin/python benchmarks/startup.py [--runs 9] [--articles 50]
"""

from __future__ import annotations

import argparse
import resource
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


def timed(command: list[str], cwd: Path, runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each run (the CPU of the command and whatever it started)."""
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, capture_output=True, check=True)
        wall.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--articles", type=int, default=50)
    options = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "scripts")], check=True)
    with tempfile.TemporaryDirectory() as folder:
        repo = Repo(Path(folder) / "blog")
        repo.commit(
            **{f"content/{n:03}.md": article(f"Article {n}") for n in range(options.articles)}
        )
        subprocess.run([str(STEADYPRESS), "run"], cwd=repo.root, capture_output=True, check=True)
        rows = {
            "python -c pass": timed([sys.executable, "-c", "pass"], repo.root, options.runs),
            "steadypress --help": timed([str(STEADYPRESS), "--help"], repo.root, options.runs),
            "steadypress status": timed([str(STEADYPRESS), "status"], repo.root, options.runs),
            "steadypress sweep (idle)": timed([str(STEADYPRESS), "sweep"], repo.root, options.runs),
        }
    bare_wall, bare_cpu = (statistics.median(times) for times in rows["python -c pass"])
    print(f"{options.runs} runs each, {options.articles} articles published")
    print(f"{'command':28} {'wall min':>9} {'median':>7} {'x bare':>7} "
          f"{'CPU min':>8} {'median':>7} {'x bare':>7}")  # fmt: skip
    for name, (wall, cpu) in rows.items():
        print(
            f"{name:28} {min(wall):9.3f} {statistics.median(wall):7.3f} "
            f"{statistics.median(wall) / bare_wall:7.1f} {min(cpu):8.3f} "
            f"{statistics.median(cpu):7.3f} {statistics.median(cpu) / bare_cpu:7.1f}"
        )


if __name__ == "__main__":
    main()
