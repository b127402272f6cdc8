"""Wiring: the Pipeline on the embedded default (a local repository); the GitHub backend's
wiring is `github/backend.py`, imported only when a command runs on GitHub."""

from __future__ import annotations

from pathlib import Path

from steadypress.config import Config
from steadypress.content import ContentSource
from steadypress.credentials import Secrets
from steadypress.gitio import Git
from steadypress.localstate import local_state
from steadypress.pipeline import Pipeline
from steadypress.runcontext import RunContext
from steadypress.targets.context import TargetContext
from steadypress.targets.registry import build_targets
from steadypress.targets.site.files import DirectorySiteFiles
from steadypress.watch import LocalWatch
from steadypress.worklease import WorkLease

__all__ = ["local_pipeline"]

LOCAL_SITE_URL = "http://localhost:8000/"


def local_pipeline(repo: Path, config: Config, run: RunContext) -> Pipeline:
    content = ContentSource(
        Git(repo), config.content_dir, revision=run.content_revision, pages=config.pages
    )
    lease = WorkLease(clock=run.clock, ttl=config.timings.lease)
    context = TargetContext(
        lease=lease,
        source=config.source,
        content=content,
        clock=run.clock,
        secrets=Secrets(run.environ, run.redact),
        site_files=lambda settings: DirectorySiteFiles(repo / settings.dir),
        default_site_url=LOCAL_SITE_URL,
    )
    store, alerts = local_state(repo, config)
    return Pipeline(
        config=config,
        store=store,
        watch=LocalWatch(Git(repo), content, state_branch=config.state_branch),
        content=content,
        targets=build_targets(config.targets, context),
        alerts=alerts,
        holder=run.holder,
        clock=run.clock,
        stopping=run.stopping,
        lease=lease,
        redact=run.redact,
        stats=run.stats,
    )
