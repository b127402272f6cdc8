"""The site index's files as read and as about to be written (`index.py` says what each holds):
each read once, when first wanted, and kept as its section; the files of articles and URLs
found through their split markers, in the layout the summary says (`shard_layouts`); the rows
of a tag's years kept in its `years.json` while its page lists them all (`ROWS`); and
`flush`, which writes those a change touched, splitting a file of articles or URLs grown too
full."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from steadypress import shardtree
from steadypress.targets.site.files import SiteWriter, unreadable
from steadypress.targets.site.indexfiles import (
    ARTICLES,
    LISTING,
    NAMES,
    NEWEST_FILE,
    NEWEST_PARTS,
    PARTS,
    READABLE_VERSIONS,
    ROWS,
    SPLIT,
    STYLED,
    SUMMARY,
    YEARS,
    article_files,
    dumps,
    is_tag_years,
    listed_whole,
    packed_rows,
    section_key,
    shard_layouts,
    shard_of_file,
    split_marker,
    tag_year_beside,
    tag_years_of,
    url_files,
)
from steadypress.targets.site.rows import ListingRows
from steadypress.targets.site.summary import (
    INDEX_VERSION,
    NEWEST_FILE_SINCE,
    Summary,
    decoded,
    spelling_counts,
)

__all__ = ["IndexDocuments", "KeysRead"]

# Bytes a split marker never reaches (`{"split": true, "version": 4}` and a newline): a larger
# file of articles or URLs is a leaf, parsed only when its entries are wanted.
_SMALL = 64


class KeysRead:
    """The keys of the files of articles and URLs a run has parsed, each with a digest of the
    bytes it had: the same bytes met again (the files do not change while a run's batches leave
    their entries unfiled) say which keys they hold without being parsed. Keys, not entries:
    at 10^5 articles the entries of every file were 150 MB, their keys some 15."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[bytes, frozenset[str]]] = {}

    def get(self, name: str, digest: bytes) -> frozenset[str] | None:
        held = self._held.get(name)
        return held[1] if held is not None and held[0] == digest else None

    def keep(self, name: str, digest: bytes, section: Mapping[str, Any]) -> None:
        self._held[name] = (digest, frozenset(section))


class IndexDocuments:
    """The index's files in `files`, by path: each one's section as read (`documents`), the
    split markers, the listings' rows (`rows`, over the same documents), the summary, and
    those a change touched (`dirty`)."""

    def __init__(
        self,
        files: SiteWriter,
        *,
        markers_read: set[str] | None = None,
        keys_read: KeysRead | None = None,
    ) -> None:
        """`markers_read`: split markers read from the site before (by an index of an earlier
        batch of the run), which these add those they read to. A marker is never merged back,
        so one read once is one still; one made here is not added (the write that makes it
        may not land). `keys_read`: the keys of the files of articles and URLs the run has
        parsed (`lacks`)."""
        self._files = files
        self.documents: dict[str, dict[str, Any]] = {}  # file -> its section, as read
        # Files of articles and URLs read and not parsed yet (`lacks`), by path.
        self._unparsed: dict[str, bytes] = {}
        self._keys_read = KeysRead() if keys_read is None else keys_read
        self._markers_read = set() if markers_read is None else markers_read
        # Split markers (`shardtree.py`): those read, here or before, and those made here.
        self._split: set[str] = set(self._markers_read)
        self.dirty: set[str] = set()
        self.rows = ListingRows(
            files, self.documents, self.dirty, section=self.section, load=self._load
        )
        self._summary: Summary | None = None  # read when first wanted (`verify` never)
        # Of the tags' `years.json` read, those that count their tag's spellings (`NAMES`).
        self._spellings: dict[str, dict[str, int]] = {}
        # Of the tags' `years.json` read, those that hold their years' rows (`ROWS`), and
        # those of a tag the site had not (a new tag's rows go there first).
        self._packed: set[str] = set()
        # The files of a tag's year read from the site (a tag whose rows go into its
        # `years.json` has them removed).
        self._year_files_there: set[str] = set()

    @property
    def summary(self) -> Summary:
        """The summary, `summary.json` and `newest.json` together (the callers want both)."""
        if self._summary is None:
            raw = self._files.read(SUMMARY)
            if raw is None:
                self._summary = Summary()
            else:
                document = self.parse(SUMMARY, raw, "tags")
                newest = None
                if document["version"] >= NEWEST_FILE_SINCE:
                    raw_newest = self._files.read(NEWEST_FILE)
                    if raw_newest is not None:
                        newest = self.parse(NEWEST_FILE, raw_newest, "newest", list)
                read = functools.partial(Summary.from_json, newest=newest, file=SUMMARY)
                self._summary = decoded(SUMMARY, read, document)
        return self._summary

    @property
    def summary_read(self) -> bool:
        return self._summary is not None

    def want(self, wanted: Iterable[str], oids: Iterable[str]) -> None:
        """Fetch together the files `wanted` not read yet, and the ids of `oids`."""
        unread = set(wanted) - self.documents.keys() - self._unparsed.keys() - self._split
        self._files.want(texts=sorted(unread), oids=oids)

    def section(self, name: str, key: str) -> dict[str, Any]:
        if name not in self.documents:
            if (raw := self._unparsed.pop(name, None)) is not None:
                self.documents[name] = self.parse(name, raw, key)[key]
            else:
                self._load(name, key)
        return self.documents[name]

    def lacks(self, name: str, key: str) -> bool:
        """Whether the file of articles or URLs `name` (a leaf, `shard`) does not hold `key`,
        known without parsing it where the run parsed the same bytes before: a first build's
        every new article is looked up, to learn it is not there, in a file that holds more
        as the blog grows (at 10^5 the parsing was the one part of a build's CPU that grew
        faster than the articles)."""
        raw = self._unparsed.get(name)
        # SHA-256 runs on the CPU's SHA instructions where it has them (most x86 and ARM
        # servers): 2.4 times BLAKE2's speed here on 10 KB, a file's size at 10^5.
        digest = None if raw is None else hashlib.sha256(raw).digest()
        if digest is not None and (held := self._keys_read.get(name, digest)) is not None:
            return key not in held
        section = self.section(name, section_key(name))
        if digest is not None:
            self._keys_read.keep(name, digest, section)
        return key not in section

    def edit(self, name: str, key: str) -> dict[str, Any]:
        """A file's section, to change: it is written by the next `flush`."""
        self.dirty.add(name)
        self.rows.forget(name)
        return self.section(name, key)

    def _load(self, name: str, key: str, *, split_allowed: bool = False) -> None:
        """Read a file into `documents`, or into the split markers when it is one (allowed
        for the files of articles and URLs only), or into `rows` when it names the parts of a
        listing (allowed for a listing's own file only)."""
        if (years := tag_years_of(name)) is not None:
            self.section(years, "years")  # which may hold this year's rows
            if name in self.documents:
                return
            if years in self._packed:
                self.documents[name] = {}  # a year new to a tag whose rows its years file holds
                return
        raw = self._files.read(name)
        if split_allowed and raw is not None and len(raw) > _SMALL:  # not a split marker
            self._unparsed[name] = raw
            return
        document = None if raw is None else self.parse(name, raw, key, split_allowed=split_allowed)
        if years is not None and document is not None:
            self._year_files_there.add(name)
        if split_allowed and document is not None and SPLIT in document:
            self._split.add(name)
            self._markers_read.add(name)
        elif is_tag_years(name):
            self._load_tag_years(name, document)
        elif document is not None and PARTS in document:
            self.rows.take(name, document)
        else:
            self.documents[name] = {} if document is None else document[key]

    def _load_tag_years(self, name: str, document: Mapping[str, Any] | None) -> None:
        """A tag's `years.json` read (None: a tag new to the site), with the rows of its years
        where it holds them."""
        if document is None:
            self.documents[name] = {}
            self._packed.add(name)
            return
        self.documents[name] = document["years"]
        if NEWEST_PARTS in document:
            self.rows.hints.take(name, document[NEWEST_PARTS])
        if NAMES in document:
            self._spellings[name] = decoded(name, spelling_counts, document[NAMES])
        if ROWS in document:
            self._packed.add(name)
            for year, rows in decoded(name, packed_rows, document[ROWS]).items():
                self.documents[tag_year_beside(name, year)] = rows

    def spellings(self, tag_years: str) -> dict[str, int] | None:
        """How many articles spell a tag each way, from its `years.json` (None: it names no
        spellings, its tag being spelt one way)."""
        self.section(tag_years, "years")
        found = self._spellings.get(tag_years)
        return None if found is None else dict(found)

    def keep_spellings(self, tag_years: str, counts: Mapping[str, int] | None) -> None:
        """Record the spellings of a tag in its `years.json` (None: none, its tag being spelt
        one way or gone)."""
        if self.spellings(tag_years) != counts:
            self.edit(tag_years, "years")
            if counts:
                self._spellings[tag_years] = dict(counts)
            else:
                self._spellings.pop(tag_years, None)

    def shard(self, folder: str, key: str) -> str:
        """The file of `folder` that holds `key`, its split markers read on the way: as the
        index's layout files it (`shard_layouts`, which the summary says), or, before the
        summary is read, the first of the key's files that holds records, in either layout
        (a read of what the index holds, `verify`, reads no summary for it)."""
        if self._summary is None:
            for name in (article_files if folder == ARTICLES else url_files)(key):
                if not self._is_split(name) and self.section(name, section_key(name)):
                    return name
        layout = self._layouts[folder]
        leaf = layout.leaf(key, lambda name: self._is_split(shardtree.file_of(folder, name)))
        return shardtree.file_of(folder, leaf)

    @property
    def _layouts(self) -> dict[str, shardtree.Layout]:
        return shard_layouts(first=self.summary.first_shards)

    def _is_split(self, name: str) -> bool:
        if name not in self._split and name not in self.documents and name not in self._unparsed:
            self._load(name, section_key(name), split_allowed=True)
        return name in self._split

    @staticmethod
    def parse(
        name: str, raw: bytes, key: str, kind: type = dict, *, split_allowed: bool = False
    ) -> dict[str, Any]:
        try:
            document = json.loads(raw)
            if split_allowed and document == split_marker():
                return document  # type: ignore[no-any-return]
            if LISTING.fullmatch(name) and set(document) == {"version", PARTS}:
                if document["version"] != INDEX_VERSION or not isinstance(document[PARTS], list):
                    raise ValueError(f"not a version {INDEX_VERSION} file of parts")
                return document  # type: ignore[no-any-return]
            if document.get("version") not in READABLE_VERSIONS or not isinstance(
                document[key], kind
            ):
                raise ValueError(f"not a version {INDEX_VERSION} file with {key!r}")
            return document  # type: ignore[no-any-return]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise unreadable(name, error) from None

    def flush(self, whole: Callable[[str], dict[str, Any] | None]) -> None:
        """Write every file a change touched (a file left empty is removed); `whole` gives
        the document of a file written whole, not by sections (None: remove it)."""
        self.rows.lay_out()
        self._write_listings(self.rows.take_laid_out())
        for name in sorted(self.dirty):
            if name in (SUMMARY, NEWEST_FILE, STYLED, YEARS):
                if (document := whole(name)) is not None:
                    self._files.put(name, dumps(document))
                else:
                    self._files.remove(name)
                continue
            self._write(name)
        self.dirty.clear()

    def write_out(self, name: str) -> None:
        """A file of articles or URLs a change touched, written now and its section forgotten
        (read back from the write if wanted again): filing a run's unfiled entries touches
        nearly every such file of a large index, and all of them held at once were the whole
        index in memory (150 MB at 10^5 articles)."""
        if shard_of_file(name) is None:
            raise ValueError(f"{name} is not a file of articles or URLs")
        for written in (name, *self._write(name)):
            self.documents.pop(written, None)
        self.dirty.discard(name)

    def _write(self, name: str) -> list[str]:
        """A file a change touched written from its section (removed when empty); or, for a
        file of articles or URLs grown too full, as deeper files: those are returned."""
        shard = shard_of_file(name)
        if shard is not None and (leaves := self._split_if_full(*shard)) is not None:
            return leaves
        if section := self.documents[name]:
            self._files.put(name, dumps(self._document_of(name, section)))
        else:
            self._files.remove(name)
        return []

    def _write_listings(self, laid_out: list[tuple[str, bytes | None, bool]]) -> None:
        """Write the listings' files as laid out (`ListingRows.lay_out`), but those of a tag
        whose rows its years file holds; and the files of the years of each tag whose rows
        move out of it or into it."""
        moved = self._repack({tag_years_of(name) for name, _data, _new in laid_out})
        writes = [
            (name, data, new) for name, data, new in laid_out
            if name not in moved and (tag := tag_years_of(name)) not in self._packed
            # a file of a tag's year that never was on the site is not removed
            and not (tag is not None and data is None and name not in self._year_files_there)
        ]  # fmt: skip
        for name, data, new in [*writes, *((name, data, True) for name, data in moved.items())]:
            if data is None:
                self._files.remove(name)
            else:
                self._files.put(name, data, unread=new)

    def _repack(self, changed: set[str | None]) -> dict[str, bytes | None]:
        """Where the rows of each tag this change touched go (`changed`: the years files of
        those whose rows it laid out, beside those whose counts it moved): into its
        `years.json` while its page lists them all (`listed_whole`) and every one of them was
        read, else into a file a year. Returns the files of its years that moving them out of the
        years file writes, or moving them in removes (None)."""
        tags = {name for name in changed if name is not None}
        tags |= {name for name in self.dirty if is_tag_years(name)}
        moved: dict[str, bytes | None] = {}
        for tag in sorted(tags):
            counts = self.documents.get(tag, {})
            files = [tag_year_beside(tag, year) for year in counts]
            fits = listed_whole(sum(map(int, counts.values())))
            if fits and all(name in self.documents for name in files):
                if tag not in self._packed:
                    there = [name for name in self._year_files_there if tag_years_of(name) == tag]
                    moved |= dict.fromkeys(sorted(there))
                    self._packed.add(tag)
                self.dirty.add(tag)
            elif tag in self._packed:
                self._packed.discard(tag)
                for name in files:
                    if rows := self.documents.get(name):
                        moved[name] = dumps({"version": INDEX_VERSION, "articles": rows})
                self.dirty.add(tag)
        return moved

    def _document_of(self, name: str, section: Mapping[str, Any]) -> dict[str, Any]:
        """A file of the index as written: its section, and a tag's years file its hint, its
        spellings and, while it holds them, its years' rows."""
        document = {"version": INDEX_VERSION, section_key(name): section}
        if hinted := self.rows.hints.of(name, section):
            document[NEWEST_PARTS] = hinted
        if spellings := self._spellings.get(name):
            document[NAMES] = spellings
        if name in self._packed:
            rows = {year: self.documents.get(tag_year_beside(name, year)) for year in section}
            document[ROWS] = {year: held for year, held in rows.items() if held}
        return document

    def _split_if_full(self, folder: str, name: str) -> list[str] | None:
        """Where a file of articles or URLs that has grown too full is written as deeper
        files and a split marker (`shardtree.py`): the deeper files; None while it is not."""
        file = shardtree.file_of(folder, name)
        key = section_key(file)
        markers, leaves = self._layouts[folder].split(name, self.documents[file])
        if not markers:
            return None
        # The deeper files cannot exist yet (`name` held their keys): written unread.
        for marker in sorted(markers):
            path = shardtree.file_of(folder, marker)
            self._files.put(path, dumps(split_marker()), unread=marker != name)
            self._split.add(path)
            self.documents.pop(path, None)
        written = []
        for leaf, held in sorted(leaves.items()):
            path = shardtree.file_of(folder, leaf)
            self.documents[path] = held
            self._files.put(path, dumps({"version": INDEX_VERSION, key: held}), unread=True)
            written.append(path)
        return written
