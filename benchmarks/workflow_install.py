"""What a publish run costs in install time: publish.yml run by the workflow harness (against
the GitHub fake), once cold (nothing cached: steadypress is built and installed) and then warm
(the action restores its cached installation). Prints the whole run's wall time for each: the
difference is the install. On GitHub the cold run also downloads the dependencies from PyPI,
which the harness (offline) does not.

Usage: .venv/bin/python benchmarks/workflow_install.py [--warm 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.harness.runner import RunnerCaches, WorkflowRunner  # noqa: E402
from tests.helpers import Repo, article  # noqa: E402

PUBLISH = ROOT / ".github" / "workflows" / "publish.yml"


def template_copy(repo: Repo) -> None:
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True,
                            check=True).stdout.split()  # fmt: skip
    for name in listed:
        if name.startswith("content/") or not (ROOT / name).is_file():
            continue
        (repo.root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, repo.root / name)
    repo.commit("from the template")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, FakeGitHub() as github:
        repo = Repo(Path(scratch) / "blog")
        template_copy(repo)
        caches = RunnerCaches(tool_cache=Path(scratch) / "tools", store=Path(scratch) / "store")
        runner = WorkflowRunner(
            origin=repo.root, api_url=github.api_url, graphql_url=github.graphql_url,
            repository=github.full_name, token=github.token, caches=caches,
        )  # fmt: skip
        times: list[float] = []
        for n in range(args.warm + 1):
            before = repo.head()
            after = repo.commit(**{f"content/post-{n}.md": article(f"Post {n}")})
            payload = {"ref": "refs/heads/main", "before": before, "after": after}
            started = time.perf_counter()
            run = runner.run(PUBLISH, "push", payload, sha=after)
            times.append(time.perf_counter() - started)
            if run.outcome != "success":
                raise SystemExit(f"run {n} failed: {run.jobs}")
    cold, warm = times[0], times[1:]
    print("| publish run | wall time |")
    print("| --- | --- |")
    print(f"| cold (build and install steadypress) | {cold:.2f} s |")
    middle = statistics.median(warm)
    print(f"| warm, min / median of {len(warm)} | {min(warm):.2f} s / {middle:.2f} s |")


if __name__ == "__main__":
    main()
