"""A Hugo blog through the workflows `init` writes for it (`generator: hugo`, the action
installing Hugo at `hugo-version`), run by the harness against the GitHub fake: the first push
publishes the blog as Hugo builds it; a push of a new article and a broken one commits only the
output files that changed, and the broken one is one dead-letter issue; dev.to's post of the
other links to its Hugo page; the fix publishes the broken one with no command. The suite tells
it at 60 articles; `benchmarks/hugo_workflow_story.py` at 1,000 (`STORY_ARTICLES`), printing
what the push's Pages commit carried beside a whole upload."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadypress.github.store import GitHubStore
from steadypress.init import WORKFLOWS, Setup, render_workflow
from tests.fakes.devto import FakeForem
from tests.fakes.github import FakeGitHub
from tests.harness.runner import RunnerCaches, WorkflowRunner
from tests.helpers import Repo, github_client
from tests.test_generated_site import FIXTURE, hugo_build, post

pytestmark = pytest.mark.slow

PROJECT = Path(__file__).resolve().parent.parent
ZERO = "0" * 40
# The story's size: 60 in the suite, 1,000 in the benchmark that tells it again.
ARTICLES = int(os.environ.get("STORY_ARTICLES", "60"))
CONFIG = """\
content_dir: content
timings: {lease: 10m, grace: 0s, backoff_initial: 0s, backoff_max: 0s}
max_attempts: 2
targets:
  site:
    kind: site
    generator: hugo
    branch: gh-pages
"""


@pytest.fixture
def blog(tmp_path: Path) -> Repo:
    """The template's action and a Hugo blog of ARTICLES posts, with the workflows `init`
    writes for a Hugo blog (the action used from the checkout, as the template's own are)."""
    repo = Repo(tmp_path / "blog")
    listed = subprocess.run(
        ["git", "-C", str(PROJECT), "ls-files", "--cached", "--others", "--exclude-standard",
         "action.yml", "pyproject.toml", "README.md", "LICENSE", "scripts"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for name in listed:
        (repo.root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, repo.root / name)
    shutil.copytree(FIXTURE, repo.root, dirs_exist_ok=True)
    for n in range(ARTICLES):
        day = f"{2012 + n % 14}-{1 + n % 12:02d}-{1 + n % 28:02d}"
        repo.write(f"content/post/{day}-post-{n}.md", post(f"Post {n}", day, f"Words {n}."))
    repo.write("steadypress.yml", CONFIG)
    setup = Setup(content="content", branch="main", prefix="",
                  action="./  # zizmor: ignore[self-repository]", generator="hugo")  # fmt: skip
    for name in WORKFLOWS:
        repo.write(f".github/workflows/{name}.yml", render_workflow(name, setup))
    repo.commit("a Hugo blog with steadypress")
    return repo


@pytest.fixture
def forem() -> Iterator[FakeForem]:
    """dev.to's limit of ten creates a window, with a window of 0.2 s, the pace the
    configuration asks for: the first push posts every article without waiting long."""
    with FakeForem(window=0.2) as fake:
        yield fake


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def push(runner: WorkflowRunner, repo: Repo, before: str) -> None:
    payload = {"ref": "refs/heads/main", "before": before, "after": repo.head(),
               "forced": False, "repository": {"full_name": runner.repository}}  # fmt: skip
    run = runner.run(repo.root / ".github/workflows/publish.yml", "push", payload,
                     sha=repo.head())  # fmt: skip
    assert run.outcome == "success", run.jobs


def pages(github: FakeGitHub) -> dict[str, bytes]:
    names = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split("\n")
    return {name: github.repository.git("show", f"gh-pages:{name}") for name in names if name}


def test_a_hugo_blog_through_its_workflows_commits_only_what_changed(
    blog: Repo, github: FakeGitHub, forem: FakeForem, tmp_path: Path, hugo: str
) -> None:
    devto = f"  devto: {{kind: devto, api_url: '{forem.api_url}', window: 0.2s}}\n"
    blog.commit("dev.to too", **{"steadypress.yml": CONFIG + devto})
    runner = WorkflowRunner(
        origin=blog.root, api_url=github.api_url, graphql_url=github.graphql_url,
        repository=github.full_name, token=github.token,
        caches=RunnerCaches(tool_cache=tmp_path / "tool-cache", store=tmp_path / "store"),
        secrets={"DEVTO_API_KEY": forem.api_key},
    )  # fmt: skip
    started = time.monotonic()
    push(runner, blog, ZERO)
    first = time.monotonic() - started
    own = hugo_build(blog, tmp_path / "hugo-first")
    site = pages(github)
    assert {path: site[path] for path in own} == own  # the whole blog, as Hugo builds it

    before = blog.head()
    blog.commit("a new post and a broken one", **{
        "content/post/2026-12-01-new.md": post("New", "2026-12-01", "Hello."),
        "content/post/2026-12-02-broken.md": post("Broken", "2026-12-02", "{{< nope >}}"),
    })  # fmt: skip
    started = time.monotonic()
    push(runner, blog, before)
    pushed = time.monotonic() - started
    changed = github.repository.text("diff", "--name-only", "gh-pages~1", "gh-pages").split()
    site = pages(github)
    sent, whole = sum(len(site[name]) for name in changed), sum(map(len, site.values()))
    print(
        f"{ARTICLES} articles: first push run {first:.1f} s; a pushed article's run "
        f"{pushed:.1f} s, its Pages commit {len(changed)} files, {sent:,} bytes (a whole upload: "
        f"{len(site)} files, {whole:,} bytes)"
    )
    # The new post's page, the lists and feeds that show it, the record: not the whole site
    # (what an upload of the output, as actions/deploy-pages makes, would send).
    assert "post/2026/12/01/new/index.html" in changed
    assert len(changed) < len(site) / 4 and sent < whole / 2, (len(changed), sent, whole)
    assert not any("broken" in name for name in site)
    (issue,) = github.tracker.issues
    assert "content/post/2026-12-02-broken.md" in issue["title"]
    new = next(p for p in forem.posts.values() if p["title"] == "New")
    assert new["canonical_url"] == "https://example.org/post/2026/12/01/new/"

    before = blog.head()
    blog.commit(
        "fixed", **{"content/post/2026-12-02-broken.md": post("Broken", "2026-12-02", "Ok.")}
    )
    push(runner, blog, before)
    assert "post/2026/12/02/broken/index.html" in pages(github)
    ledger = GitHubStore(github_client(github), repository=github.full_name,
                         branch="steadypress-state").load().ledger  # fmt: skip
    record = ledger.published["site:content/post/2026-12-02-broken.md"]
    assert record.url == "https://example.org/post/2026/12/02/broken/"
    assert github.tracker.issues[0]["state"] == "closed"  # its dead letter is done with
