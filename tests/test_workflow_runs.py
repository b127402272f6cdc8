"""The workflow files, run as written by the harness, against the GitHub fake: the stories of a
blog on GitHub, from a push to a dead letter and back."""

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from steadypress import __version__
from steadypress.github.store import GitHubStore
from steadypress.ledger import Ledger
from tests.fakes.github import FakeGitHub, Fault
from tests.fakes.github.apps import FakeApp, key_pair
from tests.harness.runner import RunnerCaches, RunResult, WorkflowRunner
from tests.helpers import Repo, article, github_client, run_cli
from tests.test_sitemaps import check_sitemaps

pytestmark = pytest.mark.slow

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"
ZERO = "0" * 40
FAST = "timings: {lease: 10m, grace: 0s, backoff_initial: 0s, backoff_max: 0s}\nmax_attempts: 2\n"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo(repo: Repo) -> Repo:
    """A blog made from this repository as a template: the project's files, no sample articles."""
    copy_project(repo.root)
    repo.commit("from the template")
    return repo


def copy_project(into: Path) -> None:
    """This repository's files as they are (committed or not), but its sample articles."""
    listed = subprocess.run(
        ["git", "-C", str(PROJECT), "ls-files", "--cached", "--others", "--exclude-standard"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    for name in listed:
        source = PROJECT / name
        if name.startswith("content/") or not source.is_file():
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


@pytest.fixture(scope="session")
def caches(tmp_path_factory: pytest.TempPathFactory) -> RunnerCaches:
    """One actions/cache store for the session: the action's installation is built once and
    restored by every later run, as on GitHub once a cache is warm."""
    root = tmp_path_factory.mktemp("runner")
    return RunnerCaches(tool_cache=root / "tool-cache", store=root / "cache-store")


@pytest.fixture
def runner(repo: Repo, github: FakeGitHub, caches: RunnerCaches) -> WorkflowRunner:
    return WorkflowRunner(
        origin=repo.root, api_url=github.api_url, graphql_url=github.graphql_url,
        repository=github.full_name, token=github.token, caches=caches,
    )  # fmt: skip


def push(runner: WorkflowRunner, before: str, after: str, *, forced: bool = False) -> RunResult:
    payload = {"ref": "refs/heads/main", "before": before, "after": after, "forced": forced,
               "repository": {"full_name": runner.repository}}  # fmt: skip
    return runner.run(WORKFLOWS / "publish.yml", "push", payload, sha=after)


def sweep(runner: WorkflowRunner, repo: Repo, **inputs: object) -> RunResult:
    if inputs:
        return runner.run(WORKFLOWS / "sweep.yml", "workflow_dispatch", {"inputs": inputs},
                          sha=repo.head(), inputs=inputs)  # fmt: skip
    return runner.run(
        WORKFLOWS / "sweep.yml", "schedule", {"schedule": "7-59/10 * * * *"}, sha=repo.head()
    )


def remote(github: FakeGitHub) -> Ledger:
    client = github_client(github)
    return (
        GitHubStore(client, repository=github.full_name, branch="steadypress-state").load().ledger
    )


def pages(github: FakeGitHub) -> set[str]:
    if github.repository.head_of("gh-pages") is None:
        return set()
    return set(github.repository.text("ls-tree", "-r", "--name-only", "gh-pages").split())


def test_a_pushed_article_is_published_within_the_same_run(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """publish.yml on a push: the article is on gh-pages as the run ends; the summary links it."""
    before = repo.commit(**{"README.md": "blog"})
    after = repo.commit(**{"content/hello.md": article("Hello")})
    run = push(runner, before, after)
    assert run.outcome == "success", run.jobs["publish"].steps
    assert "hello/index.html" in pages(github)
    assert "[https://octo.github.io/blog/hello/](https://octo.github.io/blog/hello/)" in run.summary


def test_a_push_outside_content_publishes_nothing(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """Every push wakes publish (no path filter could follow the theme folder's name): a README
    change finds nothing to do, and publishes and writes nothing."""
    base = repo.commit(**{"README.md": "blog"})
    before = repo.commit(**{"content/a.md": article("A")})
    assert push(runner, base, before).outcome == "success"
    state, site = remote(github), pages(github)
    after = repo.commit(**{"README.md": "changed"})
    run = push(runner, before, after)
    assert run.outcome == "success", run.jobs["publish"].steps
    assert pages(github) == site and "a/index.html" in site
    assert remote(github) == state


def test_what_runs_cost_of_the_tokens_hourly_limits(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """The figures docs/github.md gives for GITHUB_TOKEN's two hourly limits (1,000 REST
    requests, 1,000 GraphQL points): a pushed article's run makes 4 GraphQL requests and 1 REST
    one (the schedule's check), a push that changes no article 1 and 1, an idle sweep 1."""
    base = repo.commit(**{"steadypress.yml": FAST})
    before = repo.commit(**{"content/a.md": article("A")})
    assert push(runner, base, before).outcome == "success"
    schedule = "GET /repos/{repo}/actions/workflows/{workflow}"
    after = repo.commit(**{"content/b.md": article("B")})
    with github.counting() as calls:
        assert push(runner, before, after).outcome == "success"
    assert calls == {"graphql LoadBranch": 1, "graphql CreateCommit": 3, schedule: 1}
    nothing = repo.commit(**{"README.md": "A blog."})
    with github.counting() as calls:
        assert push(runner, after, nothing).outcome == "success"
    assert calls == {"graphql LoadBranch": 1, schedule: 1}
    with github.counting() as calls:
        assert sweep(runner, repo).outcome == "success"
    assert calls == {"graphql LoadBranch": 1}


def test_an_article_only_push_starts_publish_and_nothing_else(
    repo: Repo, runner: WorkflowRunner
) -> None:
    """A blogger's push of articles runs the publish workflow only: not the tool's own CI, which
    a change to the tool starts (as every push starts publish, which then publishes nothing)."""
    before = repo.commit(**{"README.md": "A blog."})
    articles = repo.commit(**{"content/a.md": article("A")})
    tool = repo.commit(**{"scripts/steadypress/x.py": "# a change to the tool\n"})

    def started(after: str, previous: str) -> set[str]:
        payload = {"ref": "refs/heads/main", "before": previous, "after": after}
        return {
            path.name for path in WORKFLOWS.glob("*.yml") if runner.starts(path, "push", payload)
        }

    assert started(articles, before) == {"publish.yml"}
    assert started(tool, articles) == {"ci.yml", "publish.yml"}
    # A blogger's edit of a publishing workflow's schedule is theirs too.
    cron = repo.commit(**{".github/workflows/sweep.yml": "# their schedule\n"})
    assert started(cron, tool) == {"publish.yml"}
    # A release is a tag; a push of a branch never starts it.
    tag = {"ref": "refs/tags/v0.2.0", "before": "0" * 40, "after": tool}
    assert runner.starts(WORKFLOWS / "release.yml", "push", tag, ref="refs/tags/v0.2.0")
    assert not runner.starts(WORKFLOWS / "publish.yml", "push", tag, ref="refs/tags/v0.2.0")


def test_a_push_whose_run_never_came_is_published_by_the_next_sweep(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """The event is lost: no publish run. The scheduled sweep reconciles and publishes."""
    repo.commit(**{"content/missed.md": article("Missed")})
    run = sweep(runner, repo)
    assert run.outcome == "success", run.jobs["sweep"].steps
    assert "site:content/missed.md" in remote(github).published
    assert "missed/index.html" in pages(github)


def test_a_first_push_and_a_force_push_publish_what_is_unpublished_and_nothing_twice(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """A zero BEFORE, then a rewritten history: each article is published once."""
    first = repo.commit(**{"content/a.md": article("A"), "content/b.md": article("B")})
    assert push(runner, ZERO, first).outcome == "success"
    published_a = remote(github).published["site:content/a.md"]
    repo.git("reset", "-q", "--hard", "HEAD")
    abandoned = repo.commit(**{"content/gone.md": article("Gone")})
    repo.git("reset", "-q", "--hard", first)
    rewritten = repo.commit(**{"content/c.md": article("C")})
    run = push(runner, abandoned, rewritten, forced=True)
    assert run.outcome == "success", run.jobs["publish"].steps
    ledger = remote(github)
    assert set(ledger.published) == {"site:content/a.md", "site:content/b.md", "site:content/c.md"}
    assert ledger.published["site:content/a.md"] == published_a, "not published twice"


def test_a_failing_target_becomes_one_dead_letter_and_the_retry_label_republishes_it(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """Every attempt fails: after enough sweeps, exactly one issue. The label `retry` on it runs
    retry.yml, which publishes the article, closes the issue and withdraws the label."""
    start = repo.commit(**{"steadypress.yml": FAST})
    before = repo.commit(**{"content/ok.md": article("OK")})
    assert push(runner, start, before).outcome == "success"
    github.inject(Fault("graphql CreateCommit", status=502, times=10_000, branch="gh-pages"))
    after = repo.commit(**{"content/a.md": article("A")})
    assert push(runner, before, after).outcome == "failure", "the publish run reports the failure"
    for _ in range(3):
        sweep(runner, repo)
    assert len(github.tracker.issues) == 1
    issue = github.tracker.get_issue(1)
    assert issue["state"] == "open" and "content/a.md" in issue["body"]
    github.clear_faults()
    github.tracker.add_label(1, "retry")
    payload = {
        "action": "labeled",
        "label": {"name": "retry"},
        "issue": github.tracker.get_issue(1),
    }
    run = runner.run(WORKFLOWS / "retry.yml", "issues", payload, sha=repo.head())
    assert run.outcome == "success", run.jobs["retry"].steps
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert [label["name"] for label in issue["labels"]] == ["dead-letter"]
    assert "a/index.html" in pages(github)


def test_a_label_other_than_retry_runs_nothing(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """retry.yml's job condition: only `retry` on a `dead-letter` issue."""
    issue = github.tracker.create_issue({"title": "t", "labels": ["dead-letter", "question"]})
    run = runner.run(
        WORKFLOWS / "retry.yml",
        "issues",
        {"action": "labeled", "label": {"name": "question"}, "issue": issue},
        sha=repo.commit(),
    )
    assert run.triggered and run.jobs["retry"].outcome == "skipped"


def test_a_dispatch_asking_to_retry_a_path_outside_content_is_refused_clearly(
    repo: Repo, runner: WorkflowRunner
) -> None:
    """`retry: ../etc/passwd` fails the retry step with the path named, and touches nothing."""
    repo.commit(**{"content/a.md": article("A")})
    run = sweep(runner, repo, retry="../etc/passwd")
    step = run.jobs["sweep"].step("Retry by hand")
    assert step.outcome == "failure"
    refusal = "../etc/passwd: not an article path: must be a .md or .markdown file under content/"
    assert refusal in step.output


def test_a_dry_run_shows_the_ledger_and_changes_nothing(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """dry_run: status only; the sweep step is skipped and no branch is created."""
    repo.commit(**{"content/a.md": article("A")})
    run = sweep(runner, repo, dry_run=True)
    job = run.jobs["sweep"]
    assert job.step("Show the ledger (dry run)").outcome == "success"
    assert job.step("Sweep").outcome == "skipped"
    assert github.repository.head_of("steadypress-state") is None


def test_a_dispatch_with_repair_site_names_a_hand_edit_then_writes_it_again(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """repair_site: with dry run, the status step names the page a hand edit broke and fails;
    without, the sweep writes it again from the site's index."""
    repo.commit(**{"content/a.md": article("A", tags="[news]")})
    assert sweep(runner, repo).outcome == "success"
    head = github.repository.head_of("gh-pages")
    good = github.repository.text("show", f"{head}:tags/news/index.html")
    github.repository.edit("gh-pages", {"tags/news/index.html": b"edited"}, "hand edit")
    looked = sweep(runner, repo, dry_run=True, repair_site=True).jobs["sweep"]
    step = looked.step("Show the ledger (dry run)")
    assert step.outcome == "failure"
    assert "site: tags/news/index.html: not what the index lists" in step.output
    assert sweep(runner, repo, repair_site=True).outcome == "success"
    head = github.repository.head_of("gh-pages")
    assert github.repository.text("show", f"{head}:tags/news/index.html") == good


@pytest.mark.parametrize(
    ("state", "after"),
    [("disabled_inactivity", "active"), ("disabled_manually", "disabled_manually")],
)
def test_a_publish_run_revives_a_schedule_github_disabled_but_not_one_a_maintainer_did(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner, state: str, after: str
) -> None:
    """60 quiet days disabled the sweep: the next push's run re-enables it, without a commit.
    A maintainer's own choice to disable it is left alone."""
    github.workflows["sweep.yml"] = state
    before = repo.commit(**{"README.md": "blog"})
    pushed = repo.commit(**{"content/a.md": article("A")})
    run = push(runner, before, pushed)
    assert run.outcome == "success", run.jobs["publish"].steps
    assert github.workflows["sweep.yml"] == after
    assert repo.head() == pushed, "no dummy commit"


def test_a_warm_run_installs_nothing(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner, caches: RunnerCaches
) -> None:
    """The action caches its installation on what it is built from: once one run has built it,
    the next restores it and skips the install; a change to the tool's sources is a new key."""
    start = repo.head()
    first = repo.commit(**{"content/a.md": article("A")})
    assert push(runner, start, first).outcome == "success"
    hits = caches.hits
    second = repo.commit(**{"content/b.md": article("B")})
    run = push(runner, first, second)
    assert run.outcome == "success"
    assert caches.hits > hits
    for step in ("Publish the pushed articles", "Keep the sweep's schedule alive"):
        assert "steadypress is installed already" in run.jobs["publish"].step(step).output
    saved = len(caches.saved)
    package = repo.root / "scripts/steadypress/__init__.py"
    changed = package.read_text() + "# a change to the tool\n"
    third = repo.commit(
        **{"scripts/steadypress/__init__.py": changed, "content/c.md": article("C")}
    )
    assert push(runner, second, third).outcome == "success"
    assert len(caches.saved) == saved + 1, "changed sources are built and cached anew"


def test_a_blog_set_up_by_init_publishes_its_pushes_and_sweeps_what_was_missed(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner, tmp_path: Path
) -> None:
    """`steadypress init --content posts` on a blog whose branch is `master`: the workflows it
    writes, run as written, publish the posts the blog had when the push of init's files comes
    (that push's run, not the first sweep), then a pushed post, and their sweep publishes one
    never pushed."""
    repo.git("checkout", "-q", "-b", "master")
    existing = repo.commit(**{"posts/old.md": article("Old")})
    result = run_cli(repo, "init", "--content", "posts", "--action", "./", "--force")
    assert result.code == 0, result.err
    start = repo.commit("steadypress init")
    written = repo.root / ".github" / "workflows"
    adopting = {"ref": "refs/heads/master", "before": existing, "after": start}
    run = runner.run(written / "steadypress-publish.yml", "push", adopting, sha=start,
                     ref="refs/heads/master")  # fmt: skip
    assert run.outcome == "success", run.jobs["publish"].steps
    assert "old/index.html" in pages(github)
    first = repo.commit(**{"posts/hello.md": article("Hello")})
    payload = {"ref": "refs/heads/master", "before": start, "after": first}
    run = runner.run(written / "steadypress-publish.yml", "push", payload, sha=first,
                     ref="refs/heads/master")  # fmt: skip
    assert run.outcome == "success", run.jobs["publish"].steps
    assert "hello/index.html" in pages(github)
    assert not runner.starts(WORKFLOWS / "publish.yml", "push", payload, ref="refs/heads/master")
    repo.commit(**{"posts/missed.md": article("Missed")})  # its push event never comes
    sweep = runner.run(written / "steadypress-sweep.yml", "schedule", {}, sha=repo.head(),
                       ref="refs/heads/master")  # fmt: skip
    assert sweep.outcome == "success", sweep.jobs["sweep"].steps
    assert "missed/index.html" in pages(github)
    # A project site (octo/blog, served at octo.github.io/blog/) with no address set: a crawl
    # of the Pages branch finds every link and the stylesheet under /blog/, and the sitemaps
    # valid and within the location rule.
    site = tmp_path / "gh-pages"
    subprocess.run(["git", "--git-dir", str(github.repository.path), "worktree", "add", "-q",
                    "--detach", str(site), "gh-pages"], check=True)  # fmt: skip
    for page in site.rglob("*.html"):
        links = re.findall(r'(?:href|src)="(/[^"]*)"', page.read_text(encoding="utf-8"))
        assert links and all(link.startswith("/blog/") for link in links), (page, links)
    assert 'href="/blog/style.css' in (site / "index.html").read_text()
    check_sitemaps(site, 3, url="https://octo.github.io/blog/")


def test_a_blog_made_by_init_in_an_empty_repository_publishes_and_holds_only_the_blog(
    tmp_path: Path, github: FakeGitHub, caches: RunnerCaches
) -> None:
    """`steadypress init` where there is nothing yet: a whole blog (a first article, a README,
    a .gitignore, the configuration and the workflows using the action at a pinned commit),
    none of the tool's own tree, and its first push publishes the article through the
    workflows as written, the runner fetching the action's repository."""
    action = tmp_path / "actions" / "acme" / "steadypress"
    copy_project(action)
    repo = Repo(tmp_path / "new-blog")
    result = run_cli(repo, "init", "--action", f"acme/steadypress@{'1' * 40}")
    assert result.code == 0, result.err
    start = repo.commit("a blog, made by steadypress init")
    runner = WorkflowRunner(
        origin=repo.root, api_url=github.api_url, graphql_url=github.graphql_url,
        repository=github.full_name, token=github.token, caches=caches,
        actions={"acme/steadypress": action},
    )  # fmt: skip
    files = set(repo.git("ls-files").split())
    assert files == {
        ".github/workflows/steadypress-check.yml", ".github/workflows/steadypress-publish.yml",
        ".github/workflows/steadypress-retry.yml", ".github/workflows/steadypress-sweep.yml",
        ".gitignore", "README.md", "content/hello-world.md", "steadypress.yml",
    }  # fmt: skip
    workflows = repo.root / ".github" / "workflows"
    payload = {"ref": "refs/heads/main", "before": "0" * 40, "after": start}
    run = runner.run(workflows / "steadypress-publish.yml", "push", payload, sha=start)
    assert run.outcome == "success", run.jobs["publish"].steps
    assert "hello-world/index.html" in pages(github)
    assert "Hello, world" in github.repository.text("show", "gh-pages:hello-world/index.html")


def pull_request(runner: WorkflowRunner, base: str, head: str) -> RunResult:
    payload = {"pull_request": {"base": {"sha": base}, "head": {"sha": head}, "number": 7}}
    return runner.run(WORKFLOWS / "check.yml", "pull_request", payload, sha=head,
                      ref="refs/pull/7/merge")  # fmt: skip


def test_a_pull_request_with_a_broken_article_fails_check_naming_the_file_and_line(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """check.yml on a pull request: a date that is no date fails it with an annotation on the
    file and line; the same pull request, fixed, passes; nothing is written anywhere."""
    base = repo.commit(**{"content/ok.md": article("OK")})
    broken = repo.commit(**{"content/new.md": "---\ntitle: New\ndate: 2024-13-45\n---\nText.\n"})
    run = pull_request(runner, base, broken)
    assert run.outcome == "failure"
    log = run.jobs["check"].step("Check what the pull request changes").output
    assert "::error file=content/new.md,line=" in log and "month must be in 1..12" in log
    assert "content/ok.md" not in log.split("::error")[-1], "only the changed article is checked"
    assert "1 problem(s)" in run.summary
    fixed = repo.commit(**{"content/new.md": article("New", date="2024-12-25")})
    assert pull_request(runner, base, fixed).outcome == "success"
    assert sum(github.requests.values()) == 0, "a check asks GitHub nothing"


def test_a_pull_request_that_breaks_only_the_theme_fails_check_at_the_template_line(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """check.yml on a pull request that edits the theme alone (the folder steadypress.yml names,
    which no path filter knows): the whole site is built, and a fault in the archive's template
    fails it with an annotation on that file and line; a misspelt key in steadypress.yml fails
    it with one on the key's line."""
    config = "targets:\n  site: {kind: site, theme: look}\n"
    base = repo.commit(**{"steadypress.yml": config, "content/a.md": article("A")})
    archive = "{% extends 'base.html' %}\n{% block main %}\n{{ years.first }}\n{% endblock %}\n"
    broken = repo.commit(**{"look/archive.html": archive})
    run = pull_request(runner, base, broken)
    assert run.outcome == "failure"
    log = run.jobs["check"].step("Check what the pull request changes").output
    assert "::error file=look/archive.html,line=3," in log
    assert "0 article(s) checked, the whole site built with the theme, 1 problem(s)" in run.summary
    misspelt = repo.commit(**{"steadypress.yml": "targets:\n  site: {kind: site, them: look}\n"})
    run = pull_request(runner, base, misspelt)
    assert run.outcome == "failure"
    log = run.jobs["check"].step("Check what the pull request changes").output
    assert "::error file=steadypress.yml,line=2," in log and "'targets.site.them'" in log
    assert sum(github.requests.values()) == 0, "a check asks GitHub nothing"


IMAGE = b"\x89PNG\r\n\x1a\n a picture"
MISSING_IMAGE = "---\ntitle: Post\n---\n\n![a picture](images/x.png)\n"


def test_committing_only_the_missing_image_publishes_the_article_and_closes_its_issue(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """Dead for a missing image: one issue. A push that commits only the image: that push's
    run retries the article by itself, publishes it and closes the issue with its URL."""
    start = repo.commit(**{"steadypress.yml": FAST})
    before = repo.commit(**{"content/post.md": MISSING_IMAGE})
    assert push(runner, start, before).outcome == "success", "a dead letter is not a crash"
    (issue,) = github.tracker.issues
    assert issue["state"] == "open" and "content/images/x.png" in issue["body"]
    repo.write("content/images/x.png", IMAGE)
    after = repo.commit("add the image")
    run = push(runner, before, after)
    assert run.outcome == "success", run.jobs["publish"].steps
    assert "post/index.html" in pages(github) and not remote(github).dead
    assert len(github.tracker.issues) == 1
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert "/post/" in github.tracker.comments[issue["number"]][-1]


def test_a_broken_theme_opens_one_summary_issue_and_fixing_it_publishes_all(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """A theme template broken so that 50 articles fail: one summary issue, not 50. The theme
    fixed in a commit alone: that push's run publishes all 50 and closes the issue."""
    broken = "{% extends 'base.html' %}{% block main %}{{ article.titel }}{% endblock %}\n"
    fixed = "{% extends 'base.html' %}{% block main %}{{ article.title }}{% endblock %}\n"
    config = FAST + "targets:\n  site: {kind: site, theme: theme}\n"
    start = repo.commit(**{"steadypress.yml": config, "theme/article.html": broken})
    articles = {f"content/{n:02}.md": article(f"Article {n}") for n in range(50)}
    after = repo.commit(**articles)
    assert push(runner, start, after).outcome == "success"
    assert len(remote(github).dead) == 50
    (issue,) = github.tracker.issues
    assert issue["title"].startswith("Dead letters: 50 articles failed: theme template")
    mended = repo.commit(**{"theme/article.html": fixed})
    assert push(runner, after, mended).outcome == "success"
    ledger = remote(github)
    assert not ledger.dead and len(ledger.published) == 50
    assert len(github.tracker.issues) == 1
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")


def test_two_failing_targets_share_one_issue_which_outlives_a_removed_target(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """The site misses an image and the webhook is unreachable: one issue naming both. The
    hook is removed from steadypress.yml: the sweep withdraws its item, and the issue, still
    about the site, stays open; the image committed, the push publishes and closes it."""
    runner.secrets["WEBHOOK_SECRET"] = "a secret for the hook"
    site = FAST.replace("max_attempts: 2", "max_attempts: 1") + "targets:\n  site: {kind: site}\n"
    hook = "  hook: {kind: webhook, url: 'http://127.0.0.1:9/'}\n"
    start = repo.commit(**{"steadypress.yml": site + hook})
    before = repo.commit(**{"content/post.md": MISSING_IMAGE})
    assert push(runner, start, before).outcome == "success"
    (issue,) = github.tracker.issues
    assert issue["title"] == "Dead letter: content/post.md on hook, site"
    assert "## Target `hook`" in issue["body"] and "## Target `site`" in issue["body"]
    middle = repo.commit(**{"steadypress.yml": site})
    assert push(runner, before, middle).outcome == "success"
    assert sweep(runner, repo).outcome == "success"
    assert set(remote(github).dead) == {"site:content/post.md"}
    assert issue["state"] == "open" and issue["title"] == "Dead letter: content/post.md on site"
    repo.write("content/images/x.png", IMAGE)
    after = repo.commit("add the image")
    assert push(runner, middle, after).outcome == "success"
    assert (issue["state"], issue["state_reason"]) == ("closed", "completed")
    assert len(github.tracker.issues) == 1


def test_with_a_github_app_configured_the_publish_run_acts_as_the_app(
    repo: Repo, github: FakeGitHub, runner: WorkflowRunner
) -> None:
    """The variable STEADYPRESS_APP_ID and the secret STEADYPRESS_APP_PRIVATE_KEY: the publish
    run trades the app's JWT for an installation token and publishes with it."""
    private, public = key_pair()
    github.app = FakeApp(app_id=4242, public_key_pem=public)
    runner.variables["STEADYPRESS_APP_ID"] = "4242"
    runner.secrets["STEADYPRESS_APP_PRIVATE_KEY"] = private
    before = repo.commit(**{"steadypress.yml": FAST})
    after = repo.commit(**{"content/hello.md": article("Hello")})
    with github.counting() as calls:
        run = push(runner, before, after)
    assert run.outcome == "success", run.jobs["publish"].steps
    assert "hello/index.html" in pages(github)
    # Two steps talk to GitHub (the drain and the schedule check), each as the app.
    assert calls["POST /app/installations/{installation_id}/access_tokens"] == 2


def test_a_dispatch_s_paths_are_read_on_every_line(repo: Repo, runner: WorkflowRunner) -> None:
    """Paths pasted one a line are all read: the second line's path outside content/ is
    refused by name (it once was never read)."""
    repo.commit(**{"content/a.md": article("A")})
    run = sweep(runner, repo, retry="content/a.md\n../etc/passwd")
    step = run.jobs["sweep"].step("Retry by hand")
    assert step.outcome == "failure"
    assert "../etc/passwd: not an article path" in step.output


def test_a_version_tag_builds_checks_and_publishes_the_release_up_to_the_upload(
    tmp_path: Path, github: FakeGitHub, caches: RunnerCaches, monkeypatch: pytest.MonkeyPatch
) -> None:
    """release.yml on a tag of the tool's own version, run as written: the tag and the
    changelog checked, the wheel and sdist built and checked by twine, the GitHub release
    made of them with the changelog's section (a recording `gh` stands in for GitHub's CLI)
    and the same files handed to PyPI's trusted publishing (the harness's stand-in records
    them). A tag naming another version stops before anything is built."""
    origin = tmp_path / "steadypress"
    subprocess.run(["git", "clone", "-q", str(PROJECT), str(origin)], check=True)
    head = subprocess.run(["git", "-C", str(origin), "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    tools = tmp_path / "tools"
    tools.mkdir()
    calls = tmp_path / "gh-calls"
    (tools / "gh").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> {calls}\ncat notes.md >> {calls}\n'
    )
    (tools / "gh").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    runner = WorkflowRunner(
        origin=origin, api_url=github.api_url, graphql_url=github.graphql_url,
        repository=github.full_name, token=github.token, caches=caches,
    )  # fmt: skip

    def release(tag: str) -> RunResult:
        payload = {"ref": f"refs/tags/{tag}", "before": "0" * 40, "after": head}
        return runner.run(WORKFLOWS / "release.yml", "push", payload, sha=head,
                          ref=f"refs/tags/{tag}")  # fmt: skip

    wrong = release("v9.9.9")
    assert wrong.outcome == "failure" and not calls.exists() and runner.uploads == []

    run = release(f"v{__version__}")
    assert run.outcome == "success", run.jobs["release"].steps
    archives = [f"steadypress-{__version__}-py3-none-any.whl", f"steadypress-{__version__}.tar.gz"]
    assert runner.uploads == [sorted(archives)]
    said = calls.read_text()
    assert said.startswith(f"release create v{__version__} dist/") and "--verify-tag" in said
    assert all(f"dist/{name}" in said for name in archives)
    assert "### Added" in said, "the changelog's section for the version, as the notes"
