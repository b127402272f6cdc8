"""`steadypress check`: every problem publishing would meet, named by file and line, found
before merging, with nothing written."""

from __future__ import annotations

from tests.helpers import Repo, article, run_cli


def test_each_problem_is_named_with_its_file_and_line_and_nothing_is_written(repo: Repo) -> None:
    repo.commit(
        **{
            "content/good.md": article("Good"),
            "content/yaml.md": "---\ntitle: Y\ntags: [a, b\n---\nText.\n",
            "content/image.md": "---\ntitle: I\n---\n\nIntro.\n\n![diagram](images/gone.png)\n",
            "content/same.md": article("Same", slug="good"),
        }
    )
    result = run_cli(repo, "check")
    assert result.code == 1
    lines = result.out.splitlines()
    assert any(
        line.startswith("content/yaml.md:3: front matter is not valid YAML") for line in lines
    )
    assert "content/image.md:7: image 'images/gone.png' not found" in result.out
    assert "content/same.md:3: URL /good/ is also the URL of content/good.md" in result.out
    assert not any(line.startswith("content/good.md:") for line in lines if "same.md" not in line)
    assert "4 article(s), 4 problem(s)" in result.out
    assert repo.state_head() is None and not (repo.root / "_site").exists()


def test_a_clean_blog_passes(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A"), "content/b.md": article("B", tags="[x]")})
    result = run_cli(repo, "check")
    assert result.code == 0 and "2 article(s), 0 problem(s)" in result.out


def test_worktree_checks_what_is_not_committed_yet(repo: Repo) -> None:
    """--worktree: a new file, uncommitted; the index and HEAD stay as they were."""
    head = repo.commit(**{"content/a.md": article("A")})
    repo.write("content/draft.md", "---\ntitle: D\ntargets: [sitee]\n---\n")
    assert run_cli(repo, "check", "content/draft.md").code == 2, "not committed: bad usage"
    result = run_cli(repo, "check", "--worktree", "content/draft.md")
    assert result.code == 1
    assert "content/draft.md:3: front matter 'targets' names 'sitee'" in result.out
    assert repo.head() == head and repo.git("status", "--porcelain") == "?? content/draft.md"


def test_base_limits_the_check_to_what_changed(repo: Repo) -> None:
    base = repo.commit(**{"content/old.md": "not an article"})
    repo.commit(**{"content/new.md": article("New")})
    result = run_cli(repo, "check", "--base", base)
    assert result.code == 0 and "1 article(s), 0 problem(s)" in result.out
