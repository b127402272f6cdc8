"""The state files on the state branch read strictly (`codec.py` writes them): a file that
cannot be fully understood is refused with its name and the first problem found, since the
ledger is the only record of unfinished work and is never rewritten from a partial reading.
Version 1's single `state/published.json` is still read."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from typing import Any, TypeVar

from steadypress.codec import (
    DEAD_FILE,
    FORMAT_VERSION,
    LEGACY_PUBLISHED_FILE,
    NEWEST_FIRST,
    PATH_ORDER,
    PENDING_FILE,
    PENDING_VERSION,
    RECONCILED_FILE,
    RECONCILED_VERSION,
    SPLIT_MARKER,
    shard_file,
    shard_name,
)
from steadypress.errors import StateError
from steadypress.gitio import OBJECT_ID
from steadypress.ledger import (
    LOOK_PARTS,
    Attempt,
    Backlog,
    DeadItem,
    Lease,
    Ledger,
    Look,
    PendingItem,
    PublishedRecord,
    Reconciled,
    item_key,
)
from steadypress.published import PublishedRecords, Stored, Tally, key_digest
from steadypress.timefmt import parse_time

__all__ = ["decode_ledger", "decode_shard", "decode_shards", "decode_state"]

T = TypeVar("T")


class _Invalid(Exception):
    """A problem inside one record; decode_ledger adds the file name."""


def _fields(raw: Any, required: set[str], optional: frozenset[str] = frozenset()) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise _Invalid(f"must be an object, not {type(raw).__name__}")
    missing = required - raw.keys()
    if missing:
        raise _Invalid(f"missing field(s) {', '.join(sorted(missing))}")
    unknown = raw.keys() - required - optional
    if unknown:
        raise _Invalid(f"unknown field(s) {', '.join(sorted(unknown))}")
    return raw


def _str(raw: dict[str, Any], name: str) -> str:
    value = raw[name]
    if not isinstance(value, str) or not value:
        raise _Invalid(f"field {name!r} must be a non-empty string")
    return value


def _oid(raw: dict[str, Any], name: str) -> str:
    """A git object id (what `blob` and `commit` hold): anything else is not ours to keep."""
    value = raw[name]
    if not isinstance(value, str) or not OBJECT_ID.match(value):
        raise _Invalid(f"field {name!r} must be a git object id (40 or 64 lowercase hex)")
    return value


def _optional(
    reader: Callable[[dict[str, Any], str], T], raw: dict[str, Any], name: str
) -> T | None:
    return None if raw.get(name) is None else reader(raw, name)


def _int(raw: dict[str, Any], name: str) -> int:
    value = raw[name]
    if type(value) is not int or value < 0:
        raise _Invalid(f"field {name!r} must be a whole number >= 0")
    return value


def _when(raw: dict[str, Any], name: str) -> datetime:
    value = raw[name]
    try:
        return parse_time(value)
    except (TypeError, ValueError):
        raise _Invalid(f"field {name!r} must be an ISO-8601 UTC time, not {value!r}") from None


# The shape format_time writes, as state/schema/common.schema.json spells it.
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z")


def _stamp(raw: dict[str, Any], name: str) -> str:
    """A time kept as its text: it must be one we would have written (UTC, with a Z)."""
    value = raw[name]
    if not (isinstance(value, str) and _STAMP.fullmatch(value)):
        raise _Invalid(f"field {name!r} must be an ISO-8601 UTC time ending in Z, not {value!r}")
    _when(raw, name)
    return value


def _attempts(raw: dict[str, Any], name: str) -> tuple[Attempt, ...]:
    value = raw[name]
    if not isinstance(value, list):
        raise _Invalid(f"field {name!r} must be a list")
    history = []
    for entry in value:
        fields = _fields(entry, {"at", "error"})
        if not isinstance(fields["error"], str):
            raise _Invalid(f"field {name!r}: 'error' must be a string")
        history.append(Attempt(at=_when(fields, "at"), error=fields["error"]))
    return tuple(history)


def _lease(raw: dict[str, Any], name: str) -> Lease:
    fields = _fields(raw[name], {"holder", "token", "expires_at"})
    return Lease(
        holder=_str(fields, "holder"),
        token=_str(fields, "token"),
        expires_at=_when(fields, "expires_at"),
    )


def _text(raw: dict[str, Any], name: str) -> str:
    value = raw[name]
    if not isinstance(value, str):
        raise _Invalid(f"field {name!r} must be a string")
    return value


def _bool(raw: dict[str, Any], name: str) -> bool:
    value = raw[name]
    if not isinstance(value, bool):
        raise _Invalid(f"field {name!r} must be true or false")
    return value


_PENDING_REQUIRED = {"target", "path", "blob", "commit", "enqueued_at", "attempts"}
_PENDING_OPTIONAL = frozenset(
    {"not_before", "next_attempt_at", "last_error", "history", "lease", "issue", "lapses"}
)


def _pending_item(key: str, raw: Any) -> PendingItem:
    fields = _fields(raw, _PENDING_REQUIRED, _PENDING_OPTIONAL)
    item = PendingItem(
        target=_str(fields, "target"),
        path=_str(fields, "path"),
        blob=_oid(fields, "blob"),
        commit=_oid(fields, "commit"),
        enqueued_at=_when(fields, "enqueued_at"),
        not_before=_optional(_when, fields, "not_before"),
        attempts=_int(fields, "attempts"),
        next_attempt_at=_optional(_when, fields, "next_attempt_at"),
        last_error=_optional(_text, fields, "last_error"),
        history=_optional(_attempts, fields, "history") or (),
        lease=_optional(_lease, fields, "lease"),
        alert=_optional(_int, fields, "issue"),
        lapses=_optional(_int, fields, "lapses") or 0,
    )
    _check_key(key, item.target, item.path)
    return item


_DEAD_REQUIRED = {"target", "path", "blob", "commit", "died_at", "attempts", "history", "permanent"}


def _dead_item(key: str, raw: Any) -> DeadItem:
    fields = _fields(raw, _DEAD_REQUIRED, frozenset({"issue", "depends"}))
    item = DeadItem(
        target=_str(fields, "target"),
        path=_str(fields, "path"),
        blob=_oid(fields, "blob"),
        commit=_oid(fields, "commit"),
        died_at=_when(fields, "died_at"),
        attempts=_int(fields, "attempts"),
        history=_attempts(fields, "history"),
        permanent=_bool(fields, "permanent"),
        alert=_optional(_int, fields, "issue"),
        depends=_optional(_depends, fields, "depends") or (),
    )
    _check_key(key, item.target, item.path)
    return item


def _depends(raw: dict[str, Any], name: str) -> tuple[tuple[str, str], ...]:
    value = raw[name]
    if not isinstance(value, dict) or not all(
        isinstance(path, str) and isinstance(oid, str) for path, oid in value.items()
    ):
        raise _Invalid(f"field {name!r} must map repository paths to git object ids")
    return tuple(sorted(value.items()))


_PUBLISHED_REQUIRED = {"blob", "commit", "published_at"}
_PUBLISHED_OPTIONAL = frozenset({"url", "id"})
_PUBLISHED_ALL = _PUBLISHED_REQUIRED | _PUBLISHED_OPTIONAL


def _published_record_from(key: str, raw: Any) -> PublishedRecord:
    # The fast path for a well-formed record (10^5 of them in a large blog); anything unusual
    # goes through the strict reader below, which names the problem.
    if type(raw) is dict and raw.keys() == _PUBLISHED_ALL:
        blob, commit, url, id_ = raw["blob"], raw["commit"], raw["url"], raw["id"]
        if (
            type(blob) is str
            and OBJECT_ID.match(blob)
            and type(commit) is str
            and OBJECT_ID.match(commit)
            and (url is None or type(url) is str)
            and (id_ is None or type(id_) is str)
        ):
            return PublishedRecord(blob, commit, id_, _stamp(raw, "published_at"), url)
    return _strict_published_record(key, raw)


def _strict_published_record(_key: str, raw: Any) -> PublishedRecord:
    fields = _fields(raw, _PUBLISHED_REQUIRED, _PUBLISHED_OPTIONAL)
    return PublishedRecord(
        blob=_oid(fields, "blob"),
        commit=_oid(fields, "commit"),
        id=_optional(_text, fields, "id"),
        published_at=_stamp(fields, "published_at"),
        url=_optional(_text, fields, "url"),
    )


def _check_key(key: str, target: str, path: str) -> None:
    if key != item_key(target, path):
        raise _Invalid(f"key does not match its target {target!r} and path {path!r}")


def _document_of(
    name: str,
    section: str,
    data: bytes | None,
    versions: Collection[int],
    *,
    also: Collection[str] = (),
) -> tuple[int, Any, dict[str, Any]]:
    """(version, the section's content, the fields of `also` it holds) of a state file, or
    the StateError naming its problem. `also` names fields the file may hold beside them."""
    if data is None:
        raise StateError(name, "missing from the state branch")
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StateError(name, f"not valid JSON ({error})") from None
    if not isinstance(document, dict):
        raise StateError(name, "must hold a JSON object")
    version = document.get("version")
    if not isinstance(version, int) or version not in versions:
        raise StateError(
            name,
            f"format version {version!r} is not {' or '.join(map(str, sorted(versions)))}; "
            "this steadypress cannot read it and will not overwrite it",
        )
    if not {"version", section} <= set(document) <= {"version", section, *also}:
        held = f"'version' and {section!r}" + "".join(f" (and {field!r})" for field in also)
        raise StateError(name, f"must hold exactly {held}")
    return (
        version,
        document[section],
        {field: document[field] for field in also if field in document},
    )


def _section(
    name: str,
    section: str,
    data: bytes | None,
    reader: Callable[[str, Any], T],
    versions: Collection[int] = (1, FORMAT_VERSION),
    *,
    also: Collection[str] = (),
) -> tuple[int, dict[str, T], dict[str, Any]]:
    """(version, the records, the fields of `also` it holds) of a state file, each record
    read by `reader`."""
    version, records, extra = _document_of(name, section, data, versions, also=also)
    if not isinstance(records, dict):
        raise StateError(name, f"{section!r} must be an object")
    result: dict[str, T] = {}
    for key, raw in records.items():
        try:
            result[key] = reader(key, raw)
        except _Invalid as problem:
            raise StateError(name, f"{key!r}: {problem}") from None
    return version, result, extra


def decode_shards(files: Mapping[str, bytes]) -> Stored:
    """The shards among state files by path (other files passed over), and the split markers."""
    shards, split = {}, set()
    for path, data in files.items():
        name = shard_name(path)
        if name is None:
            continue
        if _is_split_marker(data):
            split.add(name)
        else:
            shards[name] = decode_shard(name, data)
    return Stored(shards, frozenset(split))


def _is_split_marker(data: bytes) -> bool:
    """Whether a shard file is a split marker, however it is spelt (an edit by hand may
    indent it); anything else is read as records, and refused if it is not."""
    if b'"split"' not in data:  # a shard of records is not parsed twice
        return False
    try:
        return bool(json.loads(data) == json.loads(SPLIT_MARKER))
    except ValueError:
        return False


def decode_shard(name: str, data: bytes) -> dict[str, PublishedRecord]:
    """One shard file; a record filed under another shard is refused (a hand edit gone wrong:
    it would never be found)."""
    path = shard_file(name)
    _version, records, _ = _section(
        path, "published", data, _published_record_from, (FORMAT_VERSION,)
    )
    for key in records:
        if not key_digest(key).startswith(name):
            raise StateError(path, f"{key!r} belongs in {shard_file(key_digest(key)[: len(name)])}")
    return records


def _backlog(raw: dict[str, Any], name: str) -> Backlog:
    try:
        fields = _fields(raw[name], {"since", "after"}, frozenset({"order", "restyle"}))
        since = fields["since"]
        if since is not None and not isinstance(since, str):
            raise _Invalid("'since' must be a commit id or null")
        order = fields.get("order", PATH_ORDER)
        if order not in (NEWEST_FIRST, PATH_ORDER):
            raise _Invalid(f"'order' must be {NEWEST_FIRST!r} or {PATH_ORDER!r}, not {order!r}")
        restyle = fields.get("restyle", [])
        if not isinstance(restyle, list) or not all(isinstance(t, str) for t in restyle):
            raise _Invalid("'restyle' must be a list of target names")
        return Backlog(
            since=since,
            after=_str(fields, "after"),
            newest_first=order == NEWEST_FIRST,
            restyle=tuple(restyle),
        )
    except _Invalid as problem:
        raise _Invalid(f"{name!r}: {problem}") from None


# Looks as earlier releases wrote them, whose digests are made of other parts: `pages` and
# `static` (the files beside the pages apart), and `pages` and `singles` (before the listing
# pages were rewritten alone).
_LOOKS_BEFORE = ({"pages", "static"}, {"pages", "singles"})


def _looks(raw: Any) -> tuple[tuple[str, Look], ...]:
    """The looks recorded by target. One as an earlier release wrote it (a bare digest for the
    whole look, or one of `_LOOKS_BEFORE`) is left out: such a target takes the look it has,
    as one with none recorded does, rather than publish every article again."""
    if not isinstance(raw, dict):
        raise _Invalid("'looks' must map target names to looks")
    looks = []
    for name, look in sorted(raw.items()):
        if isinstance(look, str) or (isinstance(look, dict) and look.keys() in _LOOKS_BEFORE):
            continue
        try:
            fields = _fields(look, set(LOOK_PARTS), frozenset())
            looks.append((name, Look(**{part: _str(fields, part) for part in LOOK_PARTS})))
        except _Invalid as problem:
            raise _Invalid(f"'looks': {name!r}: {problem}") from None
    return tuple(looks)


def _reconciled(data: bytes | None, commit: str | None) -> Reconciled | None:
    """The marker: `reconciled.json`, with the `commit` `pending.json` holds (version 4; None:
    an earlier one, whose `reconciled.json` of version 2 holds its own)."""
    if data is None:
        if commit is not None:
            raise StateError(
                PENDING_FILE, f"names the commit last reconciled, but {RECONCILED_FILE} is missing"
            )
        return None
    version, raw, _ = _document_of(
        RECONCILED_FILE, "reconciled", data, (FORMAT_VERSION, RECONCILED_VERSION)
    )
    try:
        # Version 2 held its commit; a later `pending.json`'s is newer (this file was not
        # written again since).
        required = {"targets", "config", *(("commit",) if version == FORMAT_VERSION else ())}
        fields = _fields(raw, required, frozenset({"backlog", "looks"}))
        if commit is None:
            if version != FORMAT_VERSION:
                raise _Invalid(
                    f"holds no commit, and {PENDING_FILE} names none (one written before "
                    f"version {PENDING_VERSION}, restored?); delete {RECONCILED_FILE}, and the "
                    "next run compares every article"
                )
            commit = _str(fields, "commit")
        targets = fields["targets"]
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise _Invalid("'targets' must be a list of names")
        backlog = _optional(_backlog, fields, "backlog")
        return Reconciled(
            commit,
            tuple(targets),
            _str(fields, "config"),
            backlog,
            looks=_looks(fields.get("looks", {})),
        )
    except _Invalid as problem:
        raise StateError(RECONCILED_FILE, str(problem)) from None


# The versions of `pending.json` that hold the published records' counts: 3, and 4, which
# holds the commit last reconciled too.
_COUNTED = (3, PENDING_VERSION)


def _commit_reconciled(value: Any, version: int) -> str | None:
    """The commit last reconciled `pending.json` holds (`...`: none), from version 4 on."""
    if value is ...:
        return None
    if version != PENDING_VERSION or not isinstance(value, str) or not OBJECT_ID.match(value):
        raise StateError(
            PENDING_FILE,
            f"'reconciled' must be a git commit id, in a file of version {PENDING_VERSION}",
        )
    return value


def _tally(counts: Any, version: int) -> Tally | None:
    """The published records' counts `pending.json` holds (None: it holds none)."""
    if counts is None:
        return None
    fields = set(Tally._fields)
    if (
        version not in _COUNTED
        or not isinstance(counts, dict)
        or set(counts) != fields
        or not all(type(counts[name]) is int and counts[name] >= 0 for name in fields)
    ):
        raise StateError(
            PENDING_FILE,
            f"'counts' must be {{{', '.join(map(repr, Tally._fields))}: a whole number, 0 or more}}"
            f" in a file of version {' or '.join(map(str, _COUNTED))}",
        )
    return Tally(**counts)


def decode_ledger(
    files: Mapping[str, bytes | None], published: PublishedRecords | None = None
) -> Ledger:
    """The ledger from its small files, with `published` (the stored shards, read lazily), or
    from version 1's `state/published.json` when `files` holds it. Raises StateError naming the
    file at the first problem."""
    version, pending, extra = _section(
        PENDING_FILE, "pending", files.get(PENDING_FILE), _pending_item,
        (1, FORMAT_VERSION, *_COUNTED), also=("counts", "reconciled"),
    )  # fmt: skip
    tally = _tally(extra.get("counts"), version)
    commit = _commit_reconciled(extra.get("reconciled", ...), version)
    legacy = files.get(LEGACY_PUBLISHED_FILE)
    # A version 1 branch keeps every published record in one file: read it (or refuse it
    # missing) rather than the shards a version 2 branch would have.
    if legacy is not None or published is None or version == 1:
        _version, records, _ = _section(
            LEGACY_PUBLISHED_FILE, "published", legacy, _published_record_from, (1,)
        )
        published = PublishedRecords.of(records)
    _version, dead, _ = _section(DEAD_FILE, "dead", files.get(DEAD_FILE), _dead_item)
    return Ledger(
        pending=pending,
        published=published.recorded(tally) if tally is not None else published,
        dead=dead,
        reconciled=_reconciled(files.get(RECONCILED_FILE), commit),
    )


def decode_state(files: Mapping[str, bytes]) -> Ledger:
    """The ledger from every state file in memory, by path (either layout)."""
    if LEGACY_PUBLISHED_FILE in files:
        return decode_ledger(files)
    return decode_ledger(
        files, PublishedRecords.stored(lambda _names: Stored(), decode_shards(files))
    )
