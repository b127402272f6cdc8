"""GitHub API requests per published article, and for an idle sweep, as the blog grows.

For a blog with N articles already published (10, 100, 1,000), against the loopback GitHub fake
(tests/fakes/github, the same one the tests use; `make schemas` first):
  push 1     `drain --push` of a push adding one article
  push 10    `drain --push` of a push adding ten articles, per article
  remove 10  `drain --push` of a push deleting those ten, per article (goal: the
             same requests as adding them)
  push of nothing  `drain --push` of a push changing no article (a README edit)
  idle sweep `sweep` when nothing is to do
Each row splits state requests (the ledger) from the Pages branch's (the site target's own),
and gives the bytes up and down of the whole push on both branches. The articles are as people
write them (`corpus.py`: 600 to 1,400 words), dated over 15 years, with 200 tags.
Goal: at most 4 state requests per article on the push path, an idle sweep of at most
3 requests, the same at every size (measured now: 3 and 1).

Usage: .venv/bin/python benchmarks/api_cost.py [--sizes 10 100 1000]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import subprocess
import sys
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the GitHub fake lives with the tests

from benchmarks.corpus import real_body  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.helpers import github_client, site_target  # noqa: E402

from steadypress.cli import main  # noqa: E402
from steadypress.content import ContentSource  # noqa: E402
from steadypress.github.store import GitHubStore  # noqa: E402
from steadypress.gitio import Git  # noqa: E402
from steadypress.ledger import Ledger, PublishedRecord, Reconciled  # noqa: E402
from steadypress.published import PublishedRecords  # noqa: E402
from steadypress.targets.site import DirectorySiteFiles  # noqa: E402

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
FIRST_DAY = date(2011, 1, 1)


def article_text(name: str) -> str:
    """An article as people write them (`corpus.py`), dated on a day of 15 years and tagged
    with one of 200 tags, both drawn from its name."""
    n = zlib.crc32(name.encode())
    written = FIRST_DAY + timedelta(days=n % (15 * 365))
    return (f"---\ntitle: {name}\ndate: {written:%Y-%m-%d}\ntags: [t{n % 200}]\n---\n\n"
            f"{real_body(n)}")  # fmt: skip


def commit_articles(repo: Path, names: list[str], *, remove: bool = False) -> str:
    for name in names:
        path = repo / "content" / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        if remove:
            path.unlink()
        else:
            path.write_text(article_text(name))
    return commit_all(repo)


def commit_all(repo: Path) -> str:
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "a push"], check=True)
    return Git(repo).text("rev-parse", "HEAD")


def seed(github: FakeGitHub, repo: Path, count: int) -> str:
    """A blog of `count` published articles: ledger on the state branch, site on gh-pages."""
    head = commit_articles(repo, [f"old-{n:04d}" for n in range(count)])
    source = ContentSource(Git(repo), "content")
    articles = source.list_articles(head)
    with tempfile.TemporaryDirectory() as folder:
        site = site_target(DirectorySiteFiles(Path(folder)))
        published = {}
        for path, blob in articles.items():
            receipt = site.publish(source.read(path, blob, commit=head), None)
            published[f"site:{path}"] = PublishedRecord(
                blob, head, receipt.id, "2026-01-01T00:00:00Z", receipt.url
            )
        files = {
            str(p.relative_to(folder)): github.repository.write_blob(p.read_bytes())
            for p in Path(folder).rglob("*")
            if p.is_file() and not p.name.endswith(".lock")
        }
    tree = github.repository.write_tree(files)
    github.repository.move_branch(
        "gh-pages", github.repository.write_commit(tree, [], "site\n"), None
    )
    store = GitHubStore(
        github_client(github), repository=github.full_name, branch="steadypress-state"
    )
    # Reconciled at `head`, as a blog steadypress has run on is: a push into a state never
    # reconciled compares every article.
    config = source.versions(head, ["steadypress.yml"])["steadypress.yml"]
    store.save(
        Ledger(
            published=PublishedRecords.of(published),
            reconciled=Reconciled(head, ("site",), config),
        ),
        based_on=store.load(),
        message="seed\n\ntransaction: seed",
    )
    return head


def run(repo: Path, *args: str) -> None:
    with (
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()) as err,
    ):
        code = main([args[0], "--repo", str(repo), "--backend", "github", *args[1:]])
    if code != 0:
        raise SystemExit(f"steadypress {' '.join(args)} failed ({code}): {err.getvalue()[-500:]}")


Cost = tuple[float, float, float, float]  # (state, Pages, other) requests; KB up and down


def measure(size: int) -> dict[str, Cost]:
    results: dict[str, Cost] = {}
    with FakeGitHub() as github, tempfile.TemporaryDirectory() as folder:
        repo = Path(folder)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        # The address the seeded site was built for (the backend's default is another, and a
        # push would measure a site moving to a new address).
        (repo / "steadypress.yml").write_text(
            "targets:\n  site:\n    kind: site\n    url: https://blog.example/\n    base_url: /\n"
        )
        environment = {
            "GITHUB_REPOSITORY": github.full_name, "GITHUB_TOKEN": github.token,
            "GITHUB_API_URL": github.api_url, "GITHUB_GRAPHQL_URL": github.graphql_url,
        }  # fmt: skip
        with mock.patch.dict(os.environ, environment):
            before = seed(github, repo, size)
            for label, new, remove in (
                ("push 1", 1, False),
                ("push 10", 10, False),
                ("remove 10", 10, True),
            ):
                after = commit_articles(repo, [f"new-{new}-{n}" for n in range(new)], remove=remove)
                push = ("drain", "--push", before, after)
                results[label] = cost(github, new, functools.partial(run, repo, *push))
                before = after
            (repo / "README.md").write_text("A blog.\n")
            after = commit_all(repo)
            push = ("drain", "--push", before, after)
            results["push of nothing"] = cost(github, 1, functools.partial(run, repo, *push))
            run(repo, "sweep")  # what the pushes left to compare, if anything: then idle
            results["idle sweep"] = cost(github, 1, lambda: run(repo, "sweep"))
    return results


def cost(github: FakeGitHub, articles: int, action: Callable[[], None]) -> Cost:
    """Requests made by `action`, per article: state branch, Pages branch, anything else."""
    total_before, branches_before = (
        sum(github.requests.values()),
        Counter(github.requests_by_branch),
    )
    volume_before = Counter(github.bytes_by_branch)
    action()
    branches = github.requests_by_branch - branches_before
    total = sum(github.requests.values()) - total_before
    state, pages = branches["steadypress-state"], branches["gh-pages"]
    volume = sum((github.bytes_by_branch - volume_before).values()) / 1024
    return state / articles, pages / articles, (total - state - pages) / articles, volume


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    args = parser.parse_args()
    print("requests per article: state + Pages (+ other), and the push's KB up and down; "
          "idle sweep: requests")  # fmt: skip
    print("| published | push of 1 | push of 10 | push removing those 10 | push of nothing "
          "| idle sweep |")  # fmt: skip
    print("| ---: | --- | --- | --- | --- | ---: |")
    for size in args.sizes:
        r = measure(size)
        cells = [
            f"{s:.1f} + {p:.1f} (+{o:.1f}), {kb:,.0f} KB"
            for s, p, o, kb in (r["push 1"], r["push 10"], r["remove 10"], r["push of nothing"])
        ]
        idle = sum(r["idle sweep"][:3])
        print(f"| {size:,} | {' | '.join(cells)} | {idle:.0f} |", flush=True)


if __name__ == "__main__":
    main_()
