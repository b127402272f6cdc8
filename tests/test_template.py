"""The template belongs to its user: with the sample articles replaced by someone else's, the
tool's tests still pass, because no test reads the repository's content/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import article

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parent.parent
# The test files that publish a whole sample blog: the ones that once read content/.
SAMPLE_BLOG_TESTS = [
    "tests/test_cli_stories.py",
    "tests/test_site_pages.py",
    "tests/test_browser.py",
]


def test_a_blog_made_from_the_template_with_its_own_articles_stays_green(tmp_path: Path) -> None:
    """Copy the project as git tracks it, replace content/ with one article of the user's own
    (no title the samples have, no images), and run the sample-blog tests there."""
    copy = tmp_path / "my-blog"
    tracked = (
        subprocess.run(
            ["git", "-C", str(PROJECT), "ls-files", "-z"], check=True, capture_output=True
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, tracked):
        if name.startswith("content/") or not (PROJECT / name).is_file():
            continue
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, copy / name)
    (copy / "content").mkdir()
    (copy / "content/my-first-post.md").write_text(article("Nothing like the samples"))
    environment = {**os.environ, "PYTHONPATH": str(copy / "scripts")}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *SAMPLE_BLOG_TESTS],
        cwd=copy, env=environment, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    assert " passed" in completed.stdout
