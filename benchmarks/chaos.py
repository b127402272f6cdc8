"""The chaos suite at full size: the real pipeline against killed executors, dropped events, a
late and lossy schedule, API faults and leftover leases, on both backends, in simulated time;
and the owner-label model under the very same scenario.

Prints a Markdown table (the one in README.md) and exits 1 if any promise was broken: an article
lost, a post duplicated, a dead letter for anything but a poison article, a lease or pending
item left at the end, a state commit invalid against state/schema.

Usage: .venv/bin/python benchmarks/chaos.py [--articles 1000] [--seed 1] [--backend both]
       [--clock-skew SECONDS]   each run's UTC clock off by up to this either way
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the scenario, the fakes and the model live with the tests

from tests.chaos.owner_model import play_owner_model  # noqa: E402
from tests.chaos.scenario import Settings, draw  # noqa: E402
from tests.chaos.summary import problems, table  # noqa: E402
from tests.chaos.world import Outcome, run_scenario  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--poison", type=int, default=5)
    parser.add_argument("--hours", type=float, default=24.0, help="pushes spread over this")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=("local", "github", "both"), default="both")
    parser.add_argument(
        "--clock-skew",
        type=float,
        default=0.0,
        help="seconds; the stated bound (docs/how-it-works.md) is 580",
    )
    args = parser.parse_args()
    settings = Settings(
        articles=args.articles, poison=args.poison, hours=args.hours, seed=args.seed,
        clock_skew=args.clock_skew,
    )  # fmt: skip
    scenario = draw(settings)
    print(
        f"scenario: seed {settings.seed}, {settings.articles} articles in {len(scenario.pushes)} "
        f"pushes over {settings.hours:g} h ({sum(len(p.edits) for p in scenario.pushes)} edits, "
        f"{len(scenario.removed)} removals), {len(scenario.runs)} executor runs, "
        f"{len(scenario.stale_leases)} leftover leases, {len(scenario.live_sessions)} live-mode "
        f"sessions, clocks off by up to {settings.clock_skew:g} s",
        flush=True,
    )
    outcomes: list[Outcome] = []
    broken = False
    for backend in ("local", "github") if args.backend == "both" else (args.backend,):
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as folder:
            outcome = run_scenario(scenario, Path(folder), backend=backend)
        print(f"{backend}: {time.monotonic() - started:.0f} s of wall time", flush=True)
        for problem in problems(outcome, scenario.poison):
            broken = True
            print(f"  BROKEN PROMISE ({backend}): {problem}")
        outcomes.append(outcome)
    print()
    print(table(outcomes, play_owner_model(scenario), scenario))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
