"""The dead-letter channel protocol and the hidden marker that ties an alert to what it is about.

The ledger is written first and the alert second: an alert is a view of dead items, found again
by the marker in its text, so posting one twice (a retried create, two racing executors) finds
the first instead of making a second. A marker names an article (`{"path": ...}`: the letter of
all its targets) or a cause (`{"cause": ...}`: the summary of many articles that died of it).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Protocol

from steadypress.ledger import DeadItem, split_key

if TYPE_CHECKING:
    from steadypress.alerts.letter import Letter

__all__ = ["AlertChannel", "Identity", "find_marker", "identity_key", "marker_for"]

Identity = dict[str, str]

_MARKER = re.compile(r"<!-- steadypress:dead-letter (\{.*?\}) -->")


def marker_for(identity: Identity) -> str:
    # JSON keeps any path intact; escaping '>' keeps a path containing "-->" inside the comment.
    payload = json.dumps(identity, sort_keys=True).replace(">", "\\u003e")
    return f"<!-- steadypress:dead-letter {payload} -->"


def identity_key(identity: Identity) -> str:
    return json.dumps(identity, sort_keys=True)


def find_marker(text: str) -> Identity | None:
    """What the marker in `text` names, if any. A letter written before letters were per
    article names its item (`{"key": "TARGET:PATH"}`): it is read as its article's letter."""
    match = _MARKER.search(text)
    if match is None:
        return None
    try:
        payload = json.loads(match.group(1))
    except ValueError:
        return None
    if not isinstance(payload, dict):
        return None
    key = payload.get("key")
    if isinstance(key, str) and ":" in key:
        return {"path": split_key(key)[1]}
    for name in ("path", "cause"):
        value = payload.get(name)
        if isinstance(value, str):
            return {name: value}
    return None


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
