"""`steadypress init`: an existing blog adopts steadypress in one command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from steadypress.init import WORKFLOWS, Setup, render_workflow
from tests.fakes.github import FakeGitHub
from tests.helpers import Repo, article, lint_workflows, run_cli

PROJECT = Path(__file__).resolve().parent.parent
PINNED = "acme/steadypress@0123456789abcdef0123456789abcdef01234567"
OWN = Setup(content="content", branch="main", action="./  # zizmor: ignore[self-repository]",
            prefix="")  # fmt: skip


@pytest.mark.parametrize("name", WORKFLOWS)
def test_this_repository_s_workflows_are_the_templates_rendered(name: str) -> None:
    """One source for the template's workflows and the ones init writes."""
    assert (PROJECT / ".github/workflows" / f"{name}.yml").read_text() == render_workflow(
        name, OWN
    ), "regenerate .github/workflows from scripts/steadypress/workflows (render_workflow)"


def test_init_fills_in_the_default_branch_and_the_content_folder(tmp_path: Path) -> None:
    """A blog on `master` with its posts under posts/: the branch and content_dir match."""
    repo = Repo(tmp_path / "blog")
    repo.git("checkout", "-q", "-b", "master")
    result = run_cli(repo, "init", "--content", "posts/", "--action", PINNED)
    assert result.code == 0, result.err
    publish = (repo.root / ".github/workflows/steadypress-publish.yml").read_text()
    assert "branches: [master]" in publish and "posts/" in publish
    assert f"uses: {PINNED}  # steadypress" in publish
    assert "workflow: steadypress-sweep.yml" in publish
    assert "content_dir: posts" in (repo.root / "steadypress.yml").read_text()
    assert "push them to master" in result.out


def test_init_changes_nothing_it_would_overwrite_unless_forced(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "blog")
    repo.write("steadypress.yml", "# mine\n")
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 2 and "would overwrite steadypress.yml" in result.err
    assert (repo.root / "steadypress.yml").read_text() == "# mine\n"
    assert not (repo.root / ".github").exists()
    assert run_cli(repo, "init", "--action", PINNED, "--force").code == 0
    assert (repo.root / "steadypress.yml").read_text() != "# mine\n"


@pytest.mark.parametrize("action", ["acme/steadypress@v1", "acme/steadypress@main", "x"])
def test_an_action_not_pinned_to_a_commit_is_refused(tmp_path: Path, action: str) -> None:
    repo = Repo(tmp_path / "blog")
    result = run_cli(repo, "init", "--action", action)
    assert result.code == 2 and "40-hex commit" in result.err


def test_the_written_workflows_pass_the_linters(tmp_path: Path) -> None:
    """What init writes into a user's repository is held to this repository's own rules."""
    repo = Repo(tmp_path / "blog")
    assert run_cli(repo, "init", "--action", PINNED).code == 0
    assert not lint_workflows((repo.root / ".github/workflows").glob("*.yml"))


def test_init_with_an_environment_puts_the_publishing_jobs_in_it(tmp_path: Path) -> None:
    """Opt-in protection: publish, sweep and retry run in the environment (so zizmor's auditor
    persona finds no secret outside one); check, which needs no secret, does not; the next
    steps say what an environment costs."""
    repo = Repo(tmp_path / "blog")
    result = run_cli(repo, "init", "--action", PINNED, "--environment", "publishing")
    assert result.code == 0, result.err
    folder = repo.root / ".github/workflows"
    for name in ("publish", "sweep", "retry"):
        assert "    environment: publishing\n" in (folder / f"steadypress-{name}.yml").read_text()
    assert "environment" not in (folder / "steadypress-check.yml").read_text()
    assert "Settings > Environments > New environment: publishing" in result.out
    assert "secrets of the environment publishing" in result.out
    workflows = sorted(str(p) for p in folder.glob("*.yml"))
    bin_dir = Path(sys.executable).parent
    lint = subprocess.run([str(bin_dir / "actionlint"), "-color=false", *workflows],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert lint.returncode == 0, lint.stdout

    def auditor_findings(files: list[str]) -> str:
        audit = subprocess.run(
            [str(bin_dir / "zizmor"), "--offline", "--persona", "auditor", *files],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        return audit.stdout + audit.stderr

    assert "secrets-outside-env" not in auditor_findings(workflows)
    plain = Repo(tmp_path / "plain")
    assert run_cli(plain, "init", "--action", PINNED).code == 0
    without = sorted(str(p) for p in (plain.root / ".github/workflows").glob("*.yml"))
    assert "secrets-outside-env" in auditor_findings(without), "the audit itself ran"


@pytest.mark.parametrize("name", ["two words", "a:b", ""])
def test_an_environment_name_github_would_refuse_is_refused(tmp_path: Path, name: str) -> None:
    repo = Repo(tmp_path / "blog")
    result = run_cli(repo, "init", "--action", PINNED, "--environment", name)
    assert result.code == 2 and "--environment" in result.err
    assert not (repo.root / ".github").exists()


@pytest.mark.parametrize(
    "link",
    [
        ".github/workflows/steadypress-publish.yml",
        "steadypress.yml",
        ".github",
        ".github/workflows",
    ],
)
def test_init_writes_nothing_through_a_symlink(tmp_path: Path, link: str) -> None:
    """A symlink at a file init writes (dangling, so `exists()` is false) or at a folder on the
    way: refused by name, nothing written here or where it points."""
    repo = Repo(tmp_path / "blog")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = repo.root / link
    where.parent.mkdir(parents=True, exist_ok=True)
    where.symlink_to(elsewhere / "x.yml" if link.endswith(".yml") else elsewhere)
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 2 and f"{link}: a symlink" in result.err
    assert list(elsewhere.iterdir()) == []
    assert not (repo.root / "steadypress.yml").exists() or link == "steadypress.yml"


@pytest.mark.parametrize(
    "content",
    ["posts\nstate_branch: main", 'posts"', "posts#x", "a:b", "posts\\x", " posts"],
)
def test_a_content_folder_that_would_break_yaml_is_refused(tmp_path: Path, content: str) -> None:
    repo = Repo(tmp_path / "blog")
    result = run_cli(repo, "init", "--action", PINNED, "--content", content)
    assert result.code == 2 and "--content" in result.err
    assert not (repo.root / "steadypress.yml").exists()


@pytest.mark.parametrize("content", ["Блог/посты", "my posts", "1.0", "true"])
def test_a_content_folder_any_script_names_is_written_so_it_reads_back(
    tmp_path: Path, content: str
) -> None:
    """Letters of any script and spaces are fine; a name YAML would read as a number or a
    boolean is quoted."""
    repo = Repo(tmp_path / "blog")
    assert run_cli(repo, "init", "--action", PINNED, "--content", content).code == 0
    config = yaml.safe_load((repo.root / "steadypress.yml").read_text(encoding="utf-8"))
    assert config["content_dir"] == content


@pytest.mark.parametrize("branch", ["main,gh-pages", "*", "release/{a,b}", "main]#", "a+b", "!x"])
def test_a_branch_the_workflow_filter_would_read_as_a_pattern_is_refused(
    tmp_path: Path, branch: str
) -> None:
    """git allows these names; in `branches: [...]` they match other branches, or no YAML."""
    repo = Repo(tmp_path / "blog")
    result = run_cli(repo, "init", "--action", PINNED, "--branch", branch)
    assert result.code == 2 and "--branch" in result.err and "patterns" in result.err
    assert not (repo.root / ".github").exists()


def test_a_detected_branch_is_checked_as_a_given_one_is(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "blog")
    repo.git("checkout", "-q", "-b", "feature+x")
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 2 and "the branch found, 'feature+x'" in result.err


@pytest.mark.parametrize("branch", ["release/2.0", "1.0", "main"])
def test_a_branch_name_reads_back_from_the_workflow_as_itself(tmp_path: Path, branch: str) -> None:
    repo = Repo(tmp_path / "blog")
    assert run_cli(repo, "init", "--action", PINNED, "--branch", branch).code == 0
    publish = (repo.root / ".github/workflows/steadypress-publish.yml").read_text()
    assert yaml.safe_load(publish)[True]["push"]["branches"] == [branch]  # `on:` is YAML's True


@pytest.mark.parametrize(
    ("remote", "address"),
    [
        ("https://github.com/octo/blog.git", "https://octo.github.io/blog/"),
        ("git@github.com:Octo/octo.github.io.git", "https://octo.github.io/"),
    ],
)
def test_init_says_where_the_site_will_be(tmp_path: Path, remote: str, address: str) -> None:
    """A project site under its path, a user site at the domain's root."""
    repo = Repo(tmp_path / "blog")
    repo.git("remote", "add", "origin", remote)
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 0, result.err
    assert f"The site will be at {address}" in result.out


def test_init_names_the_custom_domain_a_committed_cname_gives(tmp_path: Path) -> None:
    """A Jekyll blog's CNAME at the repository's root: the site's address, said by init."""
    repo = Repo(tmp_path / "blog")
    repo.git("remote", "add", "origin", "https://github.com/octo/blog.git")
    repo.commit(**{"CNAME": "blog.example.org\n", "content/a.md": "---\ntitle: A\n---\n"})
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 0, result.err
    assert "The site will be at https://blog.example.org/ (the domain the committed CNAME" in (
        result.out
    )


def test_init_without_a_github_remote_names_no_address(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "blog")
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 0 and "The site will be at" not in result.out


def test_a_content_folder_with_no_article_is_refused_naming_those_with_some(
    tmp_path: Path,
) -> None:
    """A Jekyll blog's posts are in _posts/: `init` with the default content/ would publish
    nothing (and `check` would call that healthy); it names the folders that hold articles."""
    repo = Repo(tmp_path / "blog")
    repo.commit(**{
        "_posts/2024-01-05-hello.md": article("Hello"),
        "_posts/2024-02-01-more.md": article("More"),
        "docs/guide.md": "# Guide\n",
        "README.md": "# My blog\n",
    })  # fmt: skip
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 2 and "content/ holds no article (.md file)" in result.err
    assert "_posts/ (2), docs/ (1)" in result.err
    assert not (repo.root / "steadypress.yml").exists()
    assert run_cli(repo, "init", "--action", PINNED, "--content", "_posts").code == 0


def test_a_blog_with_no_article_yet_is_set_up(tmp_path: Path) -> None:
    """No article anywhere (a README aside): a blog to begin, accepted."""
    repo = Repo(tmp_path / "blog")
    repo.commit(**{"README.md": "# Soon\n"})
    assert run_cli(repo, "init", "--action", PINNED).code == 0


def test_init_in_a_repository_that_runs_steadypress_already_says_so(tmp_path: Path) -> None:
    """A blog made from the template has its own publishing workflows: a second set would
    publish every push twice. Refused, naming them; --force adds them anyway."""
    repo = Repo(tmp_path / "blog")
    repo.write(".github/workflows/publish.yml", render_workflow("publish", OWN))
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 2
    assert "runs steadypress already (.github/workflows/publish.yml)" in result.err
    assert not (repo.root / ".github/workflows/steadypress-publish.yml").exists()
    assert run_cli(repo, "init", "--action", PINNED, "--force").code == 0


@pytest.mark.parametrize("generator", ["hugo", "jekyll"])
def test_the_readme_shows_the_workflow_steps_init_writes_for_a_generator(generator: str) -> None:
    """The README's "Keep your generator" shows the step a Hugo or Jekyll blog ends up with:
    what `init` writes today (the Hugo version, the pinned setup-ruby), not what it once did."""
    readme = (PROJECT / "README.md").read_text()
    setup = Setup(content="content", branch="main", prefix="steadypress-", action=PINNED,
                  generator=generator)  # fmt: skip
    written = render_workflow("publish", setup)
    wanted = "hugo-version:" if generator == "hugo" else "uses: ruby/setup-ruby@"
    (line,) = [line.strip() for line in written.splitlines() if wanted in line]
    shown = [text.strip() for text in readme.splitlines() if wanted in text]
    assert shown and all(text.startswith(line) for text in shown), (line, shown)


@pytest.mark.parametrize(
    ("private", "cron", "said"),
    [
        (False, "7-59/10 * * * *", "4,320 runner minutes a month, free on this public repository"),
        (
            True,
            "7 * * * *",
            "720 runner minutes a month of the 2,000 the free plan gives this private",
        ),
    ],
)
def test_the_sweep_runs_as_often_as_the_repositorys_minutes_allow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, private: bool, cron: str, said: str
) -> None:
    """init asks GitHub, with no token, whether the repository is private (then "Not Found"):
    a public one's minutes are free, a private one's sweep runs hourly."""
    with FakeGitHub() as github:
        github.private = private
        monkeypatch.setenv("GITHUB_API_URL", github.api_url)
        repo = Repo(tmp_path / "blog")
        repo.git("remote", "add", "origin", f"https://github.com/{github.full_name}.git")
        result = run_cli(repo, "init", "--action", PINNED)
        asked = github.requests["GET /repos/{repo}"]
    assert result.code == 0, result.err
    sweep = (repo.root / ".github/workflows/steadypress-sweep.yml").read_text()
    assert f'- cron: "{cron}"' in sweep
    assert said in " ".join(result.out.split())
    assert asked == 1


def test_the_sweep_of_a_repository_github_did_not_say_of_runs_hourly_and_says_why(
    tmp_path: Path,
) -> None:
    repo = Repo(tmp_path / "blog")
    repo.git("remote", "add", "origin", "https://github.com/octo/blog.git")  # the API unreached
    result = run_cli(repo, "init", "--action", PINNED)
    assert result.code == 0, result.err
    assert (
        '- cron: "7 * * * *"' in (repo.root / ".github/workflows/steadypress-sweep.yml").read_text()
    )
    assert (
        "a private repository (GitHub did not say which this is); pushes publish at once"
        in " ".join(result.out.split())
    )
    chosen = Repo(tmp_path / "chosen")
    assert run_cli(chosen, "init", "--action", PINNED, "--sweep", "6h").code == 0
    text = (chosen.root / ".github/workflows/steadypress-sweep.yml").read_text()
    assert '- cron: "7 */6 * * *"' in text and "# Every 6 hours, off the top" in text
