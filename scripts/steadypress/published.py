"""What every target holds (the ledger's `published` section), kept in shards.

A blog of 10^5 articles has 10^5 records or more; one file of them made every transaction read
and write 31 MB. The records are filed by a stable hash of the article's path (all targets of
one article in one file) in files that split as they fill (`shardtree.py`): 4,096 to begin with
(`state/published/abc.json`), a file a write leaves with more than 4 records becoming a split
marker whose records move to the files one digit longer (`state/published/abc/d.json`). So a
transaction reads the files of the articles it looks at and writes those it changed, a few
records each at any size, nothing else.

`PublishedRecords` is a read-only mapping over the shards of one stored snapshot, read when
first wanted (a snapshot never changes, so what was read is kept), with the changes a
transaction made on top, by the shard each record was read from; a store splits a shard that
has grown too full when it writes it (`StateEncoder.shards`). Looking at every record
(iterating, `len`) reads every shard: only a full reconcile after history was rewritten,
`status --json`, and tests do that. How many records there are, and how many tell of an
article unpublished (`Tally`), is kept beside them, moved by each change: `status` reads none.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from steadypress import shardtree

__all__ = [
    "ABSENT",
    "Layout",
    "PublishedRecord",
    "PublishedRecords",
    "Shard",
    "ShardReader",
    "Stored",
    "Tally",
    "first_reads",
    "key_digest",
    "shard_of",
]

# Git's null object id, which git itself writes for the side of a diff where a file does not exist.
# As the blob of pending work it asks the target to unpublish the article; it is never published.
ABSENT = "0" * 40


class PublishedRecord(NamedTuple):
    """A fact: this version is on the target, at `url`, known there as `id`; or, with the blob
    `ABSENT`, that the article was unpublished (`id` still names its old post, if any).

    A large blog holds 10^5 of these, read and written by the shard, so the record is a tuple
    whose fields are in the order the file spells them, and `published_at` stays the ISO-8601
    text it is stored as (it is shown, never compared). It lives here, beside the shards that
    hold it; the ledger, which records it, names it too.
    """

    blob: str
    commit: str
    id: str | None
    published_at: str
    url: str | None

    @property
    def unpublished(self) -> bool:
        return self.blob == ABSENT


Shard = Mapping[str, PublishedRecord]


class Tally(NamedTuple):
    """How many articles a target shows (`published`), and how many records tell of one
    unpublished, over every target."""

    published: int = 0
    unpublished: int = 0

    @classmethod
    def of(cls, records: Iterable[PublishedRecord]) -> Tally:
        unpublished = published = 0
        for record in records:
            unpublished += record.unpublished
            published += not record.unpublished
        return cls(published, unpublished)

    def moved(self, before: PublishedRecord | None, after: PublishedRecord) -> Tally:
        """The tally once the record `before` (None: there was none) becomes `after`."""
        gone = Tally.of(() if before is None else (before,))
        come = Tally.of((after,))
        return Tally(
            self.published + come.published - gone.published,
            self.unpublished + come.unpublished - gone.unpublished,
        )


@dataclass(frozen=True)
class Stored:
    """Shards as read from a stored snapshot: the records of each, and the names that are
    split markers. A shard that is in neither is not stored: it holds no records."""

    shards: Mapping[str, Shard] = field(default_factory=dict)
    split: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Layout:
    """The shard files a write makes (`PublishedRecords.laid_out_since`): the records of each
    file written (none: the file is deleted), and the files that become split markers."""

    files: Mapping[str, Shard]
    markers: frozenset[str]


# Reads shards of one stored snapshot by name; None asks for every shard there is.
ShardReader = Callable[[Collection[str] | None], Stored]


def key_digest(key: str) -> str:
    """The digest that files a key `TARGET:PATH`: its path's, so every target of an article is
    in one shard."""
    return shardtree.digest(key.split(":", 1)[1])


# Files one read asks for at most (`github/branch.py`): past that, the files a record may be in
# are read a level at a time rather than all at once.
_AT_ONCE = 200


def first_reads(digests: Collection[str]) -> set[str]:
    """The shards to read first for the records filed under these digests (`key_digest`):
    every file each may be in while that fits in one read, else the first only."""
    levels = range(shardtree.BASE_DIGITS, shardtree.MAX_DIGITS + 1)
    if len(digests) * len(levels) > _AT_ONCE:
        levels = range(shardtree.BASE_DIGITS, shardtree.BASE_DIGITS + 1)
    return {hashed[:digits] for hashed in digests for digits in levels}


def shard_of(key: str) -> str:
    """The shard a key is filed in before any has split (one of the 4,096 to begin with)."""
    return shardtree.names(key.split(":", 1)[1])[0]


class _StoredShards:
    """The shards of one stored snapshot, read on demand and kept."""

    def __init__(self, read: ShardReader | None, known: Stored | None = None) -> None:
        self._read = read
        self._shards: dict[str, Shard] = dict(known.shards) if known else {}
        self._split: set[str] = set(known.split) if known else set()
        self._complete = read is None

    @property
    def shards(self) -> Mapping[str, Shard]:
        """The shards known so far, by name (read, or known to hold no records)."""
        return self._shards

    @property
    def split(self) -> frozenset[str]:
        """The split markers known so far."""
        return frozenset(self._split)

    @property
    def complete(self) -> bool:
        """Whether every shard of the snapshot is known."""
        return self._complete

    def want(self, names: Collection[str]) -> None:
        missing = [name for name in names
                   if name not in self._shards and name not in self._split
                   and not self._below_a_file(name)]  # fmt: skip
        if missing and not self._complete and self._read is not None:
            found = self._read(missing)
            self._split |= found.split
            for name in missing:
                if name not in found.split:
                    self._shards[name] = found.shards.get(name) or {}

    def leaf(self, key: str) -> str:
        """The shard that holds `key` (the files it may be in, read together when not known)."""
        path = key.split(":", 1)[1]
        candidates = shardtree.names(path)
        for depth, name in enumerate(candidates):
            if name not in self._shards and name not in self._split:
                self.want(candidates[depth:])
                break
            if name not in self._split:
                return name
        return shardtree.leaf(path, self._split.__contains__)

    def reach(self, paths: Collection[str]) -> None:
        """Read the shards these articles' records are in, together: every file each may be
        in at once when they are few (one read), else depth by depth, a deeper file only below
        a split marker (a first build's batch would ask thrice the files, most of them absent
        while the blog is small)."""
        digests = {shardtree.digest(path) for path in paths}
        self.want(first_reads(digests))
        for digits in range(shardtree.BASE_DIGITS + 1, shardtree.MAX_DIGITS + 1):
            below = {hashed[:digits] for hashed in digests if self._reached(hashed[:digits])}
            if not below:
                break
            self.want(below)

    def shard(self, name: str) -> Shard:
        self.want((name,))
        return self._shards.get(name) or {}

    def every(self) -> Mapping[str, Shard]:
        if not self._complete and self._read is not None:
            found = self._read(None)
            self._split |= found.split
            self._shards.update(found.shards)
            self._complete = True
        return {name: shard for name, shard in self._shards.items()
                if shard and self._reached(name)}  # fmt: skip

    def _below_a_file(self, name: str) -> bool:
        """Whether `name` is below a file known not to be a split marker: never looked at."""
        return any(name[:n] in self._shards for n in range(shardtree.BASE_DIGITS, len(name)))

    def _reached(self, name: str) -> bool:
        """Whether a reader looking for its keys finds `name`: a file below one that is not a
        split marker is never looked at (nothing steadypress writes leaves one)."""
        return all(name[:n] in self._split for n in range(shardtree.BASE_DIGITS, len(name)))


class PublishedRecords(Mapping[str, PublishedRecord]):
    __slots__ = ("_changed", "_stored", "_tally")

    def __init__(
        self,
        stored: _StoredShards | None = None,
        changed: Mapping[str, Shard] | None = None,
        tally: Tally | None = None,
    ) -> None:
        self._stored = stored if stored is not None else _StoredShards(None)
        self._changed: Mapping[str, Shard] = changed or {}
        self._tally = tally

    @classmethod
    def of(cls, records: Mapping[str, PublishedRecord]) -> PublishedRecords:
        """Records held in memory, all of them known."""
        if isinstance(records, PublishedRecords):
            return records
        shards: dict[str, dict[str, PublishedRecord]] = {}
        for key, record in records.items():
            shards.setdefault(shard_of(key), {})[key] = record
        return cls(_StoredShards(None, Stored(shards)))

    @classmethod
    def stored(
        cls, read: ShardReader, known: Stored | None = None, tally: Tally | None = None
    ) -> PublishedRecords:
        """The records of a stored snapshot, read shard by shard through `read`; `known` are
        shards already read, `tally` their tally as the snapshot records it (None: not
        recorded)."""
        return cls(_StoredShards(read, known), tally=tally)

    @property
    def tally(self) -> Tally | None:
        """The records' tally, where known without reading a shard: as recorded and moved by
        the changes since, or counted where every shard has been read."""
        if self._tally is None and self._stored.complete:
            self._tally = Tally.of(self.values())
        return self._tally

    def recorded(self, tally: Tally) -> PublishedRecords:
        """These records, whose tally a stored snapshot records as `tally`."""
        return PublishedRecords(self._stored, self._changed, tally)

    def counted(self) -> Tally:
        """The records' tally, every shard read to count it where it is not known."""
        if self._tally is None:
            self._stored.every()
        tally = self.tally
        assert tally is not None  # noqa: S101 - every shard is read now
        return tally

    def _shard(self, name: str) -> Shard:
        changed = self._changed.get(name)
        return changed if changed is not None else self._stored.shard(name)

    def __getitem__(self, key: str) -> PublishedRecord:
        return self._shard(self._stored.leaf(key))[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and ":" in key and key in self._shard(self._stored.leaf(key))

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
        """Read the shards of `keys` together (on GitHub one request for a few, a request a
        level for many) before looking at them one by one."""
        self._stored.reach({key.split(":", 1)[1] for key in keys})

    def renewed(self, updates: Mapping[str, PublishedRecord]) -> PublishedRecords:
        """These records with `updates` applied; the same object when nothing changed."""
        self.preload(updates)
        by_shard: dict[str, dict[str, PublishedRecord]] = {}
        for key, record in updates.items():
            by_shard.setdefault(self._stored.leaf(key), {})[key] = record
        changed = dict(self._changed)
        tally = self.tally
        for name, records in by_shard.items():
            current = self._shard(name)
            if any(current.get(key) != record for key, record in records.items()):
                changed[name] = {**current, **records}
                for key, record in records.items():
                    tally = None if tally is None else tally.moved(current.get(key), record)
        if len(changed) == len(self._changed) and all(
            changed[name] is self._changed[name] for name in changed
        ):
            return self
        return PublishedRecords(self._stored, changed, tally)

    def laid_out_since(self, earlier: PublishedRecords | None) -> Layout:
        """The shard files a write of these records over `earlier` makes (every shard without
        one): each shard changed, or the files one digit longer that hold its records and a
        split marker in its place when it has grown too full (`shardtree.split`)."""
        files: dict[str, Shard] = {}
        markers: set[str] = set()
        for name, records in self.changed_since(earlier).items():
            split, leaves = shardtree.split(name, records, key_digest)
            markers |= split
            files |= leaves
            if not records:
                files[name] = {}
        return Layout(files, frozenset(markers))

    def as_written(self, layout: Layout, read: ShardReader) -> PublishedRecords:
        """These records as a store has just written them (`layout`): a stored snapshot of the
        new version, read through `read`, that knows every shard this one knew, each shard
        written filed where the write put it. What a store keeps after a write, so that the
        next transaction reads nothing it wrote: a first build of 10^5 splits shards in most
        of its windows, and read every shard it looked at again after each."""
        below = {child for marker in layout.markers for child in shardtree.children(marker)}
        shards = {**self._stored.shards, **{child: {} for child in below - layout.markers}}
        shards |= layout.files  # the children a split left without records were never written
        for marker in layout.markers:
            shards.pop(marker, None)
        known = Stored(shards, self._stored.split | layout.markers)
        stored = _StoredShards(None if self._stored.complete else read, known)
        return PublishedRecords(stored, tally=self.tally)

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
