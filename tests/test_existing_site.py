"""Moving an existing blog: a Pages branch that already holds a site keeps every file
steadypress did not write, old URLs keep working, and a Jekyll post keeps its URL and topics."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.github import FakeGitHub
from tests.helpers import Repo, article, github_environment, run_cli

OLD_SITE = {
    "CNAME": b"old.example.org\n",
    "index.html": b"<html>the old blog's front page</html>\n",
    "hello/index.html": b"<html>an old page at /hello/</html>\n",
    "2019/05/first.html": b"<html>the first post, Jekyll style</html>\n",
    "assets/logo.png": b"\x89PNG old logo",
    "404.html": b"<html>the old blog's own not-found page</html>\n",
}


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        for name, value in github_environment(fake).items():
            monkeypatch.setenv(name, value)
        pages = fake.repository
        tree = pages.write_tree({path: pages.write_blob(data) for path, data in OLD_SITE.items()})
        commit = pages.write_commit(tree, [], "the blog as it was")
        assert pages.move_branch("gh-pages", commit, None)
        yield fake


def files(github: FakeGitHub) -> dict[str, bytes]:
    pages = github.repository
    names = pages.text("ls-tree", "-r", "--name-only", "gh-pages").split()
    return {name: pages.git("show", f"gh-pages:{name}") for name in names}


def gh(repo: Repo, *args: str) -> int:
    return run_cli(repo, *args, "--backend", "github").code


def test_files_steadypress_did_not_write_survive_publishing_and_unpublishing(
    repo: Repo, github: FakeGitHub
) -> None:
    repo.commit(**{"content/new.md": article("New"), "content/gone.md": article("Gone")})
    assert gh(repo, "run") == 0
    repo.git("rm", "-q", "content/gone.md")
    repo.commit()
    assert gh(repo, "run") == 0
    site = files(github)
    for path in ("CNAME", "hello/index.html", "2019/05/first.html", "assets/logo.png", "404.html"):
        assert site[path] == OLD_SITE[path], f"{path} was changed"
    assert "new/index.html" in site and "gone/index.html" not in site


def test_an_article_whose_url_holds_an_old_page_is_refused_not_written(
    repo: Repo, github: FakeGitHub
) -> None:
    """content/hello.md would be /hello/, where the old blog has a page: a dead letter naming
    the file, and the old page stays."""
    repo.commit(**{"content/hello.md": article("Hello")})
    assert gh(repo, "run") == 0
    assert files(github)["hello/index.html"] == OLD_SITE["hello/index.html"]
    issue = github.tracker.get_issue(1)
    assert (
        "hello/index.html is already on the site and steadypress did not write it" in issue["body"]
    )


def test_an_alias_turns_an_old_url_into_a_redirect_to_the_new_one(
    repo: Repo, github: FakeGitHub
) -> None:
    """A Jekyll post moved over: `permalink` gives its URL (a folder now), the old .html file
    becomes a redirect there, `categories` become tags, and `aliases` keep more old URLs."""
    front = {"permalink": "/2019/05/first.html", "categories": "[news]", "aliases": "[/first/]"}
    repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, cname: blog.example.org}\n",
                   "content/first-post.md": article("First", **front)})  # fmt: skip
    assert gh(repo, "run") == 0
    site = files(github)
    assert "2019/05/first/index.html" in site
    for old in ("2019/05/first.html", "first/index.html"):
        page = site[old].decode()
        assert 'http-equiv="refresh"' in page and '<link rel="canonical"' in page
        assert "/2019/05/first/" in page
    assert "tags/news/index.html" in site
    assert site["CNAME"] == b"blog.example.org\n"


def test_a_push_reads_the_404_page_only_where_it_is_not_steadypress_s(
    repo: Repo, github: FakeGitHub
) -> None:
    """The old blog's own 404 page stays through every push, each of which reads it with its
    other reads (four requests, as anywhere). Once the site's 404 page is steadypress's, a
    push asks for its blob id alone and reads none of it."""
    pages = github.repository

    def push(name: str) -> None:
        before = repo.git("rev-parse", "HEAD").strip()
        after = repo.commit(**{f"content/{name}.md": article(name.title())})
        read = github.texts_read["404.html"]
        with github.counting() as calls:
            result = run_cli(repo, "drain", "--push", before, after, "--backend", "github")
        assert result.code == 0 and "1 published" in result.out, result.out + result.err
        assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 3}, calls
        pushes.append(github.texts_read["404.html"] - read)

    pushes: list[int] = []
    repo.commit(**{"content/first.md": article("First")})
    assert gh(repo, "run") == 0
    push("second")
    assert files(github)["404.html"] == OLD_SITE["404.html"] and pushes == [1]
    head = pages.text("rev-parse", "gh-pages").strip()
    dropped = pages.write_tree({}, base_tree=f"{head}^{{tree}}", removed=["404.html"])
    assert pages.move_branch("gh-pages", pages.write_commit(dropped, [head], "drop"), head)
    push("third")
    assert b"steadypress" in files(github)["404.html"], "the missing page is steadypress's now"
    push("fourth")
    assert pushes == [1, 0, 0]
