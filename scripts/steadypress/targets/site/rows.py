"""The rows of the site index's listings (a month's, a tag's year's), as a write sees them:
in the listing's own file while they are few, else in parts of a range of dates each
(`parts.py`), read as far as a write needs, laid out again where its changes fall; and which
parts of a tag's years are its newest, the hint its years file keeps (`NewestParts`)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.indexfiles import (
    AFTER_ALL,
    NEWEST,
    PARTS,
    date_order,
    dumps,
    in_order,
    is_listing,
    is_tag_years,
    listed_order,
    newest_parts,
    part_at,
    rows_only,
    tag_year_beside,
)
from steadypress.targets.site.manifest import Listed
from steadypress.targets.site.parts import (
    Part,
    chunked,
    newest_read,
    overfull,
    parts_of,
    repaged,
    start_json,
)
from steadypress.targets.site.summary import INDEX_VERSION, decoded

__all__ = ["ListingRows", "NewestParts"]


class ListingRows:
    """The rows of the index's listings, kept in the index's own documents (`documents`: file
    -> its section, as read; `dirty`: the files changed): where a listing's rows are, which of
    its parts a write read, and which parts' pages its changes move (`repaged`)."""

    def __init__(
        self,
        files: SiteWriter,
        documents: dict[str, dict[str, Any]],
        dirty: set[str],
        *,
        section: Callable[[str, str], dict[str, Any]],
        load: Callable[[str, str], None],
    ) -> None:
        """`section` gives a file's section (read when first asked); `load` reads a file into
        the documents (or, for a listing's file naming its parts, into `take`)."""
        self._files = files
        self._documents = documents
        self._dirty = dirty
        self._section = section
        self._load = load
        # listing file -> its rows, oldest first, and their date order keys
        self._parsed: dict[str, tuple[list[tuple[str, Listed]], list[tuple[float, str]]]] = {}
        # Listings kept in parts: the listing's file -> its parts in date order (`Part`), and
        # each part's file -> the listing's.
        self._parts: dict[str, list[Part]] = {}
        self._listing_of: dict[str, str] = {}
        self.hints = NewestParts(self._parts, self.is_known)
        self._parts_read: dict[str, set[int]] = {}  # listing -> its parts read, by date order
        # Per listing in parts, the parts whose page changed as laid out (`repaged`).
        self._repaged: dict[str, set[int]] = {}
        # Per listing in parts, those that had no page of their own before (`unpaged`).
        self._unpaged: dict[str, set[int]] = {}
        # The writes of the listings laid out, in the order `flush` makes them: (file, its
        # bytes or None to remove it, whether it is new).
        self._laid_out: list[tuple[str, bytes | None, bool]] = []

    def take(self, name: str, document: Mapping[str, Any]) -> None:
        """A listing's own file read that names its parts (`parts.py`)."""
        self._parts[name] = decoded(name, lambda found: parts_of(name, found), document[PARTS])
        self._listing_of.update((part.file, name) for part in self._parts[name])

    def forget(self, name: str) -> None:
        """The rows of `name` as parsed, forgotten: it changes."""
        self._parsed.pop(name, None)

    def take_laid_out(self) -> list[tuple[str, bytes | None, bool]]:
        """The writes the listings laid out make, in their order, handed over once."""
        laid_out, self._laid_out = self._laid_out, []
        return laid_out

    def known(self, listing: str) -> None:
        """A listing's own file read: its rows, or the parts it names."""
        if not self.is_known(listing):
            self._load(listing, "articles")

    def is_known(self, listing: str) -> bool:
        return listing in self._documents or listing in self._parts

    def want_parts(
        self, listings: Iterable[str], around: Mapping[str, list[tuple[float, str]]]
    ) -> None:
        """Fetch together, of these listings kept in parts (their own files are read for it),
        the parts a write and its pages read: the newest (the listing's page shows it, and with
        the ones before it, most likely, the tag's page its `NEWEST`), and the part where each
        date order `around` names for the listing falls, with the parts beside it (the
        articles beside one may be there). Not the others: a crowded year of a tag has
        hundreds. (A part missed is read when wanted: a request more, never a row less.)"""
        parts, newest = [], newest_read(NEWEST)
        for listing in listings:
            self.known(listing)
            found = self._parts.get(listing)
            if not found:
                continue
            at = set(range(max(0, len(found) - newest), len(found)))
            for key in around.get(listing, ()):
                middle = part_at(found, key)
                at.update(range(max(0, middle - 1), min(len(found), middle + 2)))
            parts += [found[number].file for number in sorted(at)]
            self._parts_read.setdefault(listing, set()).update(at)
        self._files.want(texts=[name for name in parts if name not in self._documents])

    def listing_parts(self, listing: str) -> list[int] | None:
        """The numbers of a listing's parts, in date order (None: its rows are in one file).
        Its listing page shows the newest; each other has a page of its own."""
        self.known(listing)
        parts = self._parts.get(listing)
        return None if parts is None else [part.number for part in parts]

    def older_parts_read(self, listing: str) -> list[int]:
        """The numbers of those of a listing's parts but its newest that the write read (`want`):
        where its changes fall and the parts beside them, whose pages laying it out rewrites."""
        found = self._parts.get(listing, [])
        return [found[at].number for at in sorted(self._parts_read.get(listing, ()))
                if at < len(found) - 1]  # fmt: skip

    def part_files(self, listing: str) -> list[str]:
        """The files of a listing's parts (none while its rows are in one file)."""
        self.known(listing)
        return [part.file for part in self._parts.get(listing, ())]

    def part_rows(self, listing: str, number: int) -> list[tuple[str, Listed]]:
        """The rows of one of a listing's parts, newest first; the others are not read."""
        part = next(part for part in self._parts[listing] if part.number == number)
        return self.sorted_rows(part.file)[0][::-1]

    def repaged(self, listing: str) -> set[int]:
        """The parts of a listing whose own page (every part's but the newest's) laying them
        out changed: to be written, or removed when the part is gone or now the newest."""
        return set(self._repaged.get(listing, ()))

    def unpaged(self, listing: str) -> set[int]:
        """The parts of a listing that had no page of their own before it was laid out: the
        parts it made, and the one that was its newest (which the listing's page shows); a
        page of theirs is written without a look at what is there, and none is removed."""
        return set(self._unpaged.get(listing, ()))

    def files_of(self, listing: str) -> list[str]:
        """The files that hold a listing's rows, in date order: its own, or its parts."""
        return self.part_files(listing) or [listing]

    def bounds(self, file: str) -> tuple[tuple[float, str], tuple[float, str]]:
        """The range of dates a listing's file holds: a part's, or every date."""
        listing = self._listing_of.get(file)
        parts = self._parts.get(listing or "", [])
        starts = [part.begins for part in parts]
        for number, part in enumerate(parts):
            if part.file == file:
                return starts[number], (starts[number + 1 :] or [(float("inf"), "")])[0]
        return (float("-inf"), ""), (float("inf"), "")

    def edit(self, listing: str, entry: Listed) -> dict[str, Any]:
        """The rows of the file of `listing` where `entry`'s row is (or goes), to change: the
        listing's own, or the part whose range of dates holds it."""
        self.known(listing)
        name = self.file_holding(listing, entry)
        self._dirty.add(name)
        self.forget(name)
        return self._section(name, "articles")

    def file_holding(self, listing: str, entry: Listed) -> str:
        """The file of `listing` where `entry`'s row is or goes: the listing's own, or the
        part whose range of dates holds it (known once the listing's own file is read)."""
        parts = self._parts.get(listing)
        return listing if parts is None else parts[part_at(parts, date_order(entry))].file

    def listing(self, listing: str) -> list[tuple[str, Listed]]:
        """The rows of a listing (its file: `month_file`, `tag_year_file`), newest first: all
        of them, every part of a crowded one read (fetched together)."""
        files = self.files_of(listing)
        self._files.want(texts=[name for name in files if name not in self._documents])
        return [row for file in reversed(files) for row in reversed(self.sorted_rows(file)[0])]

    def newest_of(self, listing: str, count: int) -> list[tuple[str, Listed]]:
        """The newest `count` rows of a listing, newest first: of a crowded one, read from its
        newest part back only as far as they go."""
        return list(itertools.islice(self.beside(listing, AFTER_ALL, newer=False), count))

    def sorted_rows(self, file: str) -> tuple[list[tuple[str, Listed]], list[tuple[float, str]]]:
        """The (path, entry) rows of one file of a listing in date order, and their orders;
        parsed once until changed (a first build asks a month for the neighbours of each of
        its articles)."""
        if file not in self._parsed:
            rows = sorted(self._rows_in(file), key=lambda row: date_order(row[1]))
            self._parsed[file] = (rows, [date_order(entry) for _path, entry in rows])
        return self._parsed[file]

    def _rows_in(self, file: str) -> list[tuple[str, Listed]]:
        """The rows of one file of a listing that lie in its range of dates (a copy left
        outside its part's range is passed over)."""
        begins, end = self.bounds(file)
        rows = []
        for path, row in self._section(file, "articles").items():
            listed = decoded(file, Listed.from_json, row)
            if begins <= date_order(listed) < end:
                rows.append((path, listed))
        return rows

    def beside(
        self, listing: str, key: tuple[float, str], *, newer: bool
    ) -> Iterator[tuple[str, Listed]]:
        """The rows of a listing after `key` (`newer`) or before it, nearest first: of a
        crowded one, read a part at a time from the part where `key` falls."""
        self.known(listing)
        parts = self._parts.get(listing, [])
        at = part_at(parts, key)
        # The parts' files taken as they are reached, not listed first: a first build asks for
        # the neighbours of each article, and a crowded listing has hundreds of parts.
        steps = range(at, len(parts)) if newer else range(at, -1, -1)
        files = (parts[step].file for step in steps) if parts else [listing]
        for file in files:
            rows, orders = self.sorted_rows(file)
            if newer:
                yield from rows[bisect.bisect_right(orders, key) :]
            else:
                yield from reversed(rows[: bisect.bisect_left(orders, key)])

    def lay_out(self) -> None:
        """Decide where the rows changed so far go (a crowded listing's parts), writing
        nothing: the pages that list them are rendered from that (`part_rows`, `repaged`),
        and `flush` writes it."""
        listings = sorted({self._listing_of.get(name, name) for name in self._dirty
                           if is_listing(name)})  # fmt: skip
        for listing in listings:
            self._lay_out_listing(listing)
        self._dirty.difference_update([name for name in self._dirty if is_listing(name)])

    def _lay_out_listing(self, listing: str) -> None:
        """Lay out a listing's changed rows: into its own file while they are few; past
        `PART_ROWS`, into parts of a range of dates each, a full part handing its last rows
        to new ones and an emptied part going, and its own file naming the parts when they
        changed. A part is never merged back (as a split marker is not).

        New parts are to be written first, then the listing's own file, then the parts it had:
        a local write that dies in between leaves every row where a reader finds it (a row a
        part holds outside its range is a copy left behind, which `_rows` passes over)."""
        parts = self._parts.get(listing)
        before = [part.number for part in parts or ()]
        if parts is None:
            rows = rows_only(self._documents[listing])
            if not overfull(len(rows)):
                self._write_rows(listing, rows)
                return
            del self._documents[listing]
            parts = self._parts[listing] = []
            first = Part(listing, 1, None)
            self._listing_of[first.file] = listing
            changed = [(first, rows, True)]
        else:
            changed = [(part, self._in_range(part, self._documents[part.file]), False)
                       for part in parts if part.file in self._dirty]  # fmt: skip
        kept = {part.number: part for part in parts}
        numbers = {*kept, *(part.number for part, _rows, _new in changed)}
        rewritten: list[tuple[str, dict[str, Any]]] = []
        for part, rows, new in changed:
            chunks = chunked(in_order(part.file, rows))
            if new:  # a part no reader knows yet: written before the listing's file names it
                self._write_rows(part.file, dict(chunks[0]), new=True)
            else:
                rewritten.append((part.file, dict(chunks[0])))
            if chunks[0]:
                kept[part.number] = part
            else:
                kept.pop(part.number, None)
            for chunk in chunks[1:]:
                number = max(numbers) + 1
                numbers.add(number)
                row = chunk[0][1]
                more = Part(listing, number, listed_order(part.file, row), start_json(row))
                kept[number] = more
                self._listing_of[more.file] = listing
                self._write_rows(more.file, dict(chunk), new=True)
        after = sorted(kept.values(), key=lambda part: part.begins)
        self._name_parts(listing, after)
        for name, rows in rewritten:
            self._write_rows(name, rows)
        written = {part.number for part, _rows, _new in changed}
        pages = repaged(before, [part.number for part in after], written)
        self._repaged.setdefault(listing, set()).update(pages)
        made = {part.number for part in after} - {*before}
        self._unpaged.setdefault(listing, set()).update({*made, *before[-1:]})

    def _name_parts(self, listing: str, laid_out: list[Part]) -> None:
        """The listing's own file written again when its parts (in date order) changed: the
        first from the beginning, and no file at all once none is left."""
        if laid_out and laid_out[0].start is not None:
            laid_out[0] = Part(listing, laid_out[0].number, None)
        if not laid_out:
            del self._parts[listing]
            self._documents[listing] = {}  # known empty: not read again before the flush
            self._listing_of = {k: v for k, v in self._listing_of.items() if v != listing}
            self._laid_out.append((listing, None, False))
        elif laid_out != self._parts[listing]:
            self._parts[listing] = laid_out
            document = {"version": INDEX_VERSION, PARTS: [p.to_json() for p in laid_out]}
            self._laid_out.append((listing, dumps(document), False))

    def _in_range(self, part: Part, rows: Mapping[str, Any]) -> dict[str, Any]:
        """The rows of `part` that lie in its range of dates (a write that died while a part
        split may have left copies of the rows it handed on)."""
        begins, end = self.bounds(part.file)
        return {
            path: row for path, row in rows.items() if begins <= listed_order(part.file, row) < end
        }

    def _write_rows(self, name: str, rows: dict[str, Any], *, new: bool = False) -> None:
        self._documents[name] = rows
        self._parsed.pop(name, None)
        if rows:
            document = {"version": INDEX_VERSION, "articles": rows}
            self._laid_out.append((name, dumps(document), new))
        elif not new:
            self._laid_out.append((name, None, False))


class NewestParts:
    """The newest parts of each year of a tag kept in parts, as many as hold a tag page's
    `NEWEST` rows, which the tag's years file names (a read-ahead hint: the tag's page reaches
    back into the years before for its newest, and reads those parts with the year's file
    instead of after it), never where a row is looked up."""

    def __init__(self, parts: Mapping[str, list[Part]], known: Callable[[str], bool]) -> None:
        """`parts`: each listing's parts as laid out (`ListingRows`); `known`: whether a
        listing's own file has been read."""
        self._parts = parts
        self._known = known
        # Listing file -> its newest parts' numbers, as a tag's years file hints them.
        self._hinted: dict[str, list[int]] = {}

    def take(self, name: str, hinted: Any) -> None:
        """A tag's years file read with the newest parts of its years in parts."""
        found = decoded(name, newest_parts, hinted)
        self._hinted.update((tag_year_beside(name, y), n) for y, n in found.items())

    def files(self, names: Iterable[str]) -> set[str]:
        """Of these files, the newest parts of those listings not read yet that a tag's years
        file hinted: asked with them."""
        return {Part(name, number, None).file for name in names if not self._known(name)
                for number in self._hinted.get(name, ())}  # fmt: skip

    def of(self, name: str, section: Mapping[str, Any]) -> dict[str, list[int]]:
        """For a tag's years file, the newest parts of each of its years in parts: as laid
        out where the year was read, else as the file hinted them (nothing but a write of the
        tag's years moves them)."""
        if not is_tag_years(name):
            return {}
        hinted, newest = {}, newest_read(NEWEST)
        for year in section:
            listing = tag_year_beside(name, year)
            if listing in self._parts:
                hinted[year] = [part.number for part in self._parts[listing][-newest:]]
            elif not self._known(listing) and listing in self._hinted:
                hinted[year] = self._hinted[listing]
        return hinted
