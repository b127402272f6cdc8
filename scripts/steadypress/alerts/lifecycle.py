"""An alert's life beside its dead item: opened after the item is recorded dead, its number
recorded once, resolved when the work is done. The ledger always comes first: an alert that
cannot be opened now is opened by a later sweep."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from steadypress.ledger import DeadItem, Ledger, Resolution, record_alert

if TYPE_CHECKING:
    from steadypress.pipeline import Pipeline

__all__ = ["raise_alerts", "resolve_alert"]


def resolve_alert(pipeline: Pipeline, resolution: Resolution) -> None:
    try:
        pipeline.alerts.resolve(resolution.alert, resolution.key, resolution.record)
    except Exception as error:  # the publication stands; a stale alert is only noise
        pipeline.log(
            f"could not close dead letter #{resolution.alert} of {resolution.key}: {error}"
        )


def raise_alerts(pipeline: Pipeline, items: list[DeadItem]) -> list[DeadItem]:
    """Open an alert per dead item, then record the alert numbers in one transaction; returns
    the items with the numbers they now have.

    The ledger already holds the dead item, so an alert that cannot be opened now is not lost:
    the item keeps `issue: null` and every sweep tries again.
    """
    opened: dict[str, int] = {}
    for item in items:
        try:
            opened[item.key] = pipeline.alerts.open(item)
        except Exception as error:  # any channel failure: the sweeper opens it later
            pipeline.log(
                f"could not open a dead letter for {item.key} (the sweeper will retry): {error}"
            )
    if not opened:
        return items

    def remember(ledger: Ledger) -> tuple[Ledger, dict[str, int | None]]:
        for key, alert in opened.items():
            ledger = record_alert(ledger, key, alert)
        recorded = {key: ledger.dead[key].alert if key in ledger.dead else None for key in opened}
        return ledger, recorded

    recorded = pipeline.transact(
        remember,
        message="steadypress: record dead letters",
    )
    for key, alert in opened.items():
        winner = recorded[key]
        if winner is not None and winner != alert:
            pipeline.log(f"dead letter #{alert} of {key} duplicates #{winner}; retiring it")
            pipeline.alerts.discard(alert, duplicate_of=winner)
    return [replace(item, alert=recorded.get(item.key) or item.alert) for item in items]
