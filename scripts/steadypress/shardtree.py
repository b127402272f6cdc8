"""Records filed by a hash of their key, in files that split as they fill.

A fixed number of files grows with the records: 4,096 files of a blog of 10^5 articles hold
some 24 records each, and every write of one record rewrites the other 23. Here a file starts
as one of 4,096, named by the first three hex digits of its keys' hash (`c9d`); when a write
leaves it with more than `SPLIT_ABOVE` records, it becomes a split marker and its records move
to files one digit longer (`c9d0` ... `c9df`), so a file holds a few records at any size. A
name's file is in a folder per digit past the third (`c9d/0.json`, `file_of`), so that no folder
holds more than 4,096 files and 4,096 folders. The state's published records and the site's
index of articles and URLs are kept this way.

A key's file is found without knowing the layout: of its names (`c9d`, `c9d7`, `c9d7e`), the
first that is not a split marker. A reader asks for all of them together (one request); one
that does not exist costs nothing, and a marker a few bytes. Markers are never merged back: a
blog that shrinks keeps its deeper files, which are then smaller still.

That is the layout of the state's records. Another tree may begin shallower, with fewer
files holding more records each (`Layout`: the site's index of articles begins with 256 files
of up to 64): its shallow files sit beside the others (`c9.json` by `c9d.json`), so a reader
asking for a key's every name from the shallowest finds it in either layout.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

__all__ = [
    "BASE_DIGITS",
    "MAX_DIGITS",
    "SPLIT_ABOVE",
    "Layout",
    "children",
    "digest",
    "file_of",
    "leaf",
    "name_of",
    "names",
    "split",
]

BASE_DIGITS = 3  # 4,096 files to begin with
MAX_DIGITS = 5  # 16**5 files: a file splits no further (a blog of 10^7 articles fills them)
# Records in a file before it splits: a write reads and rewrites the whole file of each record it
# changes, and at 16 the files of a blog of some 60,000 articles held 15 each, which took a
# pushed article past 150 KB there (156.7 KB; 139.8 KB at 4).
SPLIT_ABOVE = 4

V = TypeVar("V")


@functools.lru_cache(maxsize=1 << 16)
def digest(key: str) -> str:
    """The stable hash of a key that names its file (a key that is not UTF-8, a file name with
    its bytes escaped, is hashed by its bytes). Kept for the keys seen last: a first build of
    1,000 articles asked for 24,000 digests (each read and write of a key finds its file
    again)."""
    import hashlib  # noqa: PLC0415 - OpenSSL's library, loaded once a key is looked up

    data = key.encode("utf-8", "surrogateescape")
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def file_of(folder: str, name: str) -> str:
    """The file of a name in `folder`: `folder/c9d.json`, a deeper one `folder/c9d/f.json`, a
    shallower one `folder/c9.json`."""
    base, deeper = name[:BASE_DIGITS], name[BASE_DIGITS:]
    return "/".join([folder, base, *deeper]) + ".json"


_HEX = re.compile(r"[0-9a-f]+")


def children(name: str) -> list[str]:
    """The files one digit longer than `name`, where its records go when it splits."""
    return [f"{name}{digit:x}" for digit in range(16)]


@dataclass(frozen=True)
class Layout:
    """A tree's files: its shallowest names `base` digits long, and a file split when a
    write leaves it with more than `split_above` records."""

    base: int
    split_above: int

    def names(self, key: str) -> list[str]:
        """Every file `key` can be in, shallowest first: a reader asks for them all at once."""
        hashed = digest(key)
        return [hashed[:digits] for digits in range(self.base, MAX_DIGITS + 1)]

    def name_of(self, folder: str, path: str) -> str | None:
        """The name of a file of `folder` (`file_of`), or None for any other path."""
        if not path.startswith(f"{folder}/") or not path.endswith(".json"):
            return None
        base, *deeper = path[len(folder) + 1 : -len(".json")].split("/")
        name = base + "".join(deeper)
        shallow = len(base) < BASE_DIGITS and not deeper
        if not (len(base) == BASE_DIGITS or shallow) or any(len(d) != 1 for d in deeper):
            return None
        fits = self.base <= len(name) <= MAX_DIGITS
        return name if fits and _HEX.fullmatch(name) else None

    def leaf(self, key: str, is_split: Callable[[str], bool]) -> str:
        """The file that holds `key`, `is_split` telling which files are split markers."""
        candidates = self.names(key)
        return next((name for name in candidates[:-1] if not is_split(name)), candidates[-1])

    def split(
        self, name: str, records: Mapping[str, V], hashed: Callable[[str], str] = digest
    ) -> tuple[set[str], dict[str, dict[str, V]]]:
        """How a file holding `records` is written: the files that become split markers
        (none while it is small enough), and the records of each file that holds some.
        `hashed`: the digest that files a record's key (the state files several keys under
        one article's)."""
        if len(records) <= self.split_above or len(name) >= MAX_DIGITS:
            return set(), {name: dict(records)} if records else {}
        children: dict[str, dict[str, V]] = {}
        for key, record in records.items():
            children.setdefault(hashed(key)[: len(name) + 1], {})[key] = record
        markers = {name}
        leaves: dict[str, dict[str, V]] = {}
        for child, held in children.items():
            deeper, written = self.split(child, held, hashed)
            markers |= deeper
            leaves |= written
        return markers, leaves


def _state() -> Layout:
    # Read when asked, as a test lays out a small tree by setting the constants.
    return Layout(BASE_DIGITS, SPLIT_ABOVE)


def name_of(folder: str, path: str) -> str | None:
    """The name of a file of the state's `folder` (`file_of`), or None for any other path."""
    return _state().name_of(folder, path)


def names(key: str) -> list[str]:
    """Every file of the state `key` can be in, shallowest first."""
    return _state().names(key)


def leaf(key: str, is_split: Callable[[str], bool]) -> str:
    """The state's file that holds `key` (`Layout.leaf`)."""
    return _state().leaf(key, is_split)


def split(
    name: str, records: Mapping[str, V], hashed: Callable[[str], str] = digest
) -> tuple[set[str], dict[str, dict[str, V]]]:
    """How a state's file holding `records` is written (`Layout.split`)."""
    return _state().split(name, records, hashed)
