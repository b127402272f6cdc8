"""The site on a Pages branch, through the fake GitHub: same bytes as a directory, few requests."""

import contextlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steadypress import shardtree
from steadypress.articles import Article
from steadypress.content import ContentSource
from steadypress.errors import Conflict, PermanentError, TransientError
from steadypress.github.branch import GitHubBranch
from steadypress.github.pages import BranchSiteFiles
from steadypress.github.readahead import ReadAhead
from steadypress.gitio import Git
from steadypress.targets.site import DirectorySiteFiles, SiteFiles, SiteWriter
from steadypress.targets.site import parts as parts_module
from steadypress.targets.site import sitemaps as sitemaps_module
from steadypress.targets.site.index import SUMMARY
from steadypress.targets.site.manifest import MANIFEST, Entry
from steadypress.targets.site.settings import SiteSettings
from steadypress.targets.site.sitemaps import address_of, sitemap_count, sitemap_file
from steadypress.targets.site.target import SiteTarget, build_site
from tests.fakes.clock import ManualClock
from tests.fakes.github import FakeGitHub, Fault
from tests.helpers import (
    Repo,
    github_client,
    local_site_articles,
    old_site_manifest,
    site_articles,
    site_folder,
    site_target,
    small_shard_tree,
    to_the_first_sitemaps_layout,
)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


def pages(github: FakeGitHub, token: str | None = None) -> BranchSiteFiles:
    client = github_client(github, token=token)
    branch = GitHubBranch(client, repository=github.full_name, branch="gh-pages")
    return BranchSiteFiles(branch, clock=ManualClock())


def site(files: SiteFiles) -> SiteTarget:
    return site_target(files)


def post(path: str, title: str, *, blob: str = "b1", day: int = 1, **extra: Any) -> Article:
    return Article(
        path=path,
        blob=blob,
        title=title,
        body=f"Text of {title}.",
        date=datetime(2026, 1, day, tzinfo=UTC),
        **extra,
    )


def branch_files(github: FakeGitHub) -> dict[str, bytes]:
    names = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split()
    return {name: github.repository.git("show", f"gh-pages:{name}") for name in names}


def commits(github: FakeGitHub) -> int:
    return len(github.repository.text("rev-list", "gh-pages").split())


def test_the_branch_holds_the_same_bytes_as_a_directory_site(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """One site core, two places: the Pages branch and _site/ get identical files."""
    articles = [post("content/a.md", "A", day=2), post("content/guides/b.md", "B", day=3)]
    on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(tmp_path))
    for article in articles:
        on_branch.verify(article, on_branch.publish(article, None))
        in_folder.publish(article, None)
    folder = site_folder(tmp_path)
    assert branch_files(github) == folder
    listed = {
        "index.html", "archive/index.html", "archive/2026/index.html", "archive/2026/01/index.html",
        "a/index.html", "guides/b/index.html", "tags/index.html",
    }  # fmt: skip
    assert {path for path in folder if not path.startswith((".steadypress/", "sitemap-"))} == {
        *listed, ".nojekyll", "404.html", "feed.xml", "sitemap.xml", "style.css",
    }  # fmt: skip
    assert {SUMMARY, *(sitemap_file(address_of(p), sitemap_count(2)) for p in listed)} <= set(
        folder
    )


def test_publishing_costs_one_read_and_one_commit_and_the_same_version_costs_no_commit(
    github: FakeGitHub,
) -> None:
    """An article: one LoadBranch and one createCommitOnBranch, and one more read for the page
    of its neighbour, whose link to it is written in the same commit; again: one read, no
    commit."""
    target = site(pages(github))
    target.publish(post("content/a.md", "A"), None)
    with github.counting() as calls:
        target.publish(post("content/b.md", "B"), None)
    assert calls == {"graphql LoadBranch": 2, "graphql CreateCommit": 1}
    assert b'rel="next" href="/b/"' in branch_files(github)["a/index.html"]
    before = commits(github)
    with github.counting() as calls:
        target.publish(post("content/b.md", "B"), None)
    assert calls == {"graphql LoadBranch": 1} and commits(github) == before


def test_an_article_that_opens_a_month_and_a_tag_costs_no_more_reads(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New listing pages (its month's, its year's, its tag's) go into sitemaps, whose text is
    fetched with the neighbour's page: still two reads and a commit. (A sitemap an article,
    so that those pages are in other sitemaps than the article's.)"""
    monkeypatch.setattr(sitemaps_module, "ARTICLES_PER_SITEMAP", 1)
    target = site(pages(github))
    target.publish_batch([(post(f"content/p{n}.md", f"P{n}", day=n), None) for n in range(1, 9)])
    with github.counting() as calls:
        target.publish(
            replace(post("content/b.md", "B"), date=datetime(2027, 3, 1, tzinfo=UTC), tags=("go",)),
            None,
        )
    assert calls == {"graphql LoadBranch": 2, "graphql CreateCommit": 1}
    assert {"archive/2027/03/index.html", "tags/go/index.html"} <= set(branch_files(github))


def test_the_sitemap_index_is_written_from_the_summary_never_read(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index names N/50 sitemaps (170 KB at 10^5): a publish writes it from the summary's
    count of articles and its sitemaps not there, when a sitemap appears, and never reads it;
    a summary written before it said which are there has it read once, by the publish that
    adds the next sitemap. (Two articles a sitemap, to see them appear.)"""
    monkeypatch.setattr(sitemaps_module, "ARTICLES_PER_SITEMAP", 2)
    target = site(pages(github))
    target.publish_batch([(post(f"content/p{n}.md", f"P{n}", day=n), None) for n in range(1, 7)])

    def named() -> set[str]:
        index = github.repository.git("show", "gh-pages:sitemap.xml").decode()
        return set(re.findall(r"<loc>https://blog.example/([^<]+)</loc>", index))

    def there() -> set[str]:
        return {name for name in branch_files(github) if name.startswith("sitemap-")}

    read = github.texts_read["sitemap.xml"]
    for n in (7, 8, 9):  # a sitemap appears with the 7th and the 9th
        target.publish(post(f"content/p{n}.md", f"P{n}", day=n), None)
        assert named() == there() and len(there()) == sitemap_count(n) + 1
    assert github.texts_read["sitemap.xml"] == read, "never read"
    summary = json.loads(branch_files(github)[SUMMARY])
    del summary["sitemaps"]["absent"]
    assert github.repository.edit("gh-pages", {SUMMARY: json.dumps(summary).encode()}, "before")
    for n in (10, 11, 12):
        site(pages(github)).publish(post(f"content/p{n}.md", f"P{n}", day=n), None)
        assert named() == there()
    assert github.texts_read["sitemap.xml"] == read + 1, "once, by the 11th"


def test_what_a_write_wants_is_read_with_the_next_file_it_needs(github: FakeGitHub) -> None:
    """A write announces files at different moments (`want`): they are read together with the
    next file it needs, in one request; one it never needs is not read, nor the text of one
    whose blob id alone it needs (whether a page is there)."""
    site(pages(github)).publish(post("content/a.md", "A"), None)
    files = pages(github)
    page_read = github.texts_read["a/index.html"]

    def change(writer: SiteWriter) -> None:
        writer.want(texts=["index.html"])
        writer.want(texts=["feed.xml"], oids=["style.css"])
        assert writer.read("feed.xml") and writer.read("index.html")
        assert writer.exists("style.css") and writer.exists("a/index.html")

    with github.counting() as calls:
        files.apply(change)
    assert calls == {"graphql LoadBranch": 3}  # the first read, the wanted, the page's id
    with github.counting() as calls:
        files.apply(lambda writer: writer.want(texts=["index.html"]))
    assert calls == {"graphql LoadBranch": 1}
    assert github.texts_read["a/index.html"] == page_read


def test_an_article_that_splits_a_file_of_the_index_costs_no_more_requests(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files a split writes are new (the split file held all their keys): they are
    written without a read, and the split file becomes a marker in the same commit. (16 files
    to begin with, split above 3.)"""
    small_shard_tree(monkeypatch)
    target = site(pages(github))
    target.publish_batch([(post(f"content/p{n}.md", f"P{n}", day=1), None) for n in range(20)])

    def article_file(path: str) -> str:
        return f".steadypress/articles/{shardtree.digest(path)[0]}.json"

    full = {name for name, data in branch_files(github).items() if data.count(b'"content/') == 3}
    path = next(f"content/x{n}.md" for n in range(1000) if article_file(f"content/x{n}.md") in full)
    with github.counting() as calls:
        target.publish(post(path, "X", day=2), None)
    assert calls == {"graphql LoadBranch": 2, "graphql CreateCommit": 1}
    files = branch_files(github)
    marker = article_file(path)
    assert b'"split": true' in files[marker]
    assert set(site_articles(files[name] for name in files
                             if name.startswith(".steadypress/articles/"))) == {
        *(f"content/p{n}.md" for n in range(20)), path
    }  # fmt: skip


def test_a_publish_into_a_crowded_month_costs_no_more_requests_and_pages_as_a_folder(
    github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A month (and a tag's year) kept in parts and paged by them: an article into its newest
    part, then enough to split it (its page appearing, written without a look, since a part
    just made has none), cost the same requests each, those of an article into a month of one
    file and one read of the parts its file names, and leave on the branch what a folder site
    holds. (Parts of 8 rows, split keeping 6.)"""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    crowded = [post(f"content/p{n}.md", f"P{n}", day=1 + n // 3, tags=("busy",)) for n in range(40)]
    on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(tmp_path))
    for target in (on_branch, in_folder):
        target.publish_batch([(article, None) for article in crowded])

    def part_pages() -> int:
        names = github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split()
        return sum(name.startswith(("archive/2026/01/p", "tags/busy/2026/p")) for name in names)

    split_seen = False
    for n in range(40, 50):
        article = post(f"content/p{n}.md", f"P{n}", day=14, tags=("busy",))
        before = part_pages()
        with github.counting() as calls:
            on_branch.publish(article, None)
        in_folder.publish(article, None)
        # A split: the page of the part split appears, and the page before it links to it.
        splits = part_pages() > before
        split_seen |= splits
        assert calls == {"graphql LoadBranch": 2 + 1, "graphql CreateCommit": 1}, n
    assert split_seen
    folder = site_folder(tmp_path)
    assert branch_files(github) == folder
    assert any(path.startswith("archive/2026/01/p") for path in folder)


def test_a_back_dated_article_inside_a_crowded_month_reads_its_neighbour_once(
    github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An article dated inside a crowded month lands in one of its older parts, beside
    articles whose pages it relinks: the write reads what the article names, then the parts,
    then the neighbours' pages with whether each part's page is there (whose part's page it
    rewrites), in one read, not one more for the part's page. (Parts of 8 rows.)"""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    crowded = [post(f"content/p{n:02d}.md", f"P{n}", day=1 + n // 3) for n in range(40)]
    on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(tmp_path))
    for target in (on_branch, in_folder):
        target.publish_batch([(article, None) for article in crowded])
    back_dated = post("content/back.md", "Back dated", day=3)
    with github.counting() as calls:
        on_branch.publish(back_dated, None)
    in_folder.publish(back_dated, None)
    assert calls == {"graphql LoadBranch": 3, "graphql CreateCommit": 1}
    assert branch_files(github) == site_folder(tmp_path)
    older_parts = [name for name in site_folder(tmp_path) if name.startswith("archive/2026/01/p")]
    assert any(b"Back dated" in site_folder(tmp_path)[name] for name in older_parts)


def test_a_tags_page_reaching_into_a_crowded_year_before_costs_no_more_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In January a tag's page reaches back into the year before for its newest articles. That
    year kept in parts, its file names the parts, which the tag's years file hints: the newest
    part is read with the year's file, not a request after it. A publish costs what it costs
    when the year before is one file, and the branch holds what a folder site does. (Parts of
    8 rows, split keeping 6.)"""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)

    def last_year(n: int) -> Article:
        article = post(f"content/old{n}.md", f"Old {n}", tags=("busy",))
        return replace(article, date=datetime(2025, 12, 1 + n % 28, tzinfo=UTC))

    # Its neighbours in January: what is measured is the tag's page alone reaching back.
    january = [post(f"content/jan{day}.md", f"Jan {day}", day=day) for day in (1, 2)]
    costs = []
    for count in (25, 40):  # more than a tag's page lists: its years' rows in files
        with FakeGitHub() as github:
            folder = tmp_path / f"{count}"
            on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(folder))
            for target in (on_branch, in_folder):
                crowded = [last_year(n) for n in range(count)]
                target.publish_batch([(article, None) for article in [*crowded, *january]])
            calls = Counter[str]()
            for day in (5, 6):
                article = post(f"content/new{day}.md", f"New {day}", day=day, tags=("busy",))
                with github.counting() as counted:
                    on_branch.publish(article, None)
                in_folder.publish(article, None)
                calls += counted
            costs.append(calls)
            assert branch_files(github) == site_folder(folder)
    assert any(name.startswith("tags/busy/2025/p") for name in site_folder(tmp_path / "40"))
    assert costs[0] == costs[1], costs


def test_the_article_that_gives_a_tag_pages_of_its_years_costs_what_the_next_one_does(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """A tag's page lists its 20 newest: its 21st article brings a page for each of its years
    at once (the other years' too), read with the rest of the write, so that it costs no
    more requests than a 22nd; taking it out again takes them all away. The branch holds
    what a folder site does all along."""
    on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(tmp_path))
    tagged = [
        replace(post(f"content/p{n}.md", f"P{n}", tags=("go",)),
                date=datetime(2022 + n % 4, 1 + n % 12, 1, tzinfo=UTC))
        for n in range(20)
    ]  # fmt: skip
    for target in (on_branch, in_folder):
        target.publish_batch([(article, None) for article in tagged])
    years = {f"tags/go/{year}/index.html" for year in range(2022, 2027)}

    def names() -> set[str]:
        return set(github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split())

    costs = []
    for n in (20, 21):
        article = post(f"content/p{n}.md", f"P{n}", day=n, tags=("go",))
        with github.counting() as calls:
            on_branch.publish(article, None)
        in_folder.publish(article, None)
        costs.append(calls)
        assert years <= names()
    assert branch_files(github) == site_folder(tmp_path)
    # No more: its rows were in the tag's years file, which the 22nd reads beside the years'.
    assert costs[0]["graphql LoadBranch"] <= costs[1]["graphql LoadBranch"], costs
    for n in (21, 20):
        for target in (on_branch, in_folder):
            target.unpublish(f"content/p{n}.md", None)
        assert (years & names()) == (years if n == 21 else set())
    assert branch_files(github) == site_folder(tmp_path)


def test_a_run_that_leaves_a_crowded_month_to_its_last_batch_reads_its_parts_together(
    github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches that leave the listing pages to the run's last render every page of a crowded
    listing's parts there: their rows are read in one request, not one a part, and the branch
    holds what a folder site does."""
    monkeypatch.setattr(parts_module, "PART_ROWS", 8)
    monkeypatch.setattr(parts_module, "PART_KEEP", 6)
    crowded = [post(f"content/p{n}.md", f"P{n}", day=1 + n // 3, tags=("busy",)) for n in range(60)]
    on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(tmp_path))
    for target in (on_branch, in_folder):
        for start in range(0, 45, 15):
            target.publish_batch([(a, None) for a in crowded[start : start + 15]], final=False)
    for target in (in_folder, on_branch):
        with github.counting() as calls:
            target.publish_batch([(a, None) for a in crowded[45:]])
    assert calls["graphql LoadBranch"] <= 4, calls
    folder = site_folder(tmp_path)
    assert branch_files(github) == folder
    assert sum(path.startswith("archive/2026/01/p") for path in folder) >= 6


def test_an_edit_sends_only_what_changed(github: FakeGitHub) -> None:
    """A new version rewrites its page, the index and the manifest; .nojekyll stays as it was."""
    target = site(pages(github))
    target.publish(post("content/a.md", "A"), None)
    nojekyll = github.repository.text("rev-parse", "gh-pages:.nojekyll")
    target.publish(post("content/a.md", "A, edited", blob="b2"), None)
    assert b"A, edited" in branch_files(github)["a/index.html"]
    assert github.repository.text("rev-parse", "gh-pages:.nojekyll") == nojekyll


def test_a_new_slug_makes_the_old_page_a_redirect_on_the_branch(github: FakeGitHub) -> None:
    """Moving an article keeps its old URL, as a redirect page, in the same commit."""
    target = site(pages(github))
    target.publish(post("content/a.md", "A"), None)
    before = github.repository.head_of("gh-pages")
    target.publish(post("content/a.md", "A", blob="b2", slug="moved"), None)
    files = branch_files(github)
    assert b"<h1>A</h1>" in files["moved/index.html"]
    assert b'url=https://blog.example/moved/"' in files["a/index.html"]
    assert github.repository.text("rev-list", "--count", f"{before}..gh-pages") == "1"


def test_unpublishing_costs_one_read_and_one_commit_and_matches_the_directory(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """The page and its index entry leave the branch in one commit, with its neighbour's page
    no longer linking to it. Reads: its entry; then its month's and tags' files, its listing
    pages; then its neighbour's page. Unpublishing again (a retry after a crash) reads once and
    writes nothing; the branch and a folder still agree."""
    on_branch, in_folder = site(pages(github)), site(DirectorySiteFiles(tmp_path))
    for target in (on_branch, in_folder):
        target.publish(post("content/a.md", "A"), None)
        target.publish(post("content/b.md", "B", day=2), None)
    with github.counting() as calls:
        on_branch.unpublish("content/a.md", None)
    assert calls == {"graphql LoadBranch": 3, "graphql CreateCommit": 1}
    assert b'rel="prev"' not in branch_files(github)["b/index.html"]
    before = commits(github)
    with github.counting() as calls:
        on_branch.unpublish("content/a.md", None)
    assert calls == {"graphql LoadBranch": 1} and commits(github) == before
    in_folder.unpublish("content/a.md", None)
    files = branch_files(github)
    assert "a/index.html" not in files and b">A<" not in files["index.html"]
    folder = site_folder(tmp_path)
    assert files == folder


def test_another_writer_moving_the_branch_makes_the_change_run_again(github: FakeGitHub) -> None:
    """Two executors publishing at once both end up on the index: STALE_DATA, re-read, re-apply."""
    mine, theirs = site(pages(github)), site(pages(github))
    mine.publish(post("content/first.md", "First"), None)
    github.before_write = lambda: theirs.publish(post("content/theirs.md", "Theirs", day=5), None)
    mine.publish(post("content/mine.md", "Mine", day=6), None)
    index = branch_files(github)["index.html"].decode()
    assert all(title in index for title in (">First<", ">Theirs<", ">Mine<"))


def test_a_refused_token_is_a_permanent_error_that_names_it(github: FakeGitHub) -> None:
    """401 is configuration, not weather: a dead letter at once, saying what to check."""
    with pytest.raises(PermanentError, match="GITHUB_TOKEN"):
        site(pages(github, token="wrong")).publish(post("content/a.md", "A"), None)


CHART = bytes(range(256)) * 4  # an image's bytes: not UTF-8


def article_with_a_chart(repo: Repo) -> tuple[Article, ContentSource]:
    """`content/a.md` showing `chart.png` (CHART) beside it, both committed, as read."""
    repo.commit(**{"content/a.md": "---\ntitle: A\n---\n\n![chart](chart.png)\n"})
    repo.write("content/chart.png", CHART)
    head = repo.commit("chart")
    source = ContentSource(Git(repo.root), "content")
    return source.read("content/a.md", repo.blob("content/a.md"), commit=head), source


def site_reading(github: FakeGitHub, source: ContentSource) -> SiteTarget:
    """The site on the Pages branch, its images read from `source`'s repository."""
    return build_site(
        "site", pages(github), SiteSettings(), content=source, default_url="https://x.test/"
    )


def assert_the_chart_is_served(github: FakeGitHub) -> None:
    files = branch_files(github)
    (asset,) = [path for path in files if path.startswith("assets/")]
    assert files[asset] == CHART and f'src="/{asset}"'.encode() in files["a/index.html"]


def test_images_reach_the_branch_byte_for_byte_even_on_its_first_commit(
    github: FakeGitHub, repo: Repo
) -> None:
    """Binary files cannot ride inline in the REST tree that starts the branch: they are made
    blobs first (base64), and the branch's one commit holds them intact."""
    article, source = article_with_a_chart(repo)
    target = site_reading(github, source)
    target.verify(article, target.publish(article, None))
    assert_the_chart_is_served(github)
    assert commits(github) == 1 and github.requests["POST /repos/{repo}/git/blobs"] == 1


def test_verify_reads_back_only_what_this_process_did_not_see_committed(
    github: FakeGitHub,
) -> None:
    """A version this target committed is verified by the commit's answer (no request); one it
    did not write (a retry in a later run) is read back, and a page changed since is caught."""
    writer, article = site(pages(github)), post("content/a.md", "A")
    receipt = writer.publish(article, None)
    with github.counting() as calls:
        writer.verify(article, receipt)
    assert calls == {}
    later_run = site(pages(github))
    with github.counting() as calls:
        later_run.verify(article, receipt)
    assert calls == {"graphql LoadBranch": 1}
    pages(github).apply(lambda staged: staged.put("a/index.html", b"tampered"))
    with pytest.raises(TransientError, match="does not hold what was written"):
        later_run.verify(article, receipt)


def _each_holding_its_name(files: SiteFiles, names: list[str]) -> list[str]:
    """`names` written to the site in one write, each file holding its own name."""

    def write_them(staged: SiteWriter) -> None:
        for name in names:
            staged.put(name, name.encode())

    files.apply(write_them)
    return names


def test_a_batch_naming_hundreds_of_files_reads_them_300_a_query_at_one_head(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first build's batch touches thousands of the index's files; one query stays small,
    and a branch that moves between two of them is a conflict (the write runs again), never a
    mix of two heads."""
    files = pages(github)
    names = _each_holding_its_name(files, [f"f{n:03d}.txt" for n in range(450)])
    with github.counting() as calls:
        read = files.apply(lambda staged: [staged.read(name) for name in names], texts=names)
    assert read == [name.encode() for name in names]
    assert calls == {"graphql LoadBranch": 2}
    branch = GitHubBranch(github_client(github), repository=github.full_name, branch="gh-pages")
    read_once = branch._read_once

    def another_writer_after_the_first_query(texts: Any, oids: Any) -> Any:
        found = read_once(texts, oids)
        files.apply(lambda staged: staged.put("f000.txt", b"moved"))
        return found

    monkeypatch.setattr(branch, "_read_once", another_writer_after_the_first_query)
    with pytest.raises(Conflict):
        branch.read(texts=names)


def test_a_file_asked_for_again_in_a_read_is_read_once(github: FakeGitHub) -> None:
    """A write that names a file more than once (two listing pages that read the same year's
    file; a file wanted whole and for its id) reads it once: 150 files named three times each
    are one query, not three."""
    files = pages(github)
    names = _each_holding_its_name(files, [f"g{n:03d}.txt" for n in range(150)])
    with github.counting() as calls:
        read = files.apply(
            lambda staged: [staged.read(name) for name in names], texts=[*names, *names], oids=names
        )
    assert read == [name.encode() for name in names]
    assert calls == {"graphql LoadBranch": 1}


def test_a_pages_branch_of_an_earlier_layout_moves_into_the_index_like_a_folder(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """The same site on the branch and in a folder, both left as an earlier layout kept them (a
    single manifest): the first publish moves each into the index, and they still agree."""
    on_branch, in_folder = pages(github), DirectorySiteFiles(tmp_path)
    articles = [post(f"content/{name}.md", name.upper(), day=n + 1, tags=("go",))
                for n, name in enumerate("abc")]  # fmt: skip
    for files in (on_branch, in_folder):
        site(files).publish_batch([(article, None) for article in articles])
    entries = {
        path: Entry.from_json(fields) for path, fields in local_site_articles(tmp_path).items()
    }

    index = [
        name for name in branch_files(github) if name.startswith((".steadypress/", "sitemap-"))
    ]

    def to_earlier_layout(staged: SiteWriter) -> None:
        for name in index:
            staged.remove(name)
        staged.put(MANIFEST, old_site_manifest(entries))

    for files in (on_branch, in_folder):
        files.apply(to_earlier_layout)
    for files in (on_branch, in_folder):
        site(files).publish(post("content/d.md", "D", day=9, tags=("go",)), None)
    folder = site_folder(tmp_path)
    assert branch_files(github) == folder
    assert MANIFEST not in folder and SUMMARY in folder
    assert set(local_site_articles(tmp_path)) == {f"content/{n}.md" for n in "abcd"}


def test_sitemaps_of_the_layout_before_move_on_a_pages_branch_as_in_a_folder(
    github: FakeGitHub, tmp_path: Path
) -> None:
    """The same site on the branch and in a folder, its sitemaps left as the layout before
    linear hashing kept them: the next publish moves both alike (two more reads on GitHub:
    the old index, then the sitemaps it names)."""
    on_branch, in_folder = pages(github), DirectorySiteFiles(tmp_path)
    articles = [post(f"content/p{n}.md", f"P{n}", day=n % 28 + 1) for n in range(60)]
    for files in (on_branch, in_folder):
        site(files).publish_batch([(article, None) for article in articles])
        files.apply(lambda staged: to_the_first_sitemaps_layout(staged, "https://blog.example/"))
    assert any(name.startswith("sitemaps/") and len(name) == 15 for name in branch_files(github))
    for files in (on_branch, in_folder):
        site(files).publish(post("content/new.md", "New", day=28), None)
    folder = site_folder(tmp_path)
    assert branch_files(github) == folder
    assert not any(name.startswith("sitemaps/") for name in folder)
    assert sorted(name for name in folder if name.startswith("sitemap-")) == [
        "sitemap-home.xml", "sitemap-pages-0.xml", "sitemap-pages-1.xml",
    ]  # fmt: skip


def _state_and_pages(github: FakeGitHub) -> tuple[GitHubBranch, BranchSiteFiles]:
    """The state branch and the site on one repository, sharing what is read ahead."""
    client, ahead = github_client(github), ReadAhead()
    state = GitHubBranch(client, repository=github.full_name, branch="state", read_ahead=ahead)
    branch = GitHubBranch(client, repository=github.full_name, branch="gh-pages", read_ahead=ahead)
    return state, BranchSiteFiles(branch, clock=ManualClock())


def test_a_read_asked_ahead_rides_on_the_next_commit_of_another_branch(
    github: FakeGitHub,
) -> None:
    state, files = _state_and_pages(github)
    head = state.create({"state/pending.json": b"{}\n"}, message="state")
    files.apply(lambda w: w.put("a.html", b"A"))
    files.read_ahead(lambda: (["a.html"], ["b.html"]))
    with github.counting() as calls:
        state.commit({"state/pending.json": b"[]\n"}, expected=head, message="claim")
        read = files.apply(
            lambda w: (w.read("a.html"), w.exists("b.html")), texts=["a.html"], oids=["b.html"]
        )
    assert read == (b"A", False)
    assert calls == {"graphql CreateCommit": 1}, "the read came with the claim's answer"
    # Once: the next apply reads for itself.
    with github.counting() as calls:
        assert files.apply(lambda w: w.read("a.html"), texts=["a.html"]) == b"A"
    assert calls == {"graphql LoadBranch": 1}


def test_a_read_ahead_gone_stale_costs_a_retry_never_a_lost_write(github: FakeGitHub) -> None:
    """Another writer moved the Pages branch between the claim and the write: the write based
    on what was read ahead is refused by the compare-and-swap, and made again on fresh files."""
    state, files = _state_and_pages(github)
    head = state.create({"state/pending.json": b"{}\n"}, message="state")
    files.apply(lambda w: w.put("list.html", b"one\n"))
    files.read_ahead(lambda: (["list.html"], []))
    state.commit({"state/pending.json": b"[]\n"}, expected=head, message="claim")
    pages(github).apply(lambda w: w.put("list.html", b"one\ntwo\n"), texts=["list.html"])

    def append(w: SiteWriter) -> None:
        w.put("list.html", (w.read("list.html") or b"") + b"three\n")

    with github.counting() as calls:
        files.apply(append, texts=["list.html"])
    assert github.repository.text("show", "gh-pages:list.html") == "one\ntwo\nthree"
    assert calls == {"graphql CreateCommit": 2, "graphql ReadHead": 1, "graphql LoadBranch": 1}


def test_a_read_ahead_is_used_only_for_the_files_it_holds(github: FakeGitHub) -> None:
    state, files = _state_and_pages(github)
    head = state.create({"state/pending.json": b"{}\n"}, message="state")
    files.apply(lambda w: w.put("a.html", b"A"))
    files.read_ahead(lambda: (["a.html"], []))
    state.commit({"state/pending.json": b"[]\n"}, expected=head, message="claim")
    with github.counting() as calls:
        files.apply(lambda w: w.read("b.html"), texts=["a.html", "b.html"])
    assert calls == {"graphql LoadBranch": 1}


class _Answering:
    """A client whose answer to a commit reads the Pages branch as given."""

    def __init__(self, repository: object) -> None:
        self.repository = repository

    def graphql(self, _query: str, _variables: object, *, mutation: bool) -> dict[str, Any]:
        assert mutation
        return {"createCommitOnBranch": {"commit": {"oid": "1" * 40,
                                                    "repository": self.repository}}}  # fmt: skip


@pytest.mark.parametrize(
    "repository",
    [None, "garbage", {}, {"r0": "garbage"}, {"r0": {"target": None}}, {"r0": {"target": {}}}],
)
def test_an_answer_that_makes_no_sense_is_not_taken_for_a_missing_branch(
    repository: object,
) -> None:
    """Only GraphQL's null says a branch does not exist (the site would make it anew, as an
    orphan); anything else malformed is no answer, and the site reads for itself."""
    ahead = ReadAhead()
    client: Any = _Answering(repository)
    state = GitHubBranch(client, repository="o/r", branch="state", read_ahead=ahead)
    ahead.ask("gh-pages", ["a.html"], [])
    state.commit({"state/pending.json": b"[]\n"}, expected="0" * 40, message="claim")
    assert ahead.answers("gh-pages") == []

    ahead.ask("gh-pages", ["a.html"], [])
    GitHubBranch(_Answering({"r0": None}), repository="o/r", branch="state",  # type: ignore[arg-type]
                 read_ahead=ahead).commit({}, expected="0" * 40, message="claim")  # fmt: skip
    assert ahead.answers("gh-pages") != [], "null: the branch is not there"


def test_a_rehearsal_on_what_the_load_read_asks_the_claim_for_the_rest(
    github: FakeGitHub,
) -> None:
    """The state's read carries the site's first read; the site rehearses its write on it
    (writing nothing) and asks for what the write reads next, which the claim carries: the
    write then reads nothing itself. The rehearsal goes on past a file the write announces,
    as if absent, to what it reads next (here a page it needs whatever that file holds, as a
    neighbour's page after a crowded month's parts). A Pages commit by someone else in between
    costs the write a read of its own, never a wrong page."""
    state, files = _state_and_pages(github)
    head = state.create({"state/pending.json": b"{}\n"}, message="state")

    def seed(w: SiteWriter) -> None:
        w.put("index.html", b"next.html\n")
        w.put("next.html", b"N")
        w.put("neighbour.html", b"")

    files.apply(seed)

    def change(w: SiteWriter) -> None:
        target = (w.read("index.html") or b"").decode().strip()
        w.want(texts=[target])
        w.put(target, (w.read(target) or b"") + b"+")
        w.want(texts=["neighbour.html"])
        w.put("neighbour.html", (w.read("neighbour.html") or b"") + b"+")

    for someone_else_writes in (False, True):
        files.read_ahead(lambda: (["index.html"], []), change)
        assert state.read(["state/pending.json"]).head == head  # the load, carrying index.html
        files.read_ahead(lambda: (["index.html"], []), change)  # rehearsed: next.html wanted
        head = state.commit({"state/pending.json": b"[]\n"}, expected=head, message="claim")
        if someone_else_writes:
            pages(github).apply(lambda w: w.put("next.html", b"M"), oids=["next.html"])
        with github.counting() as calls:
            files.apply(change, texts=["index.html"])
        if someone_else_writes:
            assert github.repository.text("show", "gh-pages:next.html") == "M+"
            assert calls["graphql LoadBranch"] >= 1
        else:
            assert github.repository.text("show", "gh-pages:next.html") == "N+"
            assert github.repository.text("show", "gh-pages:neighbour.html") == "+"
            assert calls == {"graphql CreateCommit": 1}, "the write read nothing itself"


@pytest.mark.parametrize(
    "step",
    [
        "graphql CreateCommit",  # where the images once went: a second commit
        "POST /repos/{repo}/git/blobs",
        "POST /repos/{repo}/git/trees",
        "POST /repos/{repo}/git/commits",
        "POST /repos/{repo}/git/refs",
    ],
)
def test_a_first_publish_failing_at_any_step_leaves_its_images_to_the_retry(
    github: FakeGitHub, repo: Repo, step: str
) -> None:
    """Whichever request of the Pages branch's first write fails, publishing again puts the
    images on the branch. When a branch was made of the text first and the images followed
    in a commit of their own, that commit failing left the site's index naming the images:
    publishing again found nothing to do, and they never came."""
    article, source = article_with_a_chart(repo)
    github.inject(Fault(step, status=502, times=50))
    with contextlib.suppress(TransientError):
        site_reading(github, source).publish(article, None)
    github.clear_faults()
    again = site_reading(github, source)
    again.verify(article, again.publish(article, None))
    assert_the_chart_is_served(github)
