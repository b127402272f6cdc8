"""The site target as the blog grows, all on one day: the first build of N articles, then one
new article.

Every article is dated 2026-01-01 (a blog imported in one commit, its articles without dates,
takes this shape), so one month and one day hold them all, and twenty tags share them: the case
the site's index does not split (a month's index file and page grow with the articles in it;
`benchmarks/scale.py` dates one article a day instead). Prints, for each N: the first build
(total and per article; published and verified in batches of CLAIM_BATCH), and one new
article's time, files written, bytes written and the largest file written.

Usage: .venv/bin/python benchmarks/site_scale.py [--sizes 100 1000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from steadypress.claims import CLAIM_BATCH  # noqa: E402
from steadypress.content import ContentSource  # noqa: E402
from steadypress.gitio import Git  # noqa: E402
from steadypress.targets.base import Receipt  # noqa: E402
from steadypress.targets.site import DirectorySiteFiles  # noqa: E402
from steadypress.targets.site.settings import SiteSettings  # noqa: E402
from steadypress.targets.site.target import build_site  # noqa: E402

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
TAGS = [f"topic{n}" for n in range(20)]


def article(n: int) -> str:
    tags = ", ".join(TAGS[(n + k) % len(TAGS)] for k in range(3))
    return (
        f"---\ntitle: Article {n}\ndate: 2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}Z\n"
        f"description: Number {n} of the benchmark blog.\ntags: [{tags}]\n---\n\n"
        + f"Paragraph {n} with *some* words and `code`.\n\n" * 8
        + "```python\nprint('hello')\n```\n"
    )


def commit(repo: Path, files: dict[str, str]) -> str:
    for path, text in files.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    subprocess.run([*GIT, "-C", str(repo), "add", "-A"], check=True)
    subprocess.run([*GIT, "-C", str(repo), "commit", "-qm", "articles"], check=True)
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def snapshot(site: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(site)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in site.rglob("*")
        if p.is_file()
    }


def measure(size: int) -> tuple[float, float, int, int, tuple[int, str]]:
    with tempfile.TemporaryDirectory() as folder:
        repo, out = Path(folder) / "blog", Path(folder) / "site"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        head = commit(repo, {f"content/a{n:05d}.md": article(n) for n in range(size)})
        source = ContentSource(Git(repo), "content")
        target = build_site("site", DirectorySiteFiles(out), SiteSettings(url="https://b.test/"),
                            content=source, default_url="")  # fmt: skip
        articles = sorted(source.list_articles(head).items())
        started = time.perf_counter()
        for start in range(0, len(articles), CLAIM_BATCH):  # as a drain claims and publishes
            batch = [source.read(path, blob, commit=head)
                     for path, blob in articles[start : start + CLAIM_BATCH]]  # fmt: skip
            receipts = target.publish_batch([(article, None) for article in batch])
            published = [
                (a, r) for a, r in zip(batch, receipts, strict=True) if isinstance(r, Receipt)
            ]
            target.verify_batch(published)
        build = time.perf_counter() - started
        before = snapshot(out)
        head = commit(repo, {"content/new.md": article(size)})
        started = time.perf_counter()
        target.publish(source.read("content/new.md", repo_blob(repo, "content/new.md"),
                                   commit=head), None)  # fmt: skip
        one = time.perf_counter() - started
        after = snapshot(out)
        written = [path for path in after if before.get(path) != after[path]]
        largest = max((after[path][1], path) for path in written)
        return build, one, len(written), sum(after[path][1] for path in written), largest


def repo_blob(repo: Path, path: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), "rev-parse", f"HEAD:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    args = parser.parse_args()
    print("| articles | first build | per article | one new article | files written | bytes "
          "| largest |")  # fmt: skip
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for size in args.sizes:
        build, one, files, size_written, (biggest, name) = measure(size)
        print(f"| {size:,} | {build:.1f} s | {1000 * build / size:.0f} ms | {1000 * one:.0f} ms "
              f"| {files} | {size_written:,} | {name}, {biggest:,} |")  # fmt: skip


if __name__ == "__main__":
    main()
