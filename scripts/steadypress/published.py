"""What every target holds (the ledger's `published` section), kept in shards.

A blog of 10^5 articles has 10^5 records or more; one file of them made every transaction read
and write 31 MB. The records are split by a stable hash of the article's path into 4,096
shards (`state/published/abc.json`, 8 KB each at 10^5 records), so a transaction reads the
shards of the articles it looks at and writes the shards it changed, nothing else. All targets
of one article share its shard.

`PublishedRecords` is a read-only mapping over the shards of one stored snapshot, read when
first wanted (a snapshot never changes, so what was read is kept), with the changes a
transaction made on top. Looking at every record (iterating, `len`) reads every shard: only a
full reconcile after history was rewritten, `status`, and tests do that.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steadypress.ledger import PublishedRecord

__all__ = ["SHARD_DIGITS", "PublishedRecords", "Shard", "ShardReader", "shard_of"]

SHARD_DIGITS = 3  # 16**3 = 4,096 shards

Shard = Mapping[str, "PublishedRecord"]
# Reads shards of one stored snapshot: the records of each shard named (a shard that is not
# stored has none); None asks for every shard there is.
ShardReader = Callable[[Collection[str] | None], Mapping[str, Shard]]


def shard_of(key: str) -> str:
    """The shard of a key `TARGET:PATH`: by the path, so every target of an article is in one."""
    path = key.split(":", 1)[1]
    # A file name that is not UTF-8 reaches here with its bytes escaped; hash the bytes.
    data = path.encode("utf-8", "surrogateescape")
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:SHARD_DIGITS]


class _StoredShards:
    """The shards of one stored snapshot, read on demand and kept."""

    def __init__(self, read: ShardReader | None, shards: Mapping[str, Shard] | None = None) -> None:
        self._read = read
        self._shards: dict[str, Shard] = dict(shards or {})
        self._complete = read is None

    def want(self, names: Collection[str]) -> None:
        missing = [name for name in names if name not in self._shards]
        if missing and not self._complete and self._read is not None:
            found = self._read(missing)
            for name in missing:
                self._shards[name] = found.get(name) or {}

    def shard(self, name: str) -> Shard:
        self.want((name,))
        return self._shards.get(name) or {}

    def every(self) -> Mapping[str, Shard]:
        if not self._complete and self._read is not None:
            found = self._read(None)
            self._shards = {**{n: s for n, s in self._shards.items() if s}, **found}
            self._complete = True
        return self._shards


class PublishedRecords(Mapping[str, "PublishedRecord"]):
    __slots__ = ("_changed", "_stored")

    def __init__(
        self, stored: _StoredShards | None = None, changed: Mapping[str, Shard] | None = None
    ) -> None:
        self._stored = stored if stored is not None else _StoredShards(None)
        self._changed: Mapping[str, Shard] = changed or {}

    @classmethod
    def of(cls, records: Mapping[str, PublishedRecord]) -> PublishedRecords:
        """Records held in memory, all of them known."""
        if isinstance(records, PublishedRecords):
            return records
        shards: dict[str, dict[str, PublishedRecord]] = {}
        for key, record in records.items():
            shards.setdefault(shard_of(key), {})[key] = record
        return cls(_StoredShards(None, shards))

    @classmethod
    def stored(
        cls, read: ShardReader, known: Mapping[str, Shard] | None = None
    ) -> PublishedRecords:
        """The records of a stored snapshot, read shard by shard through `read`; `known` are
        shards already read."""
        return cls(_StoredShards(read, known))

    def _shard(self, name: str) -> Shard:
        changed = self._changed.get(name)
        return changed if changed is not None else self._stored.shard(name)

    def __getitem__(self, key: str) -> PublishedRecord:
        return self._shard(shard_of(key))[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and ":" in key and key in self._shard(shard_of(key))

    def __iter__(self) -> Iterator[str]:
        for shard in self.shards().values():
            yield from shard

    def __len__(self) -> int:
        return sum(len(shard) for shard in self.shards().values())

    def shards(self) -> Mapping[str, Shard]:
        """Every shard that holds records (reads every stored shard)."""
        every = {**self._stored.every(), **self._changed}
        return {name: shard for name, shard in every.items() if shard}

    def preload(self, keys: Iterable[str]) -> None:
        """Read the shards of `keys` together (one request on GitHub) before looking at them
        one by one."""
        self._stored.want({shard_of(key) for key in keys} - self._changed.keys())

    def renewed(self, updates: Mapping[str, PublishedRecord]) -> PublishedRecords:
        """These records with `updates` applied; the same object when nothing changed."""
        by_shard: dict[str, dict[str, PublishedRecord]] = {}
        for key, record in updates.items():
            by_shard.setdefault(shard_of(key), {})[key] = record
        self.preload(updates)
        changed = dict(self._changed)
        for name, records in by_shard.items():
            current = self._shard(name)
            if any(current.get(key) != record for key, record in records.items()):
                changed[name] = {**current, **records}
        if len(changed) == len(self._changed) and all(
            changed[name] is self._changed[name] for name in changed
        ):
            return self
        return PublishedRecords(self._stored, changed)

    def changed_since(self, earlier: PublishedRecords | None) -> Mapping[str, Shard]:
        """The shards changed since `earlier` (a state these records were made from), each
        whole, by name: what a store writes. Every shard with records, without one."""
        if earlier is None or earlier._stored is not self._stored:
            return self.shards()
        return {name: shard for name, shard in self._changed.items()
                if earlier._changed.get(name) is not shard}  # fmt: skip

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, PublishedRecords) and other._stored is self._stored:
            return dict(self._changed) == dict(other._changed)
        if isinstance(other, Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a mapping, compared by content

    def __repr__(self) -> str:
        return f"PublishedRecords({len(self._changed)} shards changed)"
