"""What a dead letter says, whatever channel carries it: the article, the target, every attempt
with its error, and how to retry."""

from __future__ import annotations

from steadypress.alerts.base import marker_for
from steadypress.ledger import DeadItem, PublishedRecord
from steadypress.timefmt import format_time

__all__ = ["letter_body", "letter_title", "resolution_text"]


def letter_title(item: DeadItem) -> str:
    return f"Dead letter: {item.path} on {item.target}"


def letter_body(item: DeadItem, *, how_to_retry: str, run_url: str | None = None) -> str:
    why = "a permanent error" if item.permanent else f"{item.attempts} failed attempts"
    attempts = "\n".join(f"- {format_time(a.at)}: {a.error}" for a in item.history)
    run = f" The last attempt ran in {run_url}." if run_url else ""
    work = (
        f"Unpublishing `{item.path}` (removed from content/ by commit `{item.commit}`) from"
        if item.unpublishes
        else f"Publishing `{item.path}` (blob `{item.blob}`, commit `{item.commit}`) to"
    )
    return (
        f"{marker_for(item.key)}\n\n"
        f"{work} `{item.target}` "
        f"stopped after {why}, on {format_time(item.died_at)}.{run}\n\n"
        f"## Attempts\n\n{attempts}\n\n"
        f"## Retry\n\n{how_to_retry}\n"
    )


def resolution_text(key: str, record: PublishedRecord) -> str:
    """Why the alert is over: the work it was about is done (or made moot by a removal)."""
    if record.unpublished:
        return f"`{key}` was unpublished on {record.published_at}: the article left content/."
    where = f" at {record.url}" if record.url else ""
    return f"`{key}` was published{where} on {record.published_at}."
