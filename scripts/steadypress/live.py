"""Live mode: an optional accelerator that polls and publishes as soon as work appears.

Nothing depends on it. It takes what any executor may take (pending, due, unleased) without the
sweeper's grace period, and it sleeps until the next item becomes due or the next poll.
"""

from __future__ import annotations

import threading

from steadypress.executor import drain
from steadypress.ledger import next_wake
from steadypress.pipeline import Pipeline
from steadypress.planning import reconcile
from steadypress.report import Report

__all__ = ["live"]


def live(
    pipeline: Pipeline,
    report: Report,
    *,
    interval: float,
    ticks: int | None,
    stop: threading.Event,
) -> Report:
    """Poll every `interval` seconds (or sooner when an item falls due) until `stop` is set or
    `ticks` polls have run."""
    seen_head: str | None = None
    done = 0
    while not stop.is_set() and (ticks is None or done < ticks):
        head = pipeline.content.head()
        drain(pipeline, report, prepare=reconcile(pipeline) if head != seen_head else None)
        seen_head = head
        done += 1
        now = pipeline.clock.now()
        wake = next_wake(pipeline.store.load().ledger, now=now)
        wait = interval if wake is None else min(interval, max(0.0, (wake - now).total_seconds()))
        if ticks is None or done < ticks:
            pipeline.clock.sleep(wait, interrupt=stop)
    return report
