"""No secret leaves the process: every secret set to a value that must never be seen again,
every fault the fakes can inject on the GitHub backend, and then every place a run writes text
is searched for it: stdout, stderr, the job summary, both branches, every issue and comment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.bluesky import FakeBluesky
from tests.fakes.devto import FakeForem
from tests.fakes.github import FakeGitHub, Fault
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.mastodon import FakeMastodon
from tests.fakes.webhook import WebhookReceiver
from tests.helpers import Repo, article, run_cli

WEBHOOK_SECRET = "webhook-secret-marker-7d1e"


@pytest.fixture
def world(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, forem: FakeForem
) -> Iterator[tuple[FakeGitHub, FakeForem, WebhookReceiver, Path]]:
    summary = tmp_path / "summary.md"
    with FakeGitHub() as github, WebhookReceiver(WEBHOOK_SECRET) as hook:
        environment = {
            "GITHUB_REPOSITORY": github.full_name, "GITHUB_TOKEN": github.token,
            "GITHUB_API_URL": github.api_url, "GITHUB_GRAPHQL_URL": github.graphql_url,
            "GITHUB_STEP_SUMMARY": str(summary), "WEBHOOK_SECRET": WEBHOOK_SECRET,
        }  # fmt: skip
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        forem.echo_key_in_errors = True
        yield github, forem, hook, summary


def echo(github: FakeGitHub) -> dict[str, str]:
    """An error body that quotes the token back, as a careless proxy might."""
    return {"message": f"token {github.token} was refused"}


FAULTS = {
    "pages write forbidden": lambda gh: Fault(
        "graphql CreateCommit", status=403, body=echo(gh), branch="gh-pages", times=50
    ),
    "state read fails": lambda gh: Fault("graphql LoadBranch", status=500, body=echo(gh), times=50),
    "issue create refused": lambda gh: Fault(
        "POST /repos/{repo}/issues", status=422, body=echo(gh), times=50
    ),
    "bad credentials": lambda gh: Fault("graphql", status=401, body=echo(gh), times=50),
    "lost answers": lambda gh: Fault.lost_answer("graphql CreateCommit", times=3),
    "rate limited": lambda gh: Fault.secondary_rate_limit("graphql", retry_after=1, times=2),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_no_secret_is_written_anywhere_whatever_fails(
    repo: Repo,
    world: tuple[FakeGitHub, FakeForem, WebhookReceiver, Path],
    fault: str,
) -> None:
    github, forem, hook, summary = world
    config = (
        "max_attempts: 1\n"
        "targets:\n"
        "  site: {kind: site}\n"
        f"  devto: {{kind: devto, api_url: '{forem.api_url}'}}\n"
        f"  hook: {{kind: webhook, url: '{hook.url}'}}\n"
    )
    repo.commit(**{"steadypress.yml": config, "content/a.md": article("A")})
    forem.script = [(422, {})]  # dev.to refuses the article, quoting the key
    github.inject(FAULTS[fault](github))
    outputs = [run_cli(repo, command, "--backend", "github") for command in ("run", "sweep")]
    github.clear_faults()
    outputs += [run_cli(repo, command, "--backend", "github") for command in ("sweep", "status")]
    written = "".join(result.out + result.err for result in outputs)
    written += summary.read_text() if summary.exists() else ""
    written += github.repository.text("log", "-p", "--all")
    for issue in github.tracker.issues:
        written += f"{issue.get('title')}{issue.get('body')}"
    written += "".join("".join(comments) for comments in github.tracker.comments.values())
    for secret in (github.token, forem.api_key, WEBHOOK_SECRET):
        assert secret not in written, f"{fault}: a secret was written"
    assert "***" in written, "the echoed secrets were redacted, not silently dropped"


def test_no_platform_credential_is_written_when_the_platforms_quote_them(
    repo: Repo,
    mastodon: FakeMastodon,
    bluesky: FakeBluesky,
    hashnode: FakeHashnode,
    served: str,
) -> None:
    """Each platform refuses the article quoting the credential it was sent; Bluesky quotes
    the session's token, a secret steadypress never read from the environment."""
    mastodon.echo, hashnode.echo = mastodon.token, hashnode.token
    mastodon.script = [(422, {})]
    hashnode.script = [(400, {})]
    bluesky.echo_session = True
    config = (
        f"max_attempts: 1\ntargets:\n  site: {{kind: site, url: '{served}'}}\n"
        f"  toot: {{kind: mastodon, instance: '{mastodon.instance}'}}\n"
        f"  sky: {{kind: bluesky, handle: {bluesky.handle}, service: '{bluesky.service}'}}\n"
        f"  hn: {{kind: hashnode, publication_id: {hashnode.publication_id}, "
        f"api_url: '{hashnode.api_url}'}}\n"
    )
    repo.commit(**{"steadypress.yml": config, "content/a.md": article("A")})
    outputs = [run_cli(repo, command) for command in ("run", "sweep", "status")]
    written = "".join(result.out + result.err for result in outputs)
    written += repo.git("log", "-p", "--all")
    written += "".join(p.read_text() for p in (repo.root / ".steadypress").rglob("*.md"))
    assert {"toot:content/a.md", "sky:content/a.md", "hn:content/a.md"} <= set(repo.ledger().dead)
    assert bluesky.tokens, "a session was made"
    for secret in (mastodon.token, bluesky.password, hashnode.token, *bluesky.tokens):
        assert secret not in written
    assert written.count("***") >= 3, "the echoed secrets were redacted, not silently dropped"


ESCAPES = {
    "the globals of a function": "{{ cycler.__init__.__globals__.os.environ.WEBHOOK_SECRET }}",
    "a class's subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "a format string": "{{ '{0.__class__.__init__.__globals__}'.format(cycler) }}",
}


@pytest.mark.parametrize("escape", sorted(ESCAPES))
def test_a_theme_template_cannot_reach_the_process_it_renders_in(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, escape: str
) -> None:
    """The theme is the repository's, rendered by the process that holds the targets' secrets:
    a template that reaches for Python's internals fails (a template fault, named), and no
    secret reaches the site, the summary, or the output."""
    monkeypatch.setenv("WEBHOOK_SECRET", WEBHOOK_SECRET)
    page = f"{{% extends 'base.html' %}}{{% block main %}}{ESCAPES[escape]}{{% endblock %}}\n"
    repo.commit(
        **{"steadypress.yml": "targets:\n  site: {kind: site, theme: theme}\n",
           "content/a.md": article("A"), "theme/article.html": page}
    )  # fmt: skip
    outputs = [run_cli(repo, "run"), run_cli(repo, "check")]
    assert "site:content/a.md" in repo.ledger().dead
    assert "theme/article.html:1: " in outputs[1].out and "unsafe" in outputs[1].out
    written = "".join(result.out + result.err for result in outputs)
    written += "".join(p.read_text() for p in repo.root.rglob("*") if p.suffix in {".html", ".md"})
    assert WEBHOOK_SECRET not in written
