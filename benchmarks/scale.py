"""What one publish costs as the blog grows: requests and bytes, the state and the site apart.

For a blog of N published articles (10^3, 10^4 and 10^5 by default), built directly (the
ledger's records, the site's files) rather than published one by one:
  GitHub     against the loopback fake (tests/fakes/github; `make schemas` first): one pushed
             article (`drain --push`), then one dated 45 days back (inside the month before,
             beside articles whose pages it relinks), then ten dated across the blog's years
             pushed in one commit and removed in the next, then an idle sweep, then a push of
             an edit to the blog's stylesheet (`theme/style.css`), then one of its front
             page's template (`theme/index.html`), then one of its month pages'
             (`theme/month.html`: every listing page written again); requests, and bytes up
             and down, for the state branch and for the Pages branch (the claim, a state
             request, carries the site's first read: those bytes count as the state's);
  local      the bytes one new article writes: new blobs on the state branch, files written
             under _site.
Goal: at most 4 requests and 300 KB for a pushed article, 1 request and 10 KB for an idle
sweep, at every size. Articles are as people write them (`corpus.py`: 600 to 1,400 words, a
heading, a code block, a table, links), dated one a day, so a month holds as many at every
size (what grows with N is the number of months and of tag years); --short gives every article
the same 80-word text instead; --per-day K dates K a day (27: 10^5 articles in ten years, a
busy blog's months); --common-tag also tags every article `news` (a blog's one tag on
everything, whose year holds as many articles as the blog's year); --newest DATE dates the
newest articles, and the pushed one, that day instead of 2026-01-28 (2026-12-28: a year as full
as it gets).

Usage: .venv/bin/python benchmarks/scale.py [--sizes 1000 10000 100000] [--per-day 1]
       [--common-tag] [--newest 2026-01-28] [--short] [--files] [--restyle]
(--files: list on stderr each site file the local publish wrote, with its size; --restyle:
 push an edit of the theme's base.html last, which publishes every article again)
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_STYLESHEET = ROOT / "scripts" / "steadypress" / "theme" / "style.css"
sys.path.insert(0, str(ROOT))  # the GitHub fake lives with the tests

from benchmarks.corpus import real_body  # noqa: E402
from tests.fakes.github import FakeGitHub  # noqa: E402
from tests.helpers import old_site_manifest  # noqa: E402

from steadypress.articles import Article  # noqa: E402
from steadypress.cli import main  # noqa: E402
from steadypress.gitio import ZERO_OID, Git  # noqa: E402
from steadypress.ledger import Ledger, PublishedRecord, Reconciled  # noqa: E402
from steadypress.published import PublishedRecords  # noqa: E402
from steadypress.store.base import LedgerStore  # noqa: E402
from steadypress.store.localgit import LocalGitStore  # noqa: E402
from steadypress.targets.site import DirectorySiteFiles  # noqa: E402
from steadypress.targets.site.manifest import INDEXED_DIGITS, MANIFEST, Entry  # noqa: E402
from steadypress.targets.site.settings import SiteAddress, SiteSettings  # noqa: E402
from steadypress.targets.site.target import SiteTarget  # noqa: E402
from steadypress.theme import Theme  # noqa: E402

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
STATE, PAGES = "steadypress-state", "gh-pages"
BODY = "Words of an article, with `code` and a [link](https://example.org/).\n\n" * 8


@dataclass(frozen=True)
class Shape:
    """How the blog's articles are dated and tagged."""

    per_day: int = 1
    common_tag: bool = False
    newest: date = date(2026, 1, 28)
    short: bool = False  # BODY for every article, else each one's own as people write them


def body(n: int, shape: Shape) -> str:
    """Article n's text: as people write them (`corpus.py`), or with `short` BODY."""
    return BODY if shape.short else real_body(n)


def tags(n: int, shape: Shape) -> tuple[str, ...]:
    return (f"t{n % 50}", "news") if shape.common_tag else (f"t{n % 50}",)


def text(n: int, shape: Shape) -> str:
    written = f"{day(n, shape):%Y-%m-%d}"
    return (f"---\ntitle: Article {n}\ndate: {written}\ntags: [{', '.join(tags(n, shape))}]\n"
            f"---\n\n{body(n, shape)}")  # fmt: skip


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        [*GIT, "-C", str(repo), *args], check=True, capture_output=True, text=True,
        env={**os.environ, **(env or {})},
    ).stdout.strip()  # fmt: skip


def blog(repo: Path, size: int, shape: Shape) -> tuple[str, dict[str, str]]:
    """A repository with `size` articles committed: (head, path -> blob)."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    # The address the seeded site was built for, on both backends (without it each backend
    # would default to its own, and the push would measure a site moving to a new address).
    (repo / "steadypress.yml").write_text(
        "targets:\n  site:\n    kind: site\n    url: https://blog.example/\n    base_url: /\n"
        "    theme: theme\n"
    )
    # The blog's own stylesheet, the shipped one to begin with (so the seeded site holds it),
    # which the last push measured edits.
    (repo / "theme").mkdir()
    (repo / "theme" / "style.css").write_bytes(SHIPPED_STYLESHEET.read_bytes())
    (repo / "content").mkdir()
    for n in range(size):
        (repo / "content" / f"a{n:06d}.md").write_text(text(n, shape))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "articles")
    head = git(repo, "rev-parse", "HEAD")
    listing = git(repo, "ls-tree", "-r", head, "content")
    blobs = {line.split("\t")[1]: line.split()[2] for line in listing.splitlines()}
    return head, blobs


def seeded(head: str, blobs: dict[str, str], config: str) -> Ledger:
    """The ledger of a blog whose every article is on the site, reconciled at `head`."""
    records = {
        f"site:{path}": PublishedRecord(
            blob, head, path[8:-3], "2026-01-01T00:00:00Z", f"https://blog.example/{path[8:-3]}/"
        )
        for path, blob in blobs.items()
    }
    return Ledger(
        published=PublishedRecords.of(records),
        reconciled=Reconciled(head, ("site",), config),
    )


def day(n: int, shape: Shape) -> datetime:
    """Article n's date: `per_day` a day, back from the newest day (a blog posting at a steady
    rate, so its months hold as many articles at every size; one a day, 10^5 reaches back to
    1752). The pushed article is dated that day too: the newest, in a month as full as the
    others."""
    newest = datetime(shape.newest.year, shape.newest.month, shape.newest.day, tzinfo=UTC)
    return newest - timedelta(days=n // shape.per_day)


def back_dated(shape: Shape) -> int:
    """The article whose day a back-dated push takes: 45 days back, inside the month before
    the newest (as crowded as any with --per-day 2 or more), beside articles whose pages it
    relinks."""
    return 45 * shape.per_day


def _in_back_dated_month(n: int, shape: Shape) -> bool:
    return f"{day(n, shape):%Y-%m}" == f"{day(back_dated(shape), shape):%Y-%m}"


def site(folder: Path, head: str, blobs: dict[str, str], shape: Shape) -> None:
    """The site of every article: the newest 25 and those of the back-dated push's month
    rendered, the others as an earlier layout's manifest recorded them, moved into the index by
    that first publish (rendering 10^5 pages would take the benchmark's time and change no
    figure: a publish relinks only its neighbours' pages)."""
    target = SiteTarget(
        "site", DirectorySiteFiles(folder), settings=SiteSettings(),
        address=SiteAddress(url="https://blog.example/", base_url="/"), content_dir="content",
        theme=Theme(), assets=lambda _path, **_commit: None,
    )  # fmt: skip
    work, entries = [], {}
    for n, (path, blob) in enumerate(sorted(blobs.items())):
        title, slug = f"Article {n}", path[len("content/") : -len(".md")]
        # The newest 25 by the site's order, date then slug: whole days of them, since the
        # later slugs of a day are the newer (the feed's newest must have pages and texts).
        if n < -(-25 // shape.per_day) * shape.per_day or _in_back_dated_month(n, shape):
            work.append((Article(path=path, blob=blob, title=title, body=body(n, shape),
                                 tags=tags(n, shape),
                                 date=day(n, shape), updated=day(n, shape), commit=head),
                         None))  # fmt: skip
            continue
        entries[path] = Entry(
            blob=blob, slug=slug, title=title, date=day(n, shape), updated=day(n, shape),
            description=None, summary=body(n, shape)[:240], tags=tags(n, shape), cover=None,
            # A page's digest, as random as a real one's: zeros would gzip away in the
            # index files a push reads.
            assets=(), sha256=hashlib.sha256(path.encode()).hexdigest()[:INDEXED_DIGITS],
        )  # fmt: skip
    folder.mkdir()
    (folder / MANIFEST).write_bytes(old_site_manifest(entries))
    for result in target.publish_batch(work):
        if isinstance(result, Exception):
            raise SystemExit(f"seeding the site failed: {result}")


def pages_branch(github: FakeGitHub, folder: Path) -> None:
    """`folder` as the gh-pages branch of the fake, in one `git add` (not a blob at a time)."""
    bare = str(github.repository.path)
    with tempfile.TemporaryDirectory() as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        subprocess.run([*GIT, f"--git-dir={bare}", f"--work-tree={folder}", "add", "-A"],
                       check=True, env={**os.environ, **env})  # fmt: skip
        tree = subprocess.run(
            [*GIT, f"--git-dir={bare}", "write-tree"],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, **env},
        )
    commit = github.repository.write_commit(tree.stdout.strip(), [], "site\n")
    github.repository.move_branch(PAGES, commit, None)


def run(repo: Path, *args: str, backend: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as e:
        code = main([args[0], "--repo", str(repo), "--backend", backend, *args[1:]])
    if code != 0:
        raise SystemExit(f"steadypress {' '.join(args)} failed ({code}): {e.getvalue()[-500:]}")


def push_stylesheet(repo: Path) -> tuple[str, str]:
    before = git(repo, "rev-parse", "HEAD")
    with (repo / "theme" / "style.css").open("a") as stylesheet:
        stylesheet.write("\nblockquote { border-left-color: teal; }\n")
    git(repo, "commit", "-qam", "A teal quote")
    return before, git(repo, "rev-parse", "HEAD")


def push_template(repo: Path, template: str, mark: str) -> tuple[str, str]:
    """The blog's own `template`: the shipped one, showing `mark` first in its main block."""
    before = git(repo, "rev-parse", "HEAD")
    shipped = (SHIPPED_STYLESHEET.parent / template).read_text()
    marked = shipped.replace("{% block main %}", "{% block main %}" + mark, 1)
    (repo / "theme" / template).write_text(marked)
    git(repo, "add", "theme")
    git(repo, "commit", "-qm", f"{template} of our own")
    return before, git(repo, "rev-parse", "HEAD")


def push_base_template(repo: Path) -> tuple[str, str]:
    before = git(repo, "rev-parse", "HEAD")
    base = (SHIPPED_STYLESHEET.parent / "base.html").read_text()
    (repo / "theme" / "base.html").write_text(base.replace("Published with", "Made with"))
    git(repo, "add", "theme")
    git(repo, "commit", "-qm", "A footer of our own")
    return before, git(repo, "rev-parse", "HEAD")


def push_one(repo: Path, name: str, shape: Shape, *, like: int = 0) -> tuple[str, str]:
    """Push a new article dated as article `like` is (the newest by default)."""
    before = git(repo, "rev-parse", "HEAD")
    written = text(like, shape).replace(f"Article {like}", name, 1)
    (repo / "content" / f"{name}.md").write_text(written)
    git(repo, "add", "content")  # not _site, which is not the blog's source
    git(repo, "commit", "-qm", name)
    return before, git(repo, "rev-parse", "HEAD")


def push_ten(repo: Path, size: int, shape: Shape) -> tuple[str, str]:
    """Push ten new articles in one commit, dated across the whole blog (article k * N/10's
    day each: ten months, over years), as a blog brought in from elsewhere adds them."""
    before = git(repo, "rev-parse", "HEAD")
    for k in range(10):
        like = k * size // 10
        (repo / "content" / f"ten-{k}.md").write_text(
            text(like, shape).replace(f"Article {like}", f"Ten {k}", 1)
        )
    git(repo, "add", "content")
    git(repo, "commit", "-qm", "ten across the years")
    return before, git(repo, "rev-parse", "HEAD")


def remove_ten(repo: Path) -> tuple[str, str]:
    """Push the removal of the ten `push_ten` added, in one commit."""
    before = git(repo, "rev-parse", "HEAD")
    git(repo, "rm", "-q", *(f"content/ten-{k}.md" for k in range(10)))
    git(repo, "commit", "-qm", "the ten removed")
    return before, git(repo, "rev-parse", "HEAD")


Figures = dict[str, float]


def on_github(
    repo: Path, head: str, blobs: dict[str, str], built: Path, shape: Shape, *, restyle: bool
) -> dict[str, Figures]:
    figures: dict[str, Figures] = {}
    with FakeGitHub() as github:
        environment = {
            "GITHUB_REPOSITORY": github.full_name, "GITHUB_TOKEN": github.token,
            "GITHUB_API_URL": github.api_url, "GITHUB_GRAPHQL_URL": github.graphql_url,
        }  # fmt: skip
        pages_branch(github, built)
        # Written into the fake's repository with the local store's plumbing (the same files
        # a GitHub store writes): tens of thousands of shards in one REST tree are not what
        # this measures, and a blog never makes them in one write.
        store = LocalGitStore(github.repository.path, STATE)
        store.save(seeded(head, blobs, git(repo, "rev-parse", f"{head}:steadypress.yml")),
                   based_on=store.load(), message="seed\n\ntransaction: s")  # fmt: skip
        with mock.patch.dict(os.environ, environment):
            # At a multiple of 50 articles the first push adds a sitemap (one push in 50 does);
            # the second is an ordinary one.
            for label, name in (("push adding a sitemap", "pushed-first"), ("push", "pushed")):
                drain = ["drain", "--push", *push_one(repo, name, shape)]
                figures[label] = wire(
                    github, functools.partial(run, repo, *drain, backend="github")
                )
            back = ["drain", "--push", *push_one(repo, "back", shape, like=back_dated(shape))]
            figures["back-dated"] = wire(
                github, functools.partial(run, repo, *back, backend="github")
            )
            ten = ["drain", "--push", *push_ten(repo, len(blobs), shape)]
            figures["ten"] = wire(github, functools.partial(run, repo, *ten, backend="github"))
            gone = ["drain", "--push", *remove_ten(repo)]
            figures["ten removed"] = wire(
                github, functools.partial(run, repo, *gone, backend="github")
            )
            figures["idle sweep"] = wire(github, lambda: run(repo, "sweep", backend="github"))
            for label, push in (
                ("stylesheet", push_stylesheet),
                # The front page alone is written again; every listing page, for a month's.
                ("front page", functools.partial(push_template, template="index.html",
                                                 mark="<p>Hello, reader.</p>")),
                ("month page", functools.partial(push_template, template="month.html",
                                                 mark="<p>By month.</p>")),
            ):  # fmt: skip
                drain = ["drain", "--push", *push(repo)]
                figures[label] = wire(
                    github, functools.partial(run, repo, *drain, backend="github")
                )
            if restyle:
                drain = ["drain", "--push", *push_base_template(repo)]
                figures["restyle"] = wire(
                    github, functools.partial(run, repo, *drain, backend="github")
                )
    return figures


def wire(github: FakeGitHub, action: Callable[[], None]) -> Figures:
    requests, volume = Counter(github.requests_by_branch), Counter(github.bytes_by_branch)
    started = time.perf_counter()
    action()
    seconds = time.perf_counter() - started
    requests = github.requests_by_branch - requests
    volume = github.bytes_by_branch - volume
    figures = {"seconds": seconds}
    for branch, label in ((STATE, "state"), (PAGES, "pages")):
        figures[f"{label} requests"] = requests[branch]
        figures[f"{label} up"] = volume[branch, "up"]
        figures[f"{label} bytes"] = volume[branch, "up"] + volume[branch, "down"]
    return figures


def locally(
    repo: Path, head: str, blobs: dict[str, str], shape: Shape, *, show_files: bool
) -> Figures:
    store: LedgerStore = LocalGitStore(repo, STATE)
    store.save(seeded(head, blobs, git(repo, "rev-parse", f"{head}:steadypress.yml")),
               based_on=store.load(), message="seed\n\ntransaction: s")  # fmt: skip
    old_state = git(repo, "rev-parse", STATE)
    files = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in (repo / "_site").rglob("*")
             if p.is_file()}  # fmt: skip
    before, after = push_one(repo, "pushed-locally", shape)
    started = time.perf_counter()
    run(repo, "drain", "--push", before, after, backend="local")
    seconds = time.perf_counter() - started
    new_state = git(repo, "rev-parse", STATE)
    changed = git(repo, "diff-tree", "-r", "--no-renames", old_state, new_state)
    oids = [line.split()[3] for line in changed.splitlines() if line.split()[3] != ZERO_OID]
    sizes = Git(repo).run("cat-file", "--batch-check=%(objectsize)",
                          stdin="".join(f"{o}\n" for o in oids).encode())  # fmt: skip
    state_bytes = sum(int(size) for size in sizes.split())
    written = {
        str(p.relative_to(repo / "_site")): p.stat().st_size for p in (repo / "_site").rglob("*")
        if p.is_file() and files.get(p) != (p.stat().st_size, p.stat().st_mtime_ns)
    }  # fmt: skip
    if show_files:
        for name, size in sorted(written.items(), key=lambda item: -item[1]):
            print(f"    {size:>9,} B  _site/{name}", file=sys.stderr)
    return {"seconds": seconds, "state bytes": state_bytes, "site bytes": sum(written.values())}


def measure(
    size: int, *, shape: Shape, show_files: bool = False, restyle: bool = False
) -> tuple[dict[str, Figures], Figures]:
    with tempfile.TemporaryDirectory() as folder:
        repo = Path(folder) / "blog"
        repo.mkdir()
        head, blobs = blog(repo, size, shape)
        site(repo / "_site", head, blobs, shape)
        remote = on_github(repo, head, blobs, repo / "_site", shape, restyle=restyle)
        # A fresh copy of the blog for the local run: the GitHub run pushed into this one.
        git(repo, "reset", "-q", "--hard", head)
        local = locally(repo, head, blobs, shape, show_files=show_files)
    return remote, local


def kb(n: float) -> str:
    return f"{n / 1000:,.1f} KB"


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--per-day", type=int, default=1, help="articles dated each day")
    parser.add_argument("--common-tag", action="store_true", help="tag every article `news`")
    parser.add_argument("--newest", type=date.fromisoformat, default=Shape.newest,
                        help="the newest articles' day, and the pushed one's")  # fmt: skip
    parser.add_argument("--short", action="store_true", help="the same 80 words for every article")
    parser.add_argument("--files", action="store_true", help="list the site files written")
    parser.add_argument(
        "--restyle", action="store_true", help="push a base.html edit last (every article again)"
    )
    args = parser.parse_args()
    shape = Shape(
        per_day=args.per_day,
        common_tag=args.common_tag,
        newest=args.newest,
        short=args.short,
    )
    print(
        "| published | pushed article on GitHub: state (req, bytes) | Pages (req, bytes) "
        "| total | one push in 50, adding a sitemap: total "
        "| a back-dated article, 45 days back: total | idle sweep (req, bytes) "
        "| local, one new article: state | _site | a stylesheet edit pushed: total "
        "| a front page template edit pushed: total | a month page template edit pushed: total |"
    )
    print("| ---: | --- | --- | --- | --- | --- | --- | ---: | ---: | --- | --- | --- |")
    for size in args.sizes:
        remote, local = measure(size, shape=shape, show_files=args.files, restyle=args.restyle)
        push, split, idle = remote["push"], remote["push adding a sitemap"], remote["idle sweep"]
        back = remote["back-dated"]
        style, front, month = remote["stylesheet"], remote["front page"], remote["month page"]
        idle_requests = idle["state requests"] + idle["pages requests"]
        print(
            f"| {size:,} | {push['state requests']:.0f}, {kb(push['state bytes'])} "
            f"| {push['pages requests']:.0f}, {kb(push['pages bytes'])} "
            f"| {push['state requests'] + push['pages requests']:.0f}, "
            f"{kb(push['state bytes'] + push['pages bytes'])} "
            f"({kb(push['state up'] + push['pages up'])} up) "
            f"| {split['state requests'] + split['pages requests']:.0f}, "
            f"{kb(split['state bytes'] + split['pages bytes'])} "
            f"| {back['state requests'] + back['pages requests']:.0f}, "
            f"{kb(back['state bytes'] + back['pages bytes'])} "
            f"| {idle_requests:.0f}, {kb(idle['state bytes'] + idle['pages bytes'])} "
            f"| {kb(local['state bytes'])} | {kb(local['site bytes'])} "
            f"| {style['state requests'] + style['pages requests']:.0f}, "
            f"{kb(style['state bytes'] + style['pages bytes'])} "
            f"| {front['state requests'] + front['pages requests']:.0f}, "
            f"{kb(front['state bytes'] + front['pages bytes'])} "
            f"| {month['state requests'] + month['pages requests']:.0f}, "
            f"{kb(month['state bytes'] + month['pages bytes'])}, {month['seconds']:.1f} s |",
            flush=True,
        )
        for label, what in (("ten", "pushed"), ("ten removed", "removed")):
            ten = remote[label]
            print(
                f"  ten articles dated across the blog's years {what} in one commit, at "
                f"{size:,}: state {ten['state requests']:.0f} req, Pages "
                f"{ten['pages requests']:.0f} req; {kb(ten['state bytes'] + ten['pages bytes'])} "
                f"({kb(ten['state up'] + ten['pages up'])} up)",
                flush=True,
            )
        if (restyled := remote.get("restyle")) is not None:
            print(
                f"  a base.html edit pushed at {size:,} (every article published again): "
                f"state {restyled['state requests']:.0f}, {kb(restyled['state bytes'])}; "
                f"Pages {restyled['pages requests']:.0f}, {kb(restyled['pages bytes'])}; "
                f"{restyled['seconds']:.1f} s",
                flush=True,
            )


if __name__ == "__main__":
    main_()
