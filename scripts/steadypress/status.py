"""`steadypress status`: what is stuck, why, and what to do about it, one line per item."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from steadypress.alerts import AlertChannel
from steadypress.codec import ledger_document
from steadypress.ledger import Ledger
from steadypress.timefmt import format_time

__all__ = ["STATUS_FORMAT", "describe", "status_document"]

# The version of `status --json`'s document (state/schema/status.schema.json).
STATUS_FORMAT = 1


def status_document(version: str | None, ledger: Ledger) -> dict[str, Any]:
    return {"format": STATUS_FORMAT, "state_version": version, **ledger_document(ledger)}


def one_line(text: str) -> str:
    """An error on one line: a YAML error's lines joined, its blank padding dropped."""
    return " / ".join(line.strip() for line in text.splitlines() if line.strip())


def describe(ledger: Ledger, *, now: datetime, where: str, alerts: AlertChannel) -> str:
    # Counted beside the records, so that none is read (a state of an earlier version: all).
    published, unpublished = ledger.published.counted()
    lines = [
        where,
        f"published: {published}" + (f" (and {unpublished} unpublished)" if unpublished else ""),
    ]
    scheduled = {
        key: item
        for key, item in ledger.pending.items()
        if item.not_before is not None and item.not_before > now
    }
    waiting = {key: item for key, item in ledger.pending.items() if key not in scheduled}
    lines.append(f"pending: {len(waiting)}")
    for key, item in sorted(waiting.items()):
        notes = ["to unpublish"] if item.unpublishes else []
        if item.attempts:
            notes.append(f"{item.attempts} failed attempt(s)")
        if item.lapses:
            alone = ", so it is claimed alone" if item.claimed_with_at_most == 1 else ""
            notes.append(f"the run holding it stopped {item.lapses} time(s){alone}")
        if item.next_attempt_at and item.next_attempt_at > now:
            notes.append(f"next attempt at {format_time(item.next_attempt_at)}")
        if item.lease and item.lease.is_live(now):
            notes.append(
                f"leased by {item.lease.holder} until {format_time(item.lease.expires_at)}"
            )
        elif item.lease:
            notes.append(f"expired lease of {item.lease.holder} (anyone may take it)")
        if item.last_error:
            notes.append(f"last error: {one_line(item.last_error)}")
        lines.append(f"  {key}: {'; '.join(notes) or 'due now'}")
    marker = ledger.reconciled
    if marker is not None and marker.backlog is not None:
        since = marker.backlog.since
        changed = f"changed since {since[:12]} " if since else ""
        order = "newest first" if marker.backlog.newest_first else "in path order"
        again = ", ".join(marker.backlog.restyle)
        lines.append(
            f"  and not enqueued yet: the articles {changed}at {marker.commit[:12]} after "
            f"{marker.backlog.after}, {order}"
            + (f", to publish again to {again} (its look changed)" if again else "")
            + " (a large import enters the ledger a window at a time; every drain and sweep "
            "enqueues the next)"
        )
    lines.append(f"scheduled: {len(scheduled)}")
    for key, item in sorted(scheduled.items()):
        assert item.not_before is not None  # noqa: S101 - selected for having one
        lines.append(f"  {key}: publishes at {format_time(item.not_before)}")
    lines.append(f"dead: {len(ledger.dead)}")
    for key, dead in sorted(ledger.dead.items()):
        lines.append(f"  {key}: {one_line(dead.last_error)}")
        shown = ledger.published.get(key)
        if shown is not None and not shown.unpublished and not dead.unpublishes:
            lines.append(
                f"    the target still shows an older version ({shown.url or shown.blob[:12]})"
            )
        alert = alerts.where(dead.alert) if dead.alert else "no alert yet (the next sweep opens it)"
        lines.append(f"    alert: {alert}; retry: {alerts.retry_hint(dead)}")
    return "\n".join(lines)
