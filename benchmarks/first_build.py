"""A first build, side by side with Hugo on the same articles: `steadypress run` on a repository
of N articles (the embedded default: local state, the site in _site), then one new article,
against `hugo` building the same markdown with a minimal theme of the same pages (an article
page, the index, tag pages, a feed, a sitemap).

The corpus: N articles with front matter (title, a date spread over five years, two tags), a
few paragraphs, a fenced code block and a table. Each figure is the wall time of a whole
process, min and median of --runs runs, and the ratio to Hugo's; this machine is noisy, so the
ratios are what to compare. Hugo is Debian's `hugo` package; without it the Hugo column says so.
Both write every file they make, so where the disk's time to create one varies from minute to
minute (this machine's has, tenfold), `TMPDIR=/dev/shm` runs both on tmpfs: the figures then
repeat, and measure the two programs rather than the disk. steadypress runs from compiled
bytecode, as the action runs it (pip compiles a package it installs): a warm-up build of a few
articles fills a bytecode cache first, whatever PYTHONDONTWRITEBYTECODE says.

Goal: 10,000 within 11x of 1,000 (linear), 1,000 within 2x of Hugo's wall time.

Usage: [TMPDIR=/dev/shm] .venv/bin/python benchmarks/first_build.py [--sizes 1000 10000] [--runs 3]
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
from pathlib import Path

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
BODY = (
    "Some words about a thing, with `code`, **bold** text and a [link](https://example.org/).\n\n"
    * 5
    + "```python\ndef publish(article):\n    return site.put(article)\n```\n\n"
    + "| column | value |\n| --- | --- |\n| a | 1 |\n| b | 2 |\n"
)


def body(n: int) -> str:
    """An article's own text: no two alike, as in a real blog (a renderer that kept what it
    rendered once would otherwise render one body for the whole corpus)."""
    return f"Article {n} begins here.\n\n{BODY.replace('return', f'return {n} or')}"


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
    date = f"{2021 + n % 5}-{n % 12 + 1:02d}-{n % 28 + 1:02d}"
    return f"---\ntitle: Article {n}\ndate: {date}\ntags: [t{n % 40}, all]\n---\n\n{body(n)}"


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


def timed(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def largest_pending(repo: Path) -> int:
    """The largest pending.json any commit of the state branch held, in bytes."""
    commits = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "steadypress-state"],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    sizes = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check=%(objectsize)"],
        input="".join(f"{commit}:state/pending.json\n" for commit in commits),
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    return max(int(size) for size in sizes)


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


def steadypress(repo: Path) -> tuple[float, float, float, int]:
    """(`steadypress check` before the build: every article checked and the whole site built in
    a throwaway folder, what a pull request's check does when the theme changed; the first
    build; one new article after it), each a whole process, and the largest pending.json the
    first build wrote."""
    check = timed([sys.executable, "-m", "steadypress", "check", "--repo", str(repo)], repo)
    command = [sys.executable, "-m", "steadypress", "run", "--repo", str(repo)]
    first = timed(command, repo)
    settled(repo)
    pending = largest_pending(repo)
    (repo / "content" / "new.md").write_text(f"---\ntitle: New\n---\n\n{BODY}")
    # The article alone: not the site the build wrote beside it (the blog has no .gitignore).
    subprocess.run([*GIT, "-C", str(repo), "add", "content"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "new"], check=True)
    more = timed(command, repo)
    settled(repo)
    return check, first, more, pending


def compiled(cache: Path) -> None:
    """steadypress's runs read their bytecode from `cache`, filled by a warm-up build."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    with tempfile.TemporaryDirectory() as folder:
        steadypress(blog(Path(folder), 10))


def measure(size: int, runs: int) -> dict[str, list[float]]:
    figures: dict[str, list[float]] = {
        "check": [], "first": [], "one more": [], "hugo": [], "pending": []
    }  # fmt: skip
    hugo = shutil.which("hugo")
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            check, first, more, pending = steadypress(blog(Path(folder), size))
            figures["check"].append(check)
            figures["pending"].append(pending)
            figures["first"].append(first)
            figures["one more"].append(more)
            if hugo:
                site = hugo_site(Path(folder), size)
                figures["hugo"].append(timed([hugo, "--quiet", "-d", str(site / "public")], site))
    return figures


def cell(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} s" if values else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", str(Path(__file__).resolve().parent.parent / "scripts"))
    if not shutil.which("hugo"):
        print("hugo is not installed (Debian: apt-get install hugo): its column is empty")
    print(
        "| articles | steadypress first build (min / median) | Hugo (min / median) "
        "| ratio of medians | one new article after it | largest pending.json "
        "| `check`, the whole site built (ratio to Hugo) |"
    )
    print("| ---: | --- | --- | ---: | --- | ---: | --- |")
    with tempfile.TemporaryDirectory() as bytecode:
        compiled(Path(bytecode))
        for size in args.sizes:
            report(size, measure(size, args.runs))


def report(size: int, figures: dict[str, list[float]]) -> None:
    def ratio(name: str) -> str:
        if not figures["hugo"]:
            return "-"
        return f"{statistics.median(figures[name]) / statistics.median(figures['hugo']):.1f}x"

    print(f"| {size:,} | {cell(figures['first'])} | {cell(figures['hugo'])} | {ratio('first')} "
          f"| {cell(figures['one more'])} | {max(figures['pending']) / 1024:,.0f} KB "
          f"| {cell(figures['check'])} ({ratio('check')}) |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
