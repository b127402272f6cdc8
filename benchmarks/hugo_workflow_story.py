"""The Hugo story of tests/test_workflow_hugo.py told at 1,000 articles: a Hugo blog through
the workflows `init` writes for it, run by the workflow harness against the GitHub fake and
the Forem fake. The first push publishes the blog as Hugo builds it; a push of a new article
and a broken one commits only the output files that changed (printed: their count and bytes
beside a whole upload's), the broken one is one dead-letter issue, dev.to's post of the other
links to its Hugo page, and the fix publishes the broken one with no command. Every assertion
of the test holds at this size, or this exits 1.

Usage: [TMPDIR=/dev/shm] .venv/bin/python benchmarks/hugo_workflow_story.py [--articles 1000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1000)
    args = parser.parse_args()
    started = time.monotonic()
    story = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
         "tests/test_workflow_hugo.py"],
        cwd=ROOT, env={**os.environ, "STORY_ARTICLES": str(args.articles)},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    figures = [line for line in story.stdout.splitlines() if " articles: first push run " in line]
    print(*figures, sep="\n")
    print(f"the whole story (the blog made, three pushes): {time.monotonic() - started:.0f} s")
    if story.returncode != 0:
        print(story.stdout[-4000:], story.stderr[-2000:], sep="\n")
    return story.returncode


if __name__ == "__main__":
    sys.exit(main())
