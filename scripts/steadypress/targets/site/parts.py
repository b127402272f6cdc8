"""A crowded listing's rows in parts, each a range of dates (the site's index, `index.py`).

A month's or a tag's year's rows are one file of the index while they are few; past `PART_ROWS`
they are kept in parts, in a folder named as the listing's file (`months/2026-01/3.json`),
and the listing's file names the parts and where each begins. A part that grows past
`PART_ROWS` keeps its first `PART_KEEP` rows and hands the rest to new parts (rows mostly
arrive at the end, the newest, so a part is left three quarters full); a part emptied goes,
and parts never merge back. The listing's page shows its newest part and every other part has
a page of its own (`listings.py`): `repaged` says which of those a change of the parts moves.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from steadypress.timefmt import parse_time

__all__ = [
    "PART_KEEP",
    "PART_ROWS",
    "Part",
    "chunked",
    "newest_read",
    "overfull",
    "parts_of",
    "repaged",
    "start_json",
]

# A listing holds this many rows in one file (or a part) at most: a push into a crowded
# listing rewrites a part and its page of up to this many, so it is what the push costs in
# bytes (64 made a November push with one tag on everything 200 KB; 32 makes it 153 KB), and
# a page of two dozen articles or so is what a blog's archive shows at once.
PART_ROWS = 32
PART_KEEP = PART_ROWS * 3 // 4

T = TypeVar("T")


@dataclass(frozen=True)
class Part:
    """A part of a crowded listing: its file is numbered `number` in a folder named as the
    listing's file, and it holds the rows from `start` (a row's date order) to the next
    part's; the first part's start is None, from the beginning."""

    listing: str
    number: int
    start: tuple[float, str] | None
    spelt: list[str] | None = field(default=None, compare=False)  # `start` as written

    @functools.cached_property
    def file(self) -> str:  # asked for each row a write files in a crowded listing
        return f"{self.listing.removesuffix('.json')}/{self.number}.json"

    @property
    def begins(self) -> tuple[float, str]:
        """Its start, the first part's before every row."""
        return (float("-inf"), "") if self.start is None else self.start

    def to_json(self) -> dict[str, Any]:
        return {"part": self.number, **({} if self.spelt is None else {"from": self.spelt})}


def overfull(rows: int) -> bool:
    """Whether a listing's file of this many rows is kept in parts instead."""
    return rows > PART_ROWS


def chunked(ordered: Sequence[T]) -> list[list[T]]:
    """A file's rows in date order as they are written: one chunk while they fit, else chunks
    of `PART_KEEP`, the first staying in the file and each other going to a new part."""
    if len(ordered) <= PART_ROWS:
        return [list(ordered)]
    return [list(ordered[n : n + PART_KEEP]) for n in range(0, len(ordered), PART_KEEP)]


def start_json(row: Mapping[str, Any]) -> list[str]:
    """Where a part that begins with `row` begins, as its listing's file names it."""
    return [str(row["date"]), str(row["slug"])]


def parts_of(listing: str, document: Any) -> list[Part]:
    """The parts a listing's file names, checked: numbered, in date order, the first from the
    beginning (a file edited by hand that says otherwise could lose rows, so it is refused)."""
    parts = []
    for item in document:
        spelt = item.get("from")
        start = None if spelt is None else (parse_time(spelt[0]).timestamp(), str(spelt[1]))
        if set(item) - {"part", "from"} or type(item["part"]) is not int or item["part"] < 1:
            raise ValueError(f"not a part: {item!r}")
        parts.append(Part(listing, item["part"], start, spelt=spelt))
    starts = [part.begins for part in parts]
    if (
        not parts
        or parts[0].start is not None
        or any(p.start is None for p in parts[1:])
        or starts != sorted(starts)
    ):
        raise ValueError("parts must begin with one from the beginning, the rest in date order")
    if len({part.number for part in parts}) != len(parts):
        raise ValueError("two parts have one number")
    return parts


def repaged(before: list[int], after: list[int], written: set[int]) -> set[int]:
    """The parts whose page is written or removed when a listing's parts go from `before` to
    `after` (in date order), those in `written` with new rows. Every part but the newest has
    a page (the listing's own page shows the newest), linking the pages beside it: a page is
    written when its rows, or the parts beside it, changed or it appears, and removed when its
    part went or became the newest."""

    def beside(order: list[int], number: int) -> tuple[int | None, int | None]:
        at = order.index(number)  # the newer one is the listing's own page (None) if newest
        return (order[at - 1] if at else None), (order[at + 1] if at + 2 < len(order) else None)

    had, has = set(before[:-1]), set(after[:-1])
    return (had - has) | {
        number
        for number in has
        if number in written or number not in had or beside(before, number) != beside(after, number)
    }


def newest_read(rows: int) -> int:
    """How many of its newest parts most likely hold a listing's `rows` newest rows: every
    part but the newest holds `PART_KEEP` or so, once split off."""
    return -(-rows // PART_KEEP) + 1
