"""The hidden marker that ties an alert to what it is about: an article (`{"path": ...}`: the
letter of all its targets) or a cause (`{"cause": ...}`: the summary of many articles that died
of it)."""

from __future__ import annotations

import json
import re

from steadypress.ledger import split_key

__all__ = ["Identity", "find_marker", "identity_key", "marker_for"]

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
