"""The sweeper: insurance, not a task list. It reconciles content/ against the ledger, takes stale
and due work with no hand-over protocol, and re-opens dead letters that could not be opened.

No executor's name is consulted: an item is taken when it is pending, older than the grace
period, due and not under a live lease, whoever last held it.
"""

from __future__ import annotations

from datetime import timedelta

from steadypress.alerts.lifecycle import raise_alerts, withdraw_alerts
from steadypress.executor import drain
from steadypress.ledger import DeadItem, PendingItem
from steadypress.pipeline import Pipeline
from steadypress.planning import reconcile
from steadypress.report import Report
from steadypress.transitions import retire

__all__ = ["sweep"]


def sweep(pipeline: Pipeline, report: Report, *, grace: timedelta) -> Report:
    """Reconcile, take stale and due work, then re-open dead letters that have no alert yet."""
    drain(pipeline, report, grace=grace, prepare=reconcile(pipeline), just_read=True)
    # An item that died within the grace period may still get its alert from the executor it
    # died in; opening it here too would race that executor. The drain's last read or write is
    # recent enough for that: an alert missed now is opened by the next sweep.
    settled = pipeline.clock.now() - grace
    known = pipeline.store.last_known() or pipeline.store.load()
    dead = known.ledger.dead.values()
    orphans = [item for item in dead if item.alert is None and item.died_at <= settled]
    if orphans:
        pipeline.log(f"opening {len(orphans)} dead letter(s) that could not be opened before")
        raise_alerts(pipeline, orphans)
    everything: list[DeadItem | PendingItem] = [*dead, *known.ledger.pending.values()]
    _retire_unconfigured(
        pipeline, [item.key for item in everything if item.target not in pipeline.targets]
    )
    return report


def _retire_unconfigured(pipeline: Pipeline, keys: list[str]) -> None:
    """Items of a target removed from the configuration, dead or pending: no executor will
    ever take them, so they leave the ledger and their letters are closed as withdrawn."""
    if not keys:
        return
    retired = pipeline.transact(
        lambda ledger: retire(ledger, keys, now=pipeline.clock.now()),
        message=f"steadypress: retire work of removed targets ({pipeline.holder})",
    )
    for item in retired:
        pipeline.log(f"withdrew {item.key}: target {item.target!r} is no longer configured")
    withdraw_alerts(
        pipeline,
        {
            item.alert: f"the target `{item.target}` is no longer in the configuration"
            for item in retired
            if item.alert is not None
        },
    )
