"""Wiring the Pipeline on GitHub.

The content still comes from the checkout (articles are read from the pushed commit), while the
ledger, the site and the dead letters live in the repository on GitHub, reached through
GITHUB_API_URL / GITHUB_GRAPHQL_URL (so GitHub Enterprise and the test fake work unchanged),
as the job's token or an App's installation (`github/auth.py`).
"""

from __future__ import annotations

from pathlib import Path

from steadypress.config import Config
from steadypress.content import ContentSource
from steadypress.credentials import Secrets
from steadypress.github.auth import github_client_from
from steadypress.github.branch import GitHubBranch
from steadypress.github.issues import GitHubIssues
from steadypress.github.pages import BranchSiteFiles, pages_url
from steadypress.github.readahead import ReadAhead
from steadypress.github.store import GitHubStore
from steadypress.github.watch import GitHubWatch
from steadypress.gitio import Git
from steadypress.pipeline import Pipeline
from steadypress.runcontext import RunContext
from steadypress.targets.context import TargetContext
from steadypress.targets.registry import build_targets
from steadypress.worklease import WorkLease

__all__ = ["github_pipeline"]


def github_pipeline(repo: Path, config: Config, run: RunContext) -> Pipeline:
    environ, clock = run.environ, run.clock
    secrets = Secrets(environ, run.redact)
    client, repository = github_client_from(environ, clock=clock, secrets=secrets)
    run_url = None
    if environ.get("GITHUB_SERVER_URL") and environ.get("GITHUB_RUN_ID"):
        run_url = (
            f"{environ['GITHUB_SERVER_URL']}/{repository}/actions/runs/{environ['GITHUB_RUN_ID']}"
        )
    content = ContentSource(
        Git(repo), config.content_dir, revision=run.content_revision, pages=config.pages
    )
    # The state's commits carry the reads the site asks ahead (a claim, the site's first read).
    read_ahead = ReadAhead()
    lease = WorkLease(clock=run.clock, ttl=config.timings.lease)
    context = TargetContext(
        lease=lease,
        source=config.source,
        content=content,
        clock=clock,
        secrets=secrets,
        site_files=lambda settings: BranchSiteFiles(
            GitHubBranch(
                client, repository=repository, branch=settings.branch, read_ahead=read_ahead
            ),
            clock=clock,
        ),
        default_site_url=pages_url(repository),
        raw_base=f"https://raw.githubusercontent.com/{repository}",
    )
    watch = None
    if run.content_branch is not None:
        watch = GitHubWatch(client, Git(repo), repository=repository,
                            content=run.content_branch, state=config.state_branch)  # fmt: skip
    return Pipeline(
        config=config,
        store=GitHubStore(
            client, repository=repository, branch=config.state_branch, read_ahead=read_ahead
        ),
        watch=watch,
        content=content,
        targets=build_targets(config.targets, context),
        alerts=GitHubIssues(
            client,
            repository=repository,
            run_url=run_url,
            server_url=environ.get("GITHUB_SERVER_URL") or "https://github.com",
        ),
        holder=run.holder,
        clock=run.clock,
        stopping=run.stopping,
        lease=lease,
        redact=run.redact,
        stats=run.stats,
    )
