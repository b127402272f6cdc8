"""Wiring: the same Pipeline on the embedded default (a local repository) or on GitHub.

On GitHub the content still comes from the checkout (articles are read from the pushed commit),
while the ledger, the site and the dead letters live in the repository on GitHub, reached with
the workflow's token through GITHUB_API_URL / GITHUB_GRAPHQL_URL (so GitHub Enterprise and the
test fake work unchanged).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from steadypress.alerts import LocalDeadLetters
from steadypress.config import Config, TargetConfig
from steadypress.content import ContentSource
from steadypress.errors import ConfigError
from steadypress.executor import Pipeline
from steadypress.github.client import GitHubClient
from steadypress.github.issues import GitHubIssues
from steadypress.github.pages import build_pages_target
from steadypress.github.store import GitHubStore
from steadypress.gitio import Git
from steadypress.store.localgit import LocalGitStore
from steadypress.targets import Target, build_targets, devto, webhook

__all__ = ["default_backend", "github_client_from", "github_pipeline", "local_pipeline"]

_GITHUB_TARGETS: dict[str, Callable[[TargetConfig, Config, GitHubClient, str, Path], Target]] = {
    "site": build_pages_target,
    # A webhook or dev.to is the same wherever the ledger lives.
    "webhook": lambda spec, config, _client, _repository, repo: webhook.build_local(
        spec, config, repo
    ),
    "devto": lambda spec, config, _client, _repository, repo: devto.build_local(spec, config, repo),
}


def default_backend(environ: Mapping[str, str]) -> str:
    return "github" if environ.get("GITHUB_ACTIONS") == "true" else "local"


def local_pipeline(repo: Path, config: Config, *, holder: str) -> Pipeline:
    git = Git(repo)
    return Pipeline(
        config=config,
        store=LocalGitStore(repo, config.state_branch),
        content=ContentSource(git, config.content_dir),
        targets=build_targets(config, repo=repo),
        alerts=LocalDeadLetters(repo / config.dead_letter_dir),
        holder=holder,
    )


def _required(environ: Mapping[str, str], name: str, why: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise ConfigError(name, f"not set: {why}")
    return value


def github_client_from(environ: Mapping[str, str]) -> tuple[GitHubClient, str]:
    """The API client and OWNER/NAME, from the environment GitHub Actions provides."""
    repository = _required(environ, "GITHUB_REPOSITORY", "the GitHub backend needs OWNER/NAME")
    token = _required(
        environ, "GITHUB_TOKEN",
        "the GitHub backend needs a token with contents: write and issues: write",
    )  # fmt: skip
    api_url = environ.get("GITHUB_API_URL") or "https://api.github.com"
    graphql_url = environ.get("GITHUB_GRAPHQL_URL") or f"{api_url}/graphql"
    return GitHubClient(token=token, api_url=api_url, graphql_url=graphql_url), repository


def github_pipeline(
    repo: Path, config: Config, *, holder: str, environ: Mapping[str, str] = os.environ
) -> Pipeline:
    client, repository = github_client_from(environ)
    run_url = None
    if environ.get("GITHUB_SERVER_URL") and environ.get("GITHUB_RUN_ID"):
        run_url = (
            f"{environ['GITHUB_SERVER_URL']}/{repository}/actions/runs/{environ['GITHUB_RUN_ID']}"
        )
    return Pipeline(
        config=config,
        store=GitHubStore(client, repository=repository, branch=config.state_branch),
        content=ContentSource(Git(repo), config.content_dir),
        targets={
            name: _GITHUB_TARGETS[spec.kind](spec, config, client, repository, repo)
            for name, spec in config.targets.items()
        },
        alerts=GitHubIssues(client, repository=repository, run_url=run_url),
        holder=holder,
    )
