"""Live mode: an optional accelerator that polls and publishes as soon as work appears.

Nothing depends on it. It takes what any executor may take (pending, due, unleased) without the
sweeper's grace period. Each poll asks the `Watch` for the heads of the content and state
branches, and works only when one of them moved or an item it knows of fell due: an idle poll
reads nothing else (on GitHub, two conditional requests answered 304). It sleeps until the next
poll, or sooner when a known item falls due.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from steadypress.config import CONFIG_FILE
from steadypress.errors import GitHubUnreachable, RateLimited
from steadypress.executor import drain
from steadypress.pipeline import Pipeline
from steadypress.planning import reconcile
from steadypress.report import Report
from steadypress.transitions import next_wake
from steadypress.watch import Watch

__all__ = ["live"]


def live(
    pipeline: Pipeline,
    report: Report,
    *,
    watch: Watch,
    interval: float,
    ticks: int | None,
    stop: threading.Event,
    rebuild: Callable[[], Pipeline] | None = None,
) -> Pipeline:
    """Poll every `interval` seconds (or sooner when an item falls due; never sooner than the
    server asks) until `stop` is set or `ticks` polls have run. A content head whose
    configuration is not the one `pipeline` was built with is worked on by the pipeline
    `rebuild` makes (it reads the configuration again): the settings and the targets it names
    are the pushed ones, as a run started then would have them. Returns the pipeline last
    worked with."""
    acted_on: str | None = None  # the content head last reconciled
    configured = _configuration(pipeline, pipeline.content.head())
    done = 0
    while not stop.is_set() and (ticks is None or done < ticks):
        try:
            pipeline, acted_on, configured, wait = _tick(
                pipeline, report, watch=watch, interval=interval, first=done == 0,
                acted_on=acted_on, configured=configured, rebuild=rebuild,
            )  # fmt: skip
        except (GitHubUnreachable, RateLimited) as weather:
            # Only an accelerator: a network that fails now is tried again, not a reason to die.
            pipeline.log(f"live: {weather}; polling again in {interval:g} s")
            wait = interval
        done += 1
        if ticks is None or done < ticks:
            pipeline.clock.sleep(wait, interrupt=stop)
    return pipeline


def _tick(
    pipeline: Pipeline,
    report: Report,
    *,
    watch: Watch,
    interval: float,
    first: bool,
    acted_on: str | None,
    configured: str,
    rebuild: Callable[[], Pipeline] | None,
) -> tuple[Pipeline, str | None, str, float]:
    """One poll, and the work it finds; returns the pipeline, the content head acted on, the
    configuration worked with, and the seconds to wait before the next poll."""
    heads = watch.heads()
    known = pipeline.store.last_known()
    now = pipeline.clock.now()
    wake = next_wake(known.ledger, now=now) if known is not None else None
    content_moved = first or heads.content != acted_on
    state_moved = known is None or heads.state != known.version
    if content_moved and rebuild is not None and heads.content is not None:
        pushed = _configuration(pipeline, heads.content)
        if pushed != configured:
            pipeline.log(f"{CONFIG_FILE} changed at {heads.content[:12]}: working with it")
            rebuilt = rebuild()
            rebuilt.unfinished.extend(pipeline.unfinished)
            pipeline, configured = rebuilt, pushed
    if content_moved or state_moved or (wake is not None and wake <= now):
        drain(pipeline, report, prepare=reconcile(pipeline) if content_moved else None)
        acted_on = heads.content
        known = pipeline.store.last_known()
        now = pipeline.clock.now()
        wake = next_wake(known.ledger, now=now) if known is not None else None
    wait = interval if wake is None else min(interval, max(0.0, (wake - now).total_seconds()))
    return pipeline, acted_on, configured, max(wait, heads.poll_interval or 0.0)


def _configuration(pipeline: Pipeline, commit: str) -> str:
    """The blob id of the configuration at `commit` (git's null id where there is none)."""
    return pipeline.content.versions(commit, [CONFIG_FILE])[CONFIG_FILE]
