"""The state files on the state branch, written deterministically (`statedecode.py` reads
them strictly).

`state/pending.json`, `state/dead.json` and the shards `state/published/XYZ.json` (see
`published.py`), each `{"version": 2, "<section>": {KEY: record}}`, keys sorted, 2-space
indent; and `state/reconciled.json`, what the last reconcile compared under. Version 1 kept
every published record in one `state/published.json`; the first write moves it into shards.
`pending.json` is of version 4: beside the items, the published records' `counts` (`Tally`)
(a branch written by an earlier version has none until its first write counts them) and the
content commit the last reconcile compared (`reconciled`), which moves with nearly every push:
`reconciled.json` (version 3) holds the rest of the marker, which seldom changes, and is
written only when it does.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from steadypress import jsonfmt, shardtree
from steadypress.ledger import (
    LOOK_PARTS,
    Attempt,
    DeadItem,
    Ledger,
    PendingItem,
    PublishedRecord,
)
from steadypress.published import Layout, Shard
from steadypress.timefmt import format_time

__all__ = [
    "DEAD_FILE",
    "FORMAT_VERSION",
    "LEGACY_PUBLISHED_FILE",
    "PENDING_FILE",
    "PENDING_VERSION",
    "PUBLISHED_DIR",
    "RECONCILED_FILE",
    "RECONCILED_VERSION",
    "SMALL_FILES",
    "PendingEncoder",
    "StateEncoder",
    "encode_dead",
    "encode_pending",
    "encode_reconciled",
    "encode_shard",
    "encode_state",
    "ledger_document",
    "shard_file",
    "shard_name",
]

FORMAT_VERSION = 2
# `pending.json`'s: version 2's, with the published records' `counts` beside the items (3),
# and the commit the last reconcile compared (4).
PENDING_VERSION = 4
# `reconciled.json`'s: the marker without its commit, which `pending.json` holds.
RECONCILED_VERSION = 3
PENDING_FILE = "state/pending.json"
DEAD_FILE = "state/dead.json"
RECONCILED_FILE = "state/reconciled.json"
PUBLISHED_DIR = "state/published"
LEGACY_PUBLISHED_FILE = "state/published.json"  # version 1: every published record in one file
# What every load reads; the shards of published records are read when wanted.
SMALL_FILES = (PENDING_FILE, DEAD_FILE, RECONCILED_FILE)
# A backlog's `order`: by date, newest first; or, recorded before that order existed, by path.
NEWEST_FIRST, PATH_ORDER = "newest", "path"
# What a shard that has split holds (`shardtree.py`): its records are in the files one digit longer.
SPLIT_MARKER = b'{"version": 2, "split": true}\n'


def shard_file(name: str) -> str:
    """`state/published/abc.json`, a deeper one `state/published/abc/d.json`."""
    return shardtree.file_of(PUBLISHED_DIR, name)


def shard_name(path: str) -> str | None:
    """The shard a file of the state branch holds, or None for any other file."""
    return shardtree.name_of(PUBLISHED_DIR, path)


# ---------------------------------------------------------------------------------------- writing


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else format_time(moment)


def _history(history: tuple[Attempt, ...]) -> list[dict[str, Any]]:
    return [{"at": format_time(attempt.at), "error": attempt.error} for attempt in history]


def _pending_record(item: PendingItem) -> dict[str, Any]:
    lease = item.lease
    return {
        "target": item.target,
        "path": item.path,
        "blob": item.blob,
        "commit": item.commit,
        "enqueued_at": format_time(item.enqueued_at),
        "not_before": _time(item.not_before),
        "attempts": item.attempts,
        "next_attempt_at": _time(item.next_attempt_at),
        "last_error": item.last_error,
        "history": _history(item.history),
        "lease": None
        if lease is None
        else {
            "holder": lease.holder,
            "token": lease.token,
            "expires_at": format_time(lease.expires_at),
        },
        "issue": item.alert,
        # Only when there are some: a ledger without lapses reads as it did before they were.
        **({"lapses": item.lapses} if item.lapses else {}),
    }


def _dead_record(item: DeadItem) -> dict[str, Any]:
    return {
        "target": item.target,
        "path": item.path,
        "blob": item.blob,
        "commit": item.commit,
        "died_at": format_time(item.died_at),
        "attempts": item.attempts,
        "history": _history(item.history),
        "permanent": item.permanent,
        "issue": item.alert,
        "depends": dict(item.depends),
    }


def _published_record(record: PublishedRecord) -> dict[str, Any]:
    return record._asdict()


def _document(section: str, records: Any) -> bytes:
    return (jsonfmt.dumps({"version": FORMAT_VERSION, section: records}) + "\n").encode()


def ledger_document(ledger: Ledger) -> dict[str, Any]:
    """The three sections as plain JSON data, as `status --json` shows them."""
    return {
        "pending": {k: _pending_record(v) for k, v in ledger.pending.items()},
        "published": {k: _published_record(v) for k, v in ledger.published.items()},
        "dead": {k: _dead_record(v) for k, v in ledger.dead.items()},
    }


class PendingEncoder:
    """`encode_pending` that remembers each item's rendering. Items are immutable and a new
    ledger shares every item a change did not touch, so after its first write a running
    executor re-renders only the few items a transaction changed (at 10^5 pending items the
    full render is seconds, the rest a join)."""

    def __init__(self) -> None:
        self._rendered: dict[int, tuple[PendingItem, str]] = {}

    def __call__(self, ledger: Ledger) -> bytes:
        kept: dict[int, tuple[PendingItem, str]] = {}
        rows: dict[str, str] = {}
        for key, item in ledger.pending.items():
            known = self._rendered.get(id(item))
            if known is None or known[0] is not item:  # an id is only reused once freed
                known = (item, jsonfmt.render_value(_pending_record(item), "    "))
            kept[id(item)] = known
            rows[key] = known[1]
        self._rendered = kept
        # A state an earlier version wrote records no counts: its first pending file written
        # reads every record once to count them (on GitHub a request for every 300 shards).
        counts = ledger.published.counted()._asdict()
        document: dict[str, Any] = {"version": PENDING_VERSION, "counts": counts}
        if ledger.reconciled is not None:
            document["reconciled"] = ledger.reconciled.commit
        return (jsonfmt.dumps_rendered(document, "pending", rows) + "\n").encode()


def encode_pending(ledger: Ledger) -> bytes:
    return PendingEncoder()(ledger)


class StateEncoder:
    """The state files as a store writes them: what a change touched (the pending file by a
    `PendingEncoder` kept for the store's life). A file whose part is empty is not written."""

    def __init__(self) -> None:
        self._pending = PendingEncoder()

    def small_files(self, ledger: Ledger, based_on: Ledger | None) -> dict[str, bytes | None]:
        """The small files `ledger` changed since `based_on` (all of them without one); None
        for a file to delete."""
        changed: dict[str, bytes | None] = {}
        for name in SMALL_FILES:
            if based_on is not None and not _changed(name, ledger, based_on):
                continue
            if name == PENDING_FILE:
                changed[name] = self._pending(ledger)
            elif name == DEAD_FILE:
                changed[name] = encode_dead(ledger)
            else:
                changed[name] = encode_reconciled(ledger)
        return changed

    @staticmethod
    def shards(layout: Layout) -> dict[str, bytes | None]:
        """The shard files of `layout` (`PublishedRecords.laid_out_since`) by path; None for
        a shard left without records."""
        files: dict[str, bytes | None] = dict.fromkeys(
            map(shard_file, layout.markers), SPLIT_MARKER
        )
        files |= {shard_file(name): encode_shard(held) if held else None
                  for name, held in layout.files.items()}  # fmt: skip
        return files


def encode_shard(records: Shard) -> bytes:
    # A PublishedRecord is already a row in the file's field order.
    document = {"version": FORMAT_VERSION}
    text = jsonfmt.dumps_records(document, "published", PublishedRecord._fields, records)
    return (text + "\n").encode()


def _changed(name: str, ledger: Ledger, based_on: Ledger) -> bool:
    """Whether the small file `name` holds something `ledger` changed since `based_on`."""
    marker, before = ledger.reconciled, based_on.reconciled
    # All of the marker but its commit, which `pending.json` holds.
    remarked = marker is not before and (
        marker is None or before is None or replace(marker, commit=before.commit) != before
    )
    if name == PENDING_FILE:  # the items, the published records' counts, the marker's commit
        return (
            ledger.pending is not based_on.pending
            or ledger.published.tally != based_on.published.tally
            or (marker and marker.commit) != (before and before.commit)
            # `reconciled.json` is written without its commit: the pending file read may be
            # of a version before it held the commit (a state an earlier steadypress wrote).
            or remarked
        )
    if name == RECONCILED_FILE:
        return remarked
    return ledger.dead is not based_on.dead


def encode_reconciled(ledger: Ledger) -> bytes | None:
    """The marker but its commit (`pending.json`'s); None without a marker."""
    marker = ledger.reconciled
    if marker is None:
        return None
    fields: dict[str, Any] = {
        "targets": list(marker.targets),
        "config": marker.config,
    }
    if marker.backlog is not None:
        backlog = marker.backlog
        fields["backlog"] = {
            "since": backlog.since,
            "after": backlog.after,
            **({"order": NEWEST_FIRST} if backlog.newest_first else {}),
            **({"restyle": list(backlog.restyle)} if backlog.restyle else {}),
        }
    if marker.looks:
        fields["looks"] = {
            name: dict(zip(LOOK_PARTS, look.digests(), strict=True)) for name, look in marker.looks
        }
    document = {"version": RECONCILED_VERSION, "reconciled": fields}
    return (jsonfmt.dumps(document) + "\n").encode()


def encode_state(ledger: Ledger) -> dict[str, bytes]:
    """Every state file of `ledger`, by path (reads every shard)."""
    layout = ledger.published.laid_out_since(None)
    files = {**StateEncoder().small_files(ledger, None), **StateEncoder.shards(layout)}
    return {path: data for path, data in files.items() if data is not None}


def encode_dead(ledger: Ledger) -> bytes:
    return _document("dead", {k: _dead_record(v) for k, v in ledger.dead.items()})
