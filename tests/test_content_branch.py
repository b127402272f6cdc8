"""Publishing reads the content branch, never whatever happens to be checked out; another ref
is published only when asked for, and said."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.helpers import Repo, article, run_cli


def published(repo: Repo) -> set[str]:
    return set(repo.ledger().published)


def test_a_run_on_a_feature_branch_publishes_the_content_branch_and_says_so(repo: Repo) -> None:
    """On `draft-ideas`, `run` publishes main's articles, not the branch's, and names both."""
    repo.commit(**{"content/on-main.md": article("On main")})
    repo.git("checkout", "-q", "-b", "draft-ideas")
    repo.commit(**{"content/unfinished.md": article("Unfinished")})
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert published(repo) == {"site:content/on-main.md"}
    assert "publishing the content branch main (" in result.err
    assert "the checkout is on draft-ideas, whose articles are not published" in result.err
    assert "--ref HEAD publishes them" in result.err
    repo.git("checkout", "-q", "main")
    result = run_cli(repo, "run")
    assert "publishing" not in result.err and "unpublished" not in result.out + result.err
    assert published(repo) == {"site:content/on-main.md"}


def test_a_clone_publishes_its_remote_s_default_branch_not_a_local_main(tmp_path: Path) -> None:
    """A clone of a blog whose default branch is `trunk`, with a `main` of its own checked out
    (an article more): what publishes is the remote's default branch, as the clone recorded
    it (`origin/HEAD`), not the `main` that git's defaults would pick."""
    origin = Repo(tmp_path / "origin")
    origin.git("checkout", "-q", "-b", "trunk")
    origin.commit(**{"content/on-trunk.md": article("On trunk")})
    subprocess.run(["git", "clone", "-q", str(origin.root), str(tmp_path / "blog")], check=True)
    blog = Repo(tmp_path / "blog")
    blog.git("checkout", "-q", "-b", "main")
    blog.commit(**{"content/on-main.md": article("On main")})
    result = run_cli(blog, "run")
    assert result.code == 0, result.err
    assert published(blog) == {"site:content/on-trunk.md"}
    assert "publishing the content branch trunk (" in result.err


def test_another_ref_is_published_only_when_asked_and_the_output_says_so(repo: Repo) -> None:
    repo.commit(**{"content/on-main.md": article("On main")})
    repo.git("checkout", "-q", "-b", "preview")
    repo.commit(**{"content/preview.md": article("Preview")})
    result = run_cli(repo, "run", "--ref", "HEAD")
    assert result.code == 0, result.err
    assert (
        "publishing HEAD (" in result.err and "as --ref asks, not the content branch" in result.err
    )
    assert published(repo) == {"site:content/on-main.md", "site:content/preview.md"}


def test_a_configured_content_branch_is_what_publishes(repo: Repo) -> None:
    """`content_branch: blog` on the default branch: the articles and the configuration are
    read from `blog`, wherever the checkout is."""
    repo.commit(
        **{"steadypress.yml": "content_branch: blog\n", "content/main-only.md": article("M")}
    )
    repo.git("checkout", "-q", "-b", "blog")
    repo.commit(**{"content/blog-post.md": article("Blog post")})
    repo.git("checkout", "-q", "main")
    result = run_cli(repo, "run")
    assert result.code == 0, result.err
    assert published(repo) == {"site:content/main-only.md", "site:content/blog-post.md"}
    assert "publishing the content branch blog (" in result.err


def test_a_ref_or_a_content_branch_that_does_not_exist_is_a_usage_error(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A")})
    result = run_cli(repo, "run", "--ref", "no-such-branch")
    assert result.code == 2 and "--ref: 'no-such-branch' names no commit" in result.err
    repo.commit(**{"steadypress.yml": "content_branch: nowhere\n"})
    result = run_cli(repo, "run")
    assert result.code == 2
    assert "no branch 'nowhere' here (content_branch in steadypress.yml)" in result.err
    assert "configuration error" not in result.err
    assert repo.git("branch", "--list", "steadypress-state") == "", "nothing was written"


def test_an_unknown_content_branch_value_is_a_configuration_error(repo: Repo) -> None:
    repo.commit(**{"steadypress.yml": "content_branch: [main]\n", "content/a.md": article("A")})
    result = run_cli(repo, "run")
    assert result.code == 2 and "content_branch: expected a branch name" in result.err
