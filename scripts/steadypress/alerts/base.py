"""The dead-letter channel protocol and the hidden marker that ties an alert to its item.

The ledger is written first and the alert second: an alert is a view of a dead item, found again
by the marker in its text, so opening one twice (a retried create, two racing executors) finds
the first instead of making a second.
"""

from __future__ import annotations

import json
import re
from typing import Protocol

from steadypress.ledger import DeadItem, PublishedRecord

__all__ = ["AlertChannel", "find_marker", "marker_for"]

_MARKER = re.compile(r"<!-- steadypress:dead-letter (\{.*?\}) -->")


def marker_for(key: str) -> str:
    # JSON keeps any path intact; escaping '>' keeps a path containing "-->" inside the comment.
    payload = json.dumps({"key": key}).replace(">", "\\u003e")
    return f"<!-- steadypress:dead-letter {payload} -->"


def find_marker(text: str) -> str | None:
    """The item key named by the marker in `text`, if any."""
    match = _MARKER.search(text)
    if match is None:
        return None
    try:
        key = json.loads(match.group(1)).get("key")
    except (ValueError, AttributeError):
        return None
    return key if isinstance(key, str) else None


class AlertChannel(Protocol):
    def open(self, item: DeadItem) -> int:
        """Open (or reopen, or find) the alert for `item`; returns its number."""
        ...

    def resolve(self, alert: int, key: str, record: PublishedRecord) -> None:
        """Mark the alert as resolved by a successful publication."""
        ...

    def discard(self, alert: int, *, duplicate_of: int) -> None:
        """Retire an alert opened in a race that another executor's alert won."""
        ...

    def withdraw(self, alert: int, *, reason: str) -> None:
        """Close an alert whose work will never be done, saying why."""
        ...

    def acknowledge_retry(self, alert: int) -> None:
        """The retry asked for on this alert is recorded: withdraw the request (the label)."""
        ...

    def where(self, alert: int) -> str:
        """Where a person finds the alert: an issue's address, a file's path."""
        ...

    def retry_hint(self, item: DeadItem) -> str:
        """The one thing a person does to retry the item once its cause is fixed."""
        ...

    def key_of(self, alert: int) -> str | None:
        """The item an alert is about, read from its marker; None if there is no such alert."""
        ...
