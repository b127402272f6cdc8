"""The dead-letter channel protocol.

The ledger is written first and the alert second: an alert is a view of dead items, found again
by the marker in its text (`marker.py`), so posting one twice (a retried create, two racing
executors) finds the first instead of making a second.
"""

from __future__ import annotations

from typing import Protocol

from steadypress.alerts.letter import Letter
from steadypress.alerts.marker import Identity, find_marker, identity_key, marker_for
from steadypress.ledger import DeadItem

__all__ = ["AlertChannel", "Identity", "find_marker", "identity_key", "marker_for"]


class AlertChannel(Protocol):
    def open(self, letter: Letter, number: int | None = None) -> int:
        """Post `letter`: as alert `number` (updated, reopened) when given, else as the alert
        its marker finds, else as a new one. Returns the alert's number."""
        ...

    def close(self, alert: int, *, text: str, completed: bool) -> None:
        """Close the alert saying why: its work is done (`completed`), or it never will be
        (withdrawn, a duplicate). Closing a closed alert leaves it as it is."""
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

    def article_of(self, alert: int) -> str | None:
        """The article an alert is about, read from its marker; None when there is no such
        alert or it is a summary (whose items the ledger knows by their alert number)."""
        ...
