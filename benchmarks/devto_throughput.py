"""Publishing N new articles to dev.to (the Forem fake) against its rate limit.

dev.to allows 10 creates per 30 s, so 100 new articles cannot take less than about 270-300 s
(ten full windows, the last of them partly used). The fake enforces the same limit with 429s;
steadypress paces itself under it. Prints the wall time, the ratio to the floor, the requests
made and the 429s earned (the goal: none).

`--window 30` is dev.to's real window (about five minutes for 100 articles); a shorter window
scales the floor and the run together, so the ratio is the comparable figure.

Usage: .venv/bin/python benchmarks/devto_throughput.py [--articles 100] [--window 30]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the Forem fake lives with the tests

from tests.fakes.devto import FakeForem  # noqa: E402

from steadypress.cli import main  # noqa: E402

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]


def run(articles: int, window: float) -> None:
    with FakeForem(window=window) as forem, tempfile.TemporaryDirectory() as folder:
        repo = Path(folder)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "steadypress.yml").write_text(
            f"targets:\n  devto: {{kind: devto, api_url: '{forem.api_url}', window: {window}s}}\n"
        )
        for n in range(articles):
            path = repo / "content" / f"post-{n:03d}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"---\ntitle: Post {n}\ntags: [bench]\n---\n\nWords.\n")
        subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
        subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "articles"], check=True)
        with mock.patch.dict(os.environ, {"DEVTO_API_KEY": forem.api_key}):
            start = time.perf_counter()
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                code = main(["run", "--repo", str(repo), "--backend", "local"])
            elapsed = time.perf_counter() - start
        floor = (-(-articles // 10) - 1) * window  # full windows waited before the last batch
        print(f"articles            {articles}")
        print(f"window              {window:g} s (10 creates per window)")
        print(f"exit code           {code}")
        most = max(forem.creates.values(), default=0)
        print(f"posts on dev.to     {len(forem.posts)} (creates per article, at most: {most})")
        print(f"wall time           {elapsed:.1f} s")
        print(f"floor               {floor:.1f} s")
        print(f"ratio to the floor  {elapsed / floor:.3f}" if floor else "ratio to the floor  n/a")
        print(f"429s earned         {forem.rate_limited}")


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=100)
    parser.add_argument("--window", type=float, default=30.0)
    args = parser.parse_args()
    run(args.articles, args.window)


if __name__ == "__main__":
    main_()
