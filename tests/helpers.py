"""Real components for tests: a git repository per test, and the CLI as users run it."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from steadypress import shardtree
from steadypress.cli import main
from steadypress.clock import Clock
from steadypress.feeds import sitemap, sitemap_index, sitemap_locations
from steadypress.github.client import GitHubClient
from steadypress.github.store import GitHubStore
from steadypress.ledger import Ledger
from steadypress.store.localgit import LocalGitStore
from steadypress.targets.site import SiteFiles, SiteWriter, indexfiles
from steadypress.targets.site.index import NEWEST_FILE, SUMMARY
from steadypress.targets.site.manifest import Entry
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.sitemaps import SITEMAP
from steadypress.targets.site.target import SiteTarget
from steadypress.theme import Theme
from tests.fakes.clock import ManualClock

if TYPE_CHECKING:
    from tests.fakes.github import FakeGitHub

# Debian's Chromium, which the browser test drives: optional (the test is skipped without it).
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
NO_CHROMIUM = "Debian's chromium is not installed"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Author",
    "GIT_AUTHOR_EMAIL": "author@example.org",
    "GIT_COMMITTER_NAME": "Author",
    "GIT_COMMITTER_EMAIL": "author@example.org",
}


def recorded_git(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """The arguments (after `git -C <repository>`) of each git process steadypress starts in
    this test's process from now on, in order: a command's, a stream's, a batch kept open."""
    ran: list[tuple[str, ...]] = []

    class Recording(subprocess.Popen[bytes]):
        def __init__(self, args: Any, *rest: Any, **options: Any) -> None:
            if isinstance(args, list) and args[:2] == ["git", "-C"]:
                ran.append(tuple(args[3:]))
            super().__init__(args, *rest, **options)

    monkeypatch.setattr(subprocess, "Popen", Recording)
    return ran


def oid(text: str) -> str:
    """A git object id made of `text`: what the state files hold where a test needs a blob or a
    commit id that no repository has."""
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def article(title: str, body: str = "Some words.", **front: object) -> str:
    lines = [f"title: {title!r}"] + [f"{key}: {value}" for key, value in front.items()]
    return "---\n" + "\n".join(lines) + f"\n---\n\n{body}\n"


class Repo:
    """A real git repository where tests write and commit articles."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, stdin: str | bytes | None = None) -> str:
        completed = subprocess.run(
            ["git", "-C", str(self.root), *args],
            input=stdin.encode() if isinstance(stdin, str) else stdin,
            capture_output=True,
            check=True,
            env={**os.environ, **GIT_ENV},
        )
        return completed.stdout.decode().strip()

    def write(self, path: str, text: str | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")

    def commit(self, message: str = "change", **files: str) -> str:
        for path, text in files.items():
            self.write(path, text)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def blob(self, path: str, commit: str = "HEAD") -> str:
        return self.git("rev-parse", f"{commit}:{path}")

    def state_head(self, branch: str = "steadypress-state") -> str | None:
        try:
            return self.git("rev-parse", "--verify", "-q", f"refs/heads/{branch}")
        except subprocess.CalledProcessError:
            return None

    def state_commits(self, branch: str = "steadypress-state") -> int:
        return int(self.git("rev-list", "--count", branch)) if self.state_head(branch) else 0

    def state_writes(self, branch: str = "steadypress-state") -> list[str]:
        """What each state commit did, oldest first: its message without the writer's name
        (`steadypress: claim`)."""
        messages = self.git("log", "--reverse", "--format=%s", branch).split("\n")
        return [message.split(" (")[0] for message in messages]

    def overwrite_state_file(
        self, name: str, data: bytes, branch: str = "steadypress-state"
    ) -> None:
        """Commit `data` as `name` on the state branch, as a careless hand edit would."""
        blob = self.git("hash-object", "-w", "--stdin", stdin=data)
        folder, _, filename = name.rpartition("/")
        entries = [
            f"100644 blob {blob}\t{filename}" if line.endswith(f"\t{filename}") else line
            for line in self.git("ls-tree", f"{branch}:{folder}").splitlines()
        ]
        subtree = self.git("mktree", stdin="\n".join(entries) + "\n")
        root = self.git("mktree", stdin=f"040000 tree {subtree}\t{folder}\n")
        commit = self.git("commit-tree", root, "-p", branch, "-m", "hand edit")
        self.git("update-ref", f"refs/heads/{branch}", commit)

    def ledger(self, branch: str = "steadypress-state") -> Ledger:
        return LocalGitStore(self.root, branch).load().ledger

    def state_file(self, name: str, branch: str = "steadypress-state") -> bytes:
        return subprocess.run(
            ["git", "-C", str(self.root), "show", f"{branch}:{name}"],
            capture_output=True,
            check=True,
        ).stdout


def github_environment(github: FakeGitHub) -> dict[str, str]:
    """What GitHub Actions gives a job, pointed at the fake: the GitHub backend's environment."""
    return {
        "GITHUB_REPOSITORY": github.full_name, "GITHUB_TOKEN": github.token,
        "GITHUB_API_URL": github.api_url, "GITHUB_GRAPHQL_URL": github.graphql_url,
        "GITHUB_SERVER_URL": "https://github.example", "GITHUB_RUN_ID": "42",
    }  # fmt: skip


def github_client(
    github: FakeGitHub,
    *,
    clock: ManualClock | None = None,
    token: str | None = None,
    **settings: Any,
) -> GitHubClient:
    """A client of the fake on a `ManualClock`: its sleeps are instant and recorded. `token`
    replaces the fake's own (a wrong one, or none)."""
    return GitHubClient(
        token=github.token if token is None else token, api_url=github.api_url,
        graphql_url=github.graphql_url, clock=clock or ManualClock(), **settings,
    )  # fmt: skip


def github_store(github: FakeGitHub, **settings: Any) -> GitHubStore:
    return GitHubStore(
        github_client(github, **settings), repository=github.full_name, branch="steadypress-state"
    )


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(repo: Repo, *args: str, clock: Clock | None = None) -> Result:
    """The CLI in this process (fast): same code path as the console script, on `clock` when
    a test drives time."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args[:1], "--repo", str(repo.root), *args[1:]], clock=clock)
    return Result(code, out.getvalue(), err.getvalue())


def spawn_cli(repo: Repo, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The CLI as a separate process, for stories about processes (kills, races)."""
    return subprocess.Popen(
        [sys.executable, "-m", "steadypress", *args[:1], "--repo", str(repo.root), *args[1:]],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def cli_process(repo: Repo, *args: str, env: dict[str, str] | None = None) -> Result:
    process = spawn_cli(repo, *args, env=env)
    out, err = process.communicate(timeout=120)
    return Result(process.returncode, out, err)


def publications(outputs: list[tuple[str, str]]) -> Counter[str]:
    """How many times each item was published, across the stderr of several CLI processes."""
    return Counter(
        line.split()[1]
        for _out, err in outputs
        for line in err.splitlines()
        if line.startswith("published ")
    )


def site_target(files: SiteFiles, *, theme: Theme | None = None) -> SiteTarget:
    """The site target over `files`, served at https://blog.example/, with no repository to
    read images from."""
    return SiteTarget(
        "site",
        files,
        settings=SiteSettings(),
        address=SiteAddress(url="https://blog.example/", base_url="/"),
        content_dir="content",
        theme=theme or Theme(),
        assets=lambda _path, **_commit: None,
    )


def site_articles(shards: Iterable[bytes]) -> dict[str, dict[str, Any]]:
    """Every article the site's index records (its article files' contents merged), by path;
    a file that has split holds none."""
    found: dict[str, dict[str, Any]] = {}
    for data in shards:
        found.update(json.loads(data).get("articles", {}))
    return found


def site_folder(site: Path) -> dict[str, bytes]:
    """Every file of a site in a folder, by its path there (the lock file aside), but for
    when its look was first written (the one moment of the clock a site holds: two builds of
    the same content are otherwise the same bytes)."""
    files = {
        str(p.relative_to(site)): p.read_bytes()
        for p in site.rglob("*")
        if p.is_file() and not p.name.endswith(".lock")
    }
    if (look := files.get(".steadypress/look.json")) is not None:
        files[".steadypress/look.json"] = re.sub(rb'"written": "[^"]*"', b'"written": ""', look)
    return files


def local_site_articles(site: Path) -> dict[str, dict[str, Any]]:
    """`site_articles` of a site in a folder."""
    return site_articles(p.read_bytes() for p in (site / ".steadypress/articles").rglob("*.json"))


def old_site_manifest(entries: Mapping[str, Entry]) -> bytes:
    """The single manifest (`.steadypress-site.json`, version 2) sites had before the index:
    what the first publish of this version moves into it."""
    articles = {path: entry.to_json() for path, entry in sorted(entries.items())}
    return json.dumps({"version": 2, "articles": articles}, ensure_ascii=False).encode()


def to_summary_before_version_6(site: Path, *, version: int = 5) -> None:
    """Make the index's summary in the folder `site` as steadypress wrote it before version 6
    (`version`: 5, or 4 for an index of the first layout): one file holding the count, the
    newest articles, and each tag's count and spellings, which the tags' files left out."""
    summary = json.loads((site / SUMMARY).read_bytes())
    newest = json.loads((site / NEWEST_FILE).read_bytes())
    tags = {}
    for page, spellings in summary["tags"].items():
        years_file = site / indexfiles.tag_years_file(page)
        years = json.loads(years_file.read_bytes())
        for year, rows in years.pop(indexfiles.ROWS, {}).items():  # a file a year, then
            document = {"version": 4, "articles": rows}
            (site / indexfiles.tag_year_file(page, int(year))).write_text(json.dumps(document))
        count = sum(years["years"].values())
        names = years.pop(indexfiles.NAMES, None) or {spellings[0]: count}
        years_file.write_text(json.dumps(years))
        tags[page] = {"count": count, "names": names}
    summary.pop("first_shards", None)
    summary = {**summary, **newest, "version": version, "tags": tags}
    (site / SUMMARY).write_text(json.dumps(summary))
    (site / NEWEST_FILE).unlink()


def to_the_first_sitemaps_layout(site: SiteWriter, url: str) -> None:
    """Make the site's sitemaps as the layout before linear hashing kept them: 256 by a hash of
    the page's path, under an index dated by each sitemap's newest page, and no mark of the
    layout in the index's summary."""
    dated = datetime(2000, 1, 1, tzinfo=UTC)
    every: dict[str, list[tuple[str, datetime | None]]] = {}
    for location in sitemap_locations(site.read(SITEMAP)):
        path = location.removeprefix(url)
        for page in sitemap_locations(site.read(path)):
            relative = page.removeprefix(url)
            digest = hashlib.sha1(f"{relative}index.html".encode(), usedforsecurity=False)
            home = relative in ("", "archive/", "tags/")
            name = "sitemaps/home.xml" if home else f"sitemaps/{digest.hexdigest()[:2]}.xml"
            every.setdefault(name, []).append((page, dated))
        site.remove(path)
    for name, pages in every.items():
        site.put(name, sitemap(pages))
    site.put(SITEMAP, sitemap_index([(url + name, dated) for name in every]))
    summary = json.loads(site.read(SUMMARY) or b"{}")
    del summary["sitemaps"]
    site.put(SUMMARY, json.dumps(summary).encode())


def to_the_second_sitemaps_layout(site: SiteWriter, url: str) -> None:
    """Make the site's sitemaps as layout 2 kept them: today's, under `sitemaps/` (home.xml,
    pages-N.xml), the index naming them there, and the index's summary marking layout 2."""
    named = []
    for location in sitemap_locations(site.read(SITEMAP)):
        path = location.removeprefix(url)
        moved = "sitemaps/" + path.removeprefix("sitemap-")
        site.put(moved, site.read(path) or b"")
        site.remove(path)
        named.append(moved)
    site.put(SITEMAP, sitemap_index([(url + name, None) for name in named]))
    summary = json.loads(site.read(SUMMARY) or b"{}")
    summary["sitemaps"] = {
        "layout": 2, "url": url,
        "absent": ["sitemaps/" + name.removeprefix("sitemap-")
                   for name in summary["sitemaps"]["absent"]],
    }  # fmt: skip
    site.put(SUMMARY, json.dumps(summary).encode())


@contextlib.contextmanager
def dying_after_renames(count: int, death: type[BaseException]) -> Iterator[list[str]]:
    """`os.replace` puts `count` files in place, then raises `death` where it would put the
    next: a process killed in the middle of a write that renames each file into place. Yields
    the files put in place."""
    real, landed = os.replace, list[str]()

    def replace(source: str, target: str) -> None:
        if len(landed) == count:
            raise death
        real(source, target)
        landed.append(target)

    os.replace = replace  # type: ignore[assignment]
    try:
        yield landed
    finally:
        os.replace = real


def small_shard_tree(monkeypatch: pytest.MonkeyPatch, *, split_above: int = 3) -> None:
    """Files of records laid out as a small blog fills them (`shardtree.py`): 16 to begin
    with, split above `split_above` records, 3 hex digits at most, so that a few dozen records
    split some."""
    monkeypatch.setattr(shardtree, "BASE_DIGITS", 1)
    monkeypatch.setattr(shardtree, "MAX_DIGITS", 3)
    monkeypatch.setattr(shardtree, "SPLIT_ABOVE", split_above)
    small = shardtree.Layout(base=1, split_above=split_above)
    for layout in ("ARTICLE_SHARDS", "URL_SHARDS", "FIRST_SHARDS"):  # the site's index's
        monkeypatch.setattr(indexfiles, layout, small)


def lint_workflows(workflows: Iterable[Path | str], *zizmor_options: str) -> str:
    """What actionlint and zizmor (offline) find in these workflow files, as this repository
    holds its own: empty where both pass. They are the test environment's, where make test
    put them."""
    files = [str(path) for path in workflows]
    tools = Path(sys.executable).parent
    found = []
    for command in ([str(tools / "actionlint"), "-color=false", *files],
                    [str(tools / "zizmor"), "--offline", *zizmor_options, *files]):  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            found.append(done.stdout + done.stderr)
    return "\n".join(found)
