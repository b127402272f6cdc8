"""The template belongs to its user: with the sample articles replaced by someone else's, the
tool's tests still pass, because no test reads the repository's content/."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CHROMIUM, NO_CHROMIUM, Repo, article
from tests.packages import package_dirs

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parent.parent


def test_a_blog_made_from_the_template_with_its_own_articles_stays_green(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Copy the project as git tracks it, replace content/ with articles of the user's own (no
    title the samples have, no images), and run the tool's own test command there, `make test`:
    lint, types, workflow audits and every test (this one aside: it would run itself)."""
    blog = Repo(tmp_path / "my-blog")  # "Use this template" makes a repository of its own
    copy = blog.root
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
    (copy / "content/notes").mkdir(parents=True)
    (copy / "content/my-first-post.md").write_text(article("Nothing like the samples"))
    (copy / "content/notes/on-gardens.md").write_text(article("On gardens", tags="[garden]"))
    blog.commit("my blog, from the template")
    # What make test downloads or installs once is shared, as on a machine that made one
    # checkout already: the GitHub schemas (.cache), and this environment's packages and tools
    # beside the copy's own editable steadypress (a venv of its own, installed offline).
    (copy / ".cache").symlink_to(PROJECT / ".cache", target_is_directory=True)
    _environment_for(copy)
    environment = {
        **os.environ,
        "PYTEST_ADDOPTS": f"-p no:cacheprovider --deselect {request.node.nodeid}",
    }
    completed = subprocess.run(
        ["make", "--no-print-directory", "test"],
        cwd=copy, env=environment, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-2000:]
    summary = completed.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
    skips = unexplained_skips(completed.stdout, chromium=Path(CHROMIUM).exists())
    assert not skips, skips


def unexplained_skips(output: str, *, chromium: bool) -> list[str]:
    """The skips a run's report (`-ra`) lists that this machine does not explain: any, but the
    browser test's where Chromium is not installed (optional, as the README says)."""
    skips = [line for line in output.splitlines() if line.startswith("SKIPPED ")]
    return [line for line in skips if chromium or NO_CHROMIUM not in line]


def test_only_the_browser_test_may_be_skipped_and_only_without_chromium() -> None:
    browser = f"SKIPPED [1] tests/test_browser.py:90: {NO_CHROMIUM}"
    other = "SKIPPED [2] tests/test_x.py:3: needs a network"
    report = f"....\n{browser}\n{other}\n== 600 passed, 3 skipped in 1s =="
    assert unexplained_skips(report, chromium=False) == [other]
    assert unexplained_skips(report, chromium=True) == [browser, other]
    assert unexplained_skips(f"....\n{browser}\n", chromium=False) == []


def _environment_for(copy: Path) -> None:
    """`copy/.venv`: this environment's packages and tools, and the copy's steadypress."""
    venv = copy / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    own = next(venv.glob("lib/python*/site-packages"))
    (own / "test-environment.pth").write_text(package_dirs())
    tools = Path(sys.executable).parent
    for tool in ("ruff", "mypy", "actionlint", "zizmor"):
        (venv / "bin" / tool).symlink_to(tools / tool)
    subprocess.run(
        [str(venv / "bin/python"), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
         "--no-build-isolation", "--disable-pip-version-check", "-e", str(copy)],
        check=True, capture_output=True,
    )  # fmt: skip
    for marker in (".test", ".runtime"):  # what the Makefile would install is there
        (venv / marker).touch()
