"""What the site keeps of its articles, in files that stay small however large the blog grows
(under `.steadypress/` in the site, beside the pages, since they must change in the same write):

- `articles/XYZ.json`: each article's entry (its URL, images, redirects, page digest), in files
  by a hash of its path that split as they fill (`shardtree.py`);
- `urls/XYZ.json`: which articles use each page, image and redirect page, in files by a hash of
  the site path, split the same way (a URL has one owner; an image may serve several articles);
- `months/YYYY-MM.json`: the rows (`Listed`: what a listing shows) of a month's articles,
  which its archive page lists, each with 64 bits of its page's digest (a neighbour's page
  is made again from the content rather than read where that gives it); a month of more
  than `PART_ROWS` articles keeps them in parts instead (`parts.py`), each a range of dates
  (`months/YYYY-MM/N.json`), and this file names the parts and where each begins, so that a
  publish into a crowded month rewrites one part;
- `years/YYYY.json`: how many articles each month of a year has;
- `years.json`: the years that have articles (no counts: it changes when a year appears or
  goes, not with every article);
- `tags/TAG/YYYY.json`: the rows of a tag's articles in a year (in parts as a month's, past
  `PART_ROWS`: `tags/TAG/YYYY/N.json`), and `tags/TAG/years.json` how many each year has
  and, of each year in parts, its newest parts' numbers: a read-ahead hint (the tag's page
  reaches back into the years before for its `NEWEST`, and reads those parts with the
  year's file instead of after it), never where a row is looked up;
- `summary.json`: how many articles the site has, each tag's count and spellings, and the
  rows of the newest articles (the front page, the feed) with a digest of the text the feed
  shows of each;
- `look.json`: the look the site was last written with, and the commit it is of (`Styled`;
  a file of its own, read by every write, rewritten only when the look changes).

A publish reads the files of the articles it changes, of their months and tags and of their
neighbours, and writes back those it changed: never a file that grows with the number of
articles. `SiteIndex` reads each file once, when first wanted, and `flush` writes the changed.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, TypeVar

from steadypress import shardtree
from steadypress.targets.site.files import SiteWriter, unreadable
from steadypress.targets.site.manifest import (
    ENTRY_ONLY,
    Entry,
    Listed,
    page_fingerprint,
    page_path,
    tag_path,
)
from steadypress.targets.site.parts import (
    Part,
    chunked,
    newest_read,
    overfull,
    parts_of,
    repaged,
    start_json,
)
from steadypress.targets.site.summary import (
    INDEX_VERSION,
    SitemapsBehind,
    Styled,
    Summary,
    decoded,
    styled_from_json,
    styled_json,
)

__all__ = [
    "INDEX_FOLDER",
    "NEWEST",
    "STYLED",
    "SUMMARY",
    "YEARS",
    "Nav",
    "SiteIndex",
    "article_files",
    "index_files",
    "linked_as",
    "month_file",
    "month_of",
    "tag_year_file",
    "tag_years_file",
    "url_files",
    "uses",
    "year_file",
]

INDEX_FOLDER = ".steadypress"
_READABLE_VERSIONS = (3, INDEX_VERSION)  # the other files are the same in both
SUMMARY = f"{INDEX_FOLDER}/summary.json"
YEARS = f"{INDEX_FOLDER}/years.json"
STYLED = f"{INDEX_FOLDER}/look.json"
# How many articles the front page and the feed show: the newest, as blogs do.
NEWEST = 20
ARTICLES, URLS = f"{INDEX_FOLDER}/articles", f"{INDEX_FOLDER}/urls"

T = TypeVar("T")
# A date order after every row's: the rows before it are all of them, newest first.
_AFTER_ALL = (float("inf"), "")

# An article's older and newer neighbour, by date: (slug, title) of each, or (None, None).
Nav = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]


def _shard_of_file(path: str) -> tuple[str, str] | None:
    """(folder, name) of a file of articles or URLs; None for another file of the index."""
    for folder in (ARTICLES, URLS):
        if (name := shardtree.name_of(folder, path)) is not None:
            return folder, name
    return None


def article_files(path: str) -> list[str]:
    """The files that may hold an article's entry: a read asks for them all."""
    return [shardtree.file_of(ARTICLES, name) for name in shardtree.names(path)]


def url_files(site_path: str) -> list[str]:
    """The files that may name the articles using a site path."""
    return [shardtree.file_of(URLS, name) for name in shardtree.names(site_path)]


def month_of(entry: Listed) -> str:
    return f"{entry.date.year:04d}/{entry.date.month:02d}"


def month_file(month: str) -> str:
    return f"{INDEX_FOLDER}/months/{month.replace('/', '-')}.json"


def year_file(year: str) -> str:
    return f"{INDEX_FOLDER}/years/{year}.json"


def tag_year_file(tag_page: str, year: int) -> str:
    return f"{_tag_folder(tag_page)}/{year:04d}.json"


def tag_years_file(tag_page: str) -> str:
    return f"{_tag_folder(tag_page)}/years.json"


def _tag_folder(tag_page: str) -> str:
    """Where the index keeps a tag's files, by the tag's page (`tags/x/index.html`)."""
    return f"{INDEX_FOLDER}/tags/{tag_page.split('/')[1]}"


# What each kind of file holds, by the key of its section.
def _section_key(name: str) -> str:
    # By the folder from the index's root: a tag may be called `urls` or `years`.
    if name.startswith(f"{URLS}/"):
        return "urls"
    if name.startswith(f"{INDEX_FOLDER}/years/"):
        return "months"
    if name.endswith("/years.json"):
        return "years"
    return "articles"


def index_files(entries: Iterable[tuple[str, Entry]], *, latin: bool = False) -> set[str]:
    """The index's files that recording or removing these (path, entry) pairs reads, their
    tags on the pages `latin` names them by (`tag_path`)."""
    tag_page = functools.partial(tag_path, latin=latin)
    files = set()
    for path, entry in entries:
        files |= {*article_files(path), *_listings_of(entry, tag_page)}
        files |= {YEARS, year_file(f"{entry.date.year:04d}")}
        files |= {name for used in uses(entry) for name in url_files(used)}
        files |= {tag_years_file(page) for page in map(tag_page, entry.tags)}
    return files


def _order(entry: Listed) -> tuple[float, str]:
    """Date order, the slug breaking a tie: how neighbours and lists are ranked."""
    return (entry.date.timestamp(), entry.slug)


def linked_as(entry: Listed) -> tuple[float, str, str]:
    """Where an article stands among its neighbours and what their links to it show: a change
    to anything else of it leaves their pages as they are."""
    return (*_order(entry), entry.title)


def uses(entry: Entry) -> tuple[str, ...]:
    """The site paths an article's version uses: its page, its images, its redirect pages."""
    return (page_path(entry.slug), *entry.assets, *entry.aliases, *entry.moved)


class SiteIndex:
    """The site's record of its articles, read from and written to `files` a file at a time."""

    def __init__(
        self, files: SiteWriter, *, markers_read: set[str] | None = None, latin: bool = False
    ) -> None:
        """`markers_read`: split markers read from the site before (by an index of an earlier
        batch of the run), which this one adds those it reads to. A marker is never merged
        back, so one read once is one still; one this index makes is not added (the write
        that makes it may not land). `latin`: tags are on the pages that names them by
        (`tag_path`)."""
        self._files = files
        self._latin = latin
        self._documents: dict[str, dict[str, Any]] = {}  # file -> its section, as read
        self._markers_read = set() if markers_read is None else markers_read
        # Split markers (`shardtree.py`): those read, here or before, and those made here.
        self._split: set[str] = set(self._markers_read)
        self._dirty: set[str] = set()
        # listing file -> its rows, oldest first, and their date order keys
        self._parsed: dict[str, tuple[list[tuple[str, Listed]], list[tuple[float, str]]]] = {}
        self._read_summary: Summary | None = None  # read when first wanted (`verify` never)
        self._years: list[str] | None = None  # sorted; read when first wanted
        self._styled: Styled | None = None  # `look.json`, once `_styled_read`
        self._styled_read = False
        # Listings kept in parts: the listing's file -> its parts in date order (`Part`), and
        # each part's file -> the listing's.
        self._parts: dict[str, list[Part]] = {}
        self._listing_of: dict[str, str] = {}
        # Listing file -> its newest parts' numbers, as a tag's years file hints them (`want`).
        self._newest_hinted: dict[str, list[int]] = {}
        self._parts_read: dict[str, set[int]] = {}  # listing -> its parts read, by date order
        # Per listing in parts, the parts whose page changed as laid out (`repaged`).
        self._repaged: dict[str, set[int]] = {}
        # Per listing in parts, those that had no page of their own before (`unpaged`).
        self._unpaged: dict[str, set[int]] = {}
        # The writes of the listings laid out, in the order `flush` makes them: (file, its
        # bytes or None to remove it, whether it is new).
        self._laid_out: list[tuple[str, bytes | None, bool]] = []

    @property
    def exists(self) -> bool:
        """Whether the site has an index (an earlier layout, or a new site, has none)."""
        return self._files.exists(SUMMARY)

    @property
    def _summary(self) -> Summary:
        if self._read_summary is None:
            raw = self._files.read(SUMMARY)
            self._read_summary = (
                Summary()
                if raw is None
                else decoded(
                    SUMMARY,
                    functools.partial(Summary.from_json, file=SUMMARY),
                    self._parse(SUMMARY, raw, "tags"),
                )
            )
        return self._read_summary

    # -- reading ------------------------------------------------------------------------------

    def want(
        self,
        entries: Iterable[tuple[str, Entry]],
        *,
        texts: Iterable[str] = (),
        oids: Iterable[str] = (),
    ) -> None:
        """Fetch together the files that changing these (path, entry) pairs reads, `texts`,
        and the ids of `oids` (files about to be replaced or removed)."""
        entries = list(entries)
        wanted = {*index_files(entries, latin=self._latin), *texts}
        wanted |= {Part(name, number, None).file for name in wanted if not self._is_known(name)
                   for number in self._newest_hinted.get(name, ())}  # fmt: skip
        self._files.want(texts=sorted(wanted - self._documents.keys() - self._split), oids=oids)
        around: dict[str, list[tuple[float, str]]] = {}
        for _path, entry in entries:
            for listing in _listings_of(entry, self.tag_page):
                around.setdefault(listing, []).append(_order(entry))
        self._want_parts([name for name in wanted if _LISTING.fullmatch(name)], around)

    def _want_parts(
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
            self._known(listing)
            found = self._parts.get(listing)
            if not found:
                continue
            at = set(range(max(0, len(found) - newest), len(found)))
            for key in around.get(listing, ()):
                middle = _part_at(found, key)
                at.update(range(max(0, middle - 1), min(len(found), middle + 2)))
            parts += [found[number].file for number in sorted(at)]
            self._parts_read.setdefault(listing, set()).update(at)
        self._files.want(texts=[name for name in parts if name not in self._documents])

    def _section(self, name: str, key: str) -> dict[str, Any]:
        if name not in self._documents:
            self._load(name, key)
        return self._documents[name]

    def _load(self, name: str, key: str, *, split_allowed: bool = False) -> None:
        """Read a file into `_documents`, or into `_split` when it is a split marker (allowed
        for the files of articles and URLs only), or into `_parts` when it names the parts of
        a listing (allowed for a listing's own file only)."""
        raw = self._files.read(name)
        document = None if raw is None else self._parse(name, raw, key, split_allowed=split_allowed)
        if split_allowed and document is not None and _SPLIT in document:
            self._split.add(name)
            self._markers_read.add(name)
        elif document is not None and _is_tag_years(name) and _NEWEST_PARTS in document:
            self._documents[name] = document[key]
            hinted = decoded(name, _newest_parts, document[_NEWEST_PARTS])
            self._newest_hinted.update((_tag_year_beside(name, y), n) for y, n in hinted.items())
        elif document is not None and _PARTS in document:
            self._parts[name] = decoded(name, functools.partial(parts_of, name), document[_PARTS])
            self._listing_of.update((part.file, name) for part in self._parts[name])
        else:
            self._documents[name] = {} if document is None else document[key]

    def _known(self, listing: str) -> None:
        """A listing's own file read: its rows, or the parts it names."""
        if not self._is_known(listing):
            self._load(listing, "articles")

    def _is_known(self, listing: str) -> bool:
        return listing in self._documents or listing in self._parts

    def listing_parts(self, listing: str) -> list[int] | None:
        """The numbers of a listing's parts, in date order (None: its rows are in one file).
        Its listing page shows the newest; each other has a page of its own."""
        self._known(listing)
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
        self._known(listing)
        return [part.file for part in self._parts.get(listing, ())]

    def part_rows(self, listing: str, number: int) -> list[tuple[str, Listed]]:
        """The rows of one of a listing's parts, newest first; the others are not read."""
        part = next(part for part in self._parts[listing] if part.number == number)
        return self._sorted(part.file)[0][::-1]

    def repaged(self, listing: str) -> set[int]:
        """The parts of a listing whose own page (every part's but the newest's) laying them
        out changed: to be written, or removed when the part is gone or now the newest."""
        return set(self._repaged.get(listing, ()))

    def unpaged(self, listing: str) -> set[int]:
        """The parts of a listing that had no page of their own before it was laid out: the
        parts it made, and the one that was its newest (which the listing's page shows); a
        page of theirs is written without a look at what is there, and none is removed."""
        return set(self._unpaged.get(listing, ()))

    def _listing_files(self, listing: str) -> list[str]:
        """The files that hold a listing's rows, in date order: its own, or its parts."""
        return self.part_files(listing) or [listing]

    def _bounds(self, file: str) -> tuple[tuple[float, str], tuple[float, str]]:
        """The range of dates a listing's file holds: a part's, or every date."""
        listing = self._listing_of.get(file)
        parts = self._parts.get(listing or "", [])
        starts = [part.begins for part in parts]
        for number, part in enumerate(parts):
            if part.file == file:
                return starts[number], (starts[number + 1 :] or [(float("inf"), "")])[0]
        return (float("-inf"), ""), (float("inf"), "")

    def _listing_edit(self, listing: str, entry: Listed) -> dict[str, Any]:
        """The rows of the file of `listing` where `entry`'s row is (or goes), to change: the
        listing's own, or the part whose range of dates holds it."""
        self._known(listing)
        return self._edit(self._file_holding(listing, entry), "articles")

    def _file_holding(self, listing: str, entry: Listed) -> str:
        """The file of `listing` where `entry`'s row is or goes: the listing's own, or the
        part whose range of dates holds it (known once the listing's own file is read)."""
        parts = self._parts.get(listing)
        return listing if parts is None else parts[_part_at(parts, _order(entry))].file

    def _shard(self, folder: str, key: str) -> str:
        """The file of `folder` that holds `key`, its split markers read on the way."""
        leaf = shardtree.leaf(key, lambda name: self._is_split(shardtree.file_of(folder, name)))
        return shardtree.file_of(folder, leaf)

    def _is_split(self, name: str) -> bool:
        if name not in self._split and name not in self._documents:
            self._load(name, _section_key(name), split_allowed=True)
        return name in self._split

    @staticmethod
    def _parse(
        name: str, raw: bytes, key: str, kind: type = dict, *, split_allowed: bool = False
    ) -> dict[str, Any]:
        try:
            document = json.loads(raw)
            if split_allowed and document == _split_marker():
                return document  # type: ignore[no-any-return]
            if _LISTING.fullmatch(name) and set(document) == {"version", _PARTS}:
                if document["version"] != INDEX_VERSION or not isinstance(document[_PARTS], list):
                    raise ValueError(f"not a version {INDEX_VERSION} file of parts")
                return document  # type: ignore[no-any-return]
            if document.get("version") not in _READABLE_VERSIONS or not isinstance(
                document[key], kind
            ):
                raise ValueError(f"not a version {INDEX_VERSION} file with {key!r}")
            return document  # type: ignore[no-any-return]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise unreadable(name, error) from None

    def entry(self, path: str) -> Entry | None:
        name = self._shard(ARTICLES, path)
        fields = self._section(name, "articles").get(path)
        return None if fields is None else decoded(name, Entry.from_json, fields)

    def owners(self, site_path: str) -> list[str]:
        """The articles that use `site_path` (a page has one; an image may have several)."""
        return list(self._section(self._shard(URLS, site_path), "urls").get(site_path, []))

    def month(self, month: str) -> list[tuple[str, Listed]]:
        """The month's articles, newest first."""
        return self.listing(month_file(month))

    def listing(self, listing: str) -> list[tuple[str, Listed]]:
        """The rows of a listing (its file: `month_file`, `tag_year_file`), newest first: all
        of them, every part of a crowded one read (fetched together)."""
        files = self._listing_files(listing)
        self._files.want(texts=[name for name in files if name not in self._documents])
        return [row for file in reversed(files) for row in reversed(self._sorted(file)[0])]

    def newest_of(self, listing: str, count: int) -> list[tuple[str, Listed]]:
        """The newest `count` rows of a listing, newest first: of a crowded one, read from its
        newest part back only as far as they go."""
        return list(itertools.islice(self._rows_beside(listing, _AFTER_ALL, newer=False), count))

    def _sorted(self, file: str) -> tuple[list[tuple[str, Listed]], list[tuple[float, str]]]:
        """The (path, entry) rows of one file of a listing in date order, and their orders;
        parsed once until changed (a first build asks a month for the neighbours of each of
        its articles)."""
        if file not in self._parsed:
            rows = sorted(self._rows_in(file), key=lambda row: _order(row[1]))
            self._parsed[file] = (rows, [_order(entry) for _path, entry in rows])
        return self._parsed[file]

    def _rows_in(self, file: str) -> list[tuple[str, Listed]]:
        """The rows of one file of a listing that lie in its range of dates (a copy left
        outside its part's range is passed over)."""
        begins, end = self._bounds(file)
        rows = []
        for path, row in self._section(file, "articles").items():
            listed = decoded(file, Listed.from_json, row)
            if begins <= _order(listed) < end:
                rows.append((path, listed))
        return rows

    def _rows_beside(
        self, listing: str, key: tuple[float, str], *, newer: bool
    ) -> Iterator[tuple[str, Listed]]:
        """The rows of a listing after `key` (`newer`) or before it, nearest first: of a
        crowded one, read a part at a time from the part where `key` falls."""
        files = self._listing_files(listing)
        parts = self._parts.get(listing, [])
        at = _part_at(parts, key)
        for file in files[at:] if newer else reversed(files[: at + 1]):
            rows, orders = self._sorted(file)
            if newer:
                yield from rows[bisect.bisect_right(orders, key) :]
            else:
                yield from reversed(rows[: bisect.bisect_left(orders, key)])

    @property
    def years(self) -> list[str]:
        """The years that have articles, oldest first."""
        if self._years is None:
            listed = self._summary.legacy_years  # a version 3 summary names them itself
            if listed is None:
                raw = self._files.read(YEARS)
                listed = [] if raw is None else self._parse(YEARS, raw, "years", list)["years"]
            self._years = sorted(map(str, listed))
        return self._years

    def months(self, year: str) -> dict[str, int]:
        """How many articles each month (`YYYY/MM`) of `year` has."""
        counts = self._section(year_file(year), "months")
        return {f"{year}/{month}": int(n) for month, n in counts.items()}

    def _months_from(self, month: str, *, newer: bool) -> Iterator[str]:
        """The months that have articles, from `month` (included) on, towards the newer or the
        older; a year's month counts are read only when the search reaches it."""
        year = month.split("/", maxsplit=1)[0]
        years = sorted((y for y in self.years if (y > year) == newer or y == year),
                       reverse=not newer)  # fmt: skip
        for candidate in years:
            for found in sorted(self.months(candidate), reverse=not newer):
                if found == month or (found > month) == newer:
                    yield found

    @property
    def newest(self) -> list[tuple[str, Listed]]:
        return list(self._summary.newest)

    def newest_bodies(self) -> dict[str, str]:
        """Of the newest, the digest of the text the feed shows of each (path -> digest), where
        known (the target's `_body_digest`)."""
        return {path: self._summary.bodies[path] for path, _row in self._summary.newest
                if path in self._summary.bodies}  # fmt: skip

    def keep_bodies(self, bodies: Mapping[str, str]) -> None:
        """The digests of the newest's text in the feed as written (path -> digest), the
        others forgotten."""
        kept = {path: bodies[path] for path, _row in self._summary.newest if path in bodies}
        if kept != self._summary.bodies:
            self._summary.bodies = kept
            self._dirty.add(SUMMARY)

    @property
    def feed_id(self) -> str | None:
        """The feed's permanent id (`Summary.feed_id`)."""
        return self._summary.feed_id

    @feed_id.setter
    def feed_id(self, ident: str) -> None:
        self._summary.feed_id = ident
        self._dirty.add(SUMMARY)

    @property
    def extras(self) -> frozenset[str]:
        """The files written because a setting asks for them (`Summary.extras`)."""
        return self._summary.extras

    @extras.setter
    def extras(self, paths: frozenset[str]) -> None:
        if paths != self._summary.extras:
            self._summary.extras = paths
            self._dirty.add(SUMMARY)

    @property
    def pages(self) -> dict[str, tuple[str, datetime]]:
        """The pages beside the articles, by path: (slug, last change)."""
        return dict(self._summary.pages)

    @property
    def total(self) -> int:
        return self._summary.total

    @property
    def sitemaps(self) -> tuple[int, str] | None:
        """The layout of the site's sitemaps and the site address they name, as last written
        (a summary of the index's first version says nothing: layout 1, address unknown)."""
        return self._summary.sitemaps

    @sitemaps.setter
    def sitemaps(self, mark: tuple[int, str]) -> None:
        self._summary.sitemaps = mark
        self._dirty.add(SUMMARY)

    @property
    def sitemaps_absent(self) -> frozenset[str] | None:
        """Of the sitemaps laid out, those not there, as last written (None: not known)."""
        return self._summary.sitemaps_absent

    @sitemaps_absent.setter
    def sitemaps_absent(self, absent: frozenset[str] | None) -> None:
        if absent != self._summary.sitemaps_absent:
            self._summary.sitemaps_absent = absent
            self._dirty.add(SUMMARY)

    @property
    def stale(self) -> set[str]:
        """The listing pages left to be rendered by a later batch (`mark_stale`)."""
        return set(self._summary.stale)

    def mark_stale(self, pages: Iterable[str]) -> None:
        if not set(pages) <= self._summary.stale:
            self._summary.stale.update(pages)
            self._dirty.add(SUMMARY)

    def clear_stale(self) -> None:
        if self._summary.stale:
            self._summary.stale.clear()
            self._dirty.add(SUMMARY)

    @property
    def sitemaps_behind(self) -> SitemapsBehind | None:
        """What the sitemaps lack, when a batch left them to a later one (`SitemapsBehind`)."""
        return self._summary.sitemaps_behind

    @sitemaps_behind.setter
    def sitemaps_behind(self, behind: SitemapsBehind | None) -> None:
        if behind != self._summary.sitemaps_behind:
            self._summary.sitemaps_behind = behind
            self._dirty.add(SUMMARY)

    @property
    def styled(self) -> Styled | None:
        """The look the site was last written with (`Styled`); None: written by a steadypress
        that recorded none, or by a target with no history to order looks by."""
        if not self._styled_read:
            raw = self._files.read(STYLED)
            if raw is not None:
                self._styled = decoded(
                    STYLED, styled_from_json, self._parse(STYLED, raw, "look", list)
                )
            self._styled_read = True
        return self._styled

    @styled.setter
    def styled(self, styled: Styled) -> None:
        if styled != self.styled:
            self._styled = styled
            self._dirty.add(STYLED)

    @property
    def unflushed(self) -> bool:
        """Whether a change awaits `flush` (the look recorded, say)."""
        return bool(self._dirty)

    @property
    def tag_pages(self) -> list[str]:
        return list(self._summary.tags)

    def tag_years(self, tag_page: str) -> dict[int, int]:
        """How many articles of the tag each year has."""
        if tag_page not in self._summary.tags:
            return {}
        counts = self._section(tag_years_file(tag_page), "years")
        return {int(year): int(n) for year, n in counts.items()}

    def moved_from(self, owner: str, page: str) -> bool:
        """Whether `page` is where the article at `owner` was before its address changed: a
        redirect to it, which yields to an article that takes the address."""
        entry = self.entry(owner)
        return entry is not None and page in entry.moved

    def tag_page(self, spelling: str) -> str:
        """The page of the tag `spelling` now (`tag_path`, as the site's settings spell it)."""
        return tag_path(spelling, latin=self._latin)

    def tag_pages_of(self, spelling: str) -> set[str]:
        """The pages of the tag `spelling`: its page now (`tag_path`), and any the summary
        counts it on that was named otherwise when its articles were written (`новости` on
        `tags/tag/`), which they leave as they are published again."""
        return {self.tag_page(spelling), *self._pages_counting(spelling)}

    def _pages_counting(self, spelling: str) -> list[str]:
        """The tag pages the summary counts `spelling` on."""
        return [page for page, names in self._summary.names.items() if spelling in names]

    def _rows_held(self, path: str, entry: Entry) -> dict[str, str]:
        """The tag page each of the entry's tags has its row on: the one the summary counts
        the spelling on, or, when an earlier naming left it on two (articles moving to its
        page now one by one), the one whose year holds this article's row."""
        held = {}
        for spelling in entry.tags:
            pages = self._pages_counting(spelling)
            if len(pages) > 1:
                listings = [tag_year_file(page, entry.date.year) for page in pages]
                self._files.want(texts=listings)
                for listing in listings:
                    self._known(listing)  # its parts, if it is in parts
                pages = [
                    page for page, listing in zip(pages, listings, strict=True)
                    if path in self._section(self._file_holding(listing, entry), "articles")
                ]  # fmt: skip
            held[spelling] = pages[0] if pages else self.tag_page(spelling)
        return held

    def tag_spellings(self, tag_page: str) -> dict[str, int]:
        """How many articles spell the tag of `tag_page` each way."""
        return dict(self._summary.names.get(tag_page, {}))

    def tag_name(self, tag_page: str) -> str:
        """A tag page is named by the smallest spelling of its tag among its articles."""
        return min(self._summary.names[tag_page])

    def tag_count(self, tag_page: str) -> int:
        return self._summary.tags.get(tag_page, 0)

    def nav(self, path: str, entry: Listed) -> Nav:
        """The older and the newer article of `path` (at `entry`) as the index stands."""
        older, newer = (self._beside_row(path, entry, newer=side) for side in (False, True))
        return (
            (older[1].slug, older[1].title) if older else (None, None),
            (newer[1].slug, newer[1].title) if newer else (None, None),
        )

    def page_digest(self, path: str, entry: Listed) -> str | None:
        """What the row of `path` (at `entry`) in its month's file keeps of the digest of its
        page (`page_fingerprint`), where that file has been read; None where it has not, or
        was written before rows kept it. It reads nothing: reading the row would cost a read
        as the page's does."""
        row = self._documents.get(self._month_file_of(entry), {}).get(path)
        digest = row.get(_PAGE) if isinstance(row, dict) else None
        return digest if isinstance(digest, str) else None

    def keep_page_digest(self, path: str, entry: Listed, sha256: str) -> None:
        """Where the row of `path` (at `entry`) lacks its page's digest and its month's file is
        written anyway, keep `sha256`, the digest of its page as read: a row written before
        rows kept it gains it the first time its page is read, at no cost."""
        file = self._month_file_of(entry)
        rows = self._documents.get(file, {})
        row = rows.get(path)
        if file in self._dirty and isinstance(row, dict) and _PAGE not in row:
            rows[path] = {**row, _PAGE: page_fingerprint(sha256)}

    def _month_file_of(self, entry: Listed) -> str:
        """The file of its month's listing that holds the row of `entry`, where the month's
        file has been read (else the month's file, as if it held its rows)."""
        return self._file_holding(month_file(month_of(entry)), entry)

    def beside(self, path: str, entry: Listed) -> list[tuple[str, Listed]]:
        """The older and the newer article of `path` (at `entry`), as (path, entry) pairs."""
        found = []
        for newer in (False, True):
            row = self._beside_row(path, entry, newer=newer)
            if row is not None:
                found.append(row)
        return found

    def _beside_row(self, path: str, entry: Listed, *, newer: bool) -> tuple[str, Listed] | None:
        """The next article of the index in date order after (`newer`) or before `entry` (an
        article of the index, or a version just taken out of it): among the newest when it
        ranks among them (every newer one is there too), else in its month, else in the
        nearest month that has any."""
        key = _order(entry)
        pick = min if newer else max
        newest = self._summary.newest
        if newest and key >= _order(newest[-1][1]):
            side = [row for row in newest if row[0] != path and (_order(row[1]) > key) == newer]
            if side or newer or len(newest) == self.total:
                return pick(side, key=lambda row: _order(row[1])) if side else None
        for candidate in self._months_from(month_of(entry), newer=newer):
            for row in self._rows_beside(month_file(candidate), key, newer=newer):
                if row[0] != path:
                    return row
        return None

    # -- changing -----------------------------------------------------------------------------

    def put(self, path: str, entry: Entry | None) -> list[str]:
        """Record `entry` as the article at `path` (None: the article is gone); returns the
        site paths nobody uses any more (the old version's images and redirects, its page)."""
        old = self.entry(path)
        if old is not None:
            self._drop(path, old)
        if entry is not None:
            self._add(path, entry)
        return [used for used in (uses(old) if old else ()) if not self.owners(used)]

    def _edit(self, name: str, key: str) -> dict[str, Any]:
        self._dirty.add(name)
        self._parsed.pop(name, None)
        return self._section(name, key)

    def _drop(self, path: str, entry: Entry) -> None:
        del self._edit(self._shard(ARTICLES, path), "articles")[path]
        for used in uses(entry):
            urls = self._edit(self._shard(URLS, used), "urls")
            owners = [owner for owner in urls.get(used, []) if owner != path]
            if owners:
                urls[used] = owners
            else:
                urls.pop(used, None)
        if entry.is_page:
            del self._summary.pages[path]
            self._dirty.add(SUMMARY)
            return
        held = self._rows_held(path, entry)
        for listing in _listings_of(entry, held.__getitem__):
            self._listing_edit(listing, entry).pop(path, None)
        self._tally(entry, -1, held)
        self._summary.newest = [row for row in self._summary.newest if row[0] != path]
        self._summary.bodies.pop(path, None)
        self._dirty.add(SUMMARY)

    def _add(self, path: str, entry: Entry) -> None:
        self._edit(self._shard(ARTICLES, path), "articles")[path] = entry.to_json()
        listed = entry.listed
        row = _listing_row(listed)  # one document in every tag's year's file
        for used in uses(entry):
            urls = self._edit(self._shard(URLS, used), "urls")
            urls[used] = sorted({*urls.get(used, []), path})
        if entry.is_page:
            self._summary.pages[path] = (entry.slug, entry.updated)
            self._dirty.add(SUMMARY)
            return
        month, *tag_years = _listings_of(entry, self.tag_page)
        self._listing_edit(month, listed)[path] = {**row, _PAGE: page_fingerprint(entry.sha256)}
        for listing in tag_years:
            self._listing_edit(listing, listed)[path] = row
        self._tally(entry, 1)
        newest = sorted([*self._summary.newest, (path, listed)], key=lambda r: _order(r[1]))
        self._summary.newest = newest[::-1][:NEWEST]
        self._summary.bodies.pop(path, None)  # this version's, once the feed has its text
        self._dirty.add(SUMMARY)

    def _tally(self, entry: Entry, step: int, held: Mapping[str, str] | None = None) -> None:
        """The counts of the entry's year, month and tags, moved by `step`: on each tag's page
        now, or on the page `held` says its row was on."""
        year, month = month_of(entry).split("/")
        self._summary.total += step
        months = self._edit(year_file(year), "months")
        _count(months, month, step)
        if (year in self.years) != bool(months):
            self._years = sorted({*self.years} ^ {year})
            self._dirty.add(YEARS)
        pages = {
            spelling: (held or {}).get(spelling) or self.tag_page(spelling)
            for spelling in entry.tags
        }
        for page in dict.fromkeys(pages.values()):
            _count(self._summary.tags, page, step)
            _count(self._edit(tag_years_file(page), "years"), year, step)
            names = self._summary.names.setdefault(page, {})
            for spelling in entry.tags:
                if pages[spelling] == page:
                    _count(names, spelling, step)
            if not names:
                del self._summary.names[page]

    def refill_newest(self) -> None:
        """After a removal from the newest: the next ones, from the months (newest first). The
        months are not looked at otherwise: a back-dated publish reads nothing of the newest
        year."""
        have = {path for path, _entry in self._summary.newest}
        wanted = min(NEWEST, self.total)
        newest = max(self.years, default="0000")
        months = self._months_from(f"{newest}/99", newer=False) if len(have) < wanted else ()
        for month in months:
            if len(have) >= wanted:
                break
            for path, entry in self._rows_beside(month_file(month), _AFTER_ALL, newer=False):
                if len(have) >= wanted:
                    break
                if path not in have:
                    self._summary.newest.append((path, entry))
                    have.add(path)
        self._summary.newest = sorted(
            self._summary.newest, key=lambda row: _order(row[1]), reverse=True
        )[:NEWEST]

    def lay_out(self) -> None:
        """Decide where the rows changed so far go (a crowded listing's parts), writing
        nothing: the pages that list them are rendered from that (`part_rows`, `repaged`),
        and `flush` writes it."""
        listings = sorted({self._listing_of.get(name, name) for name in self._dirty
                           if _is_listing(name)})  # fmt: skip
        for listing in listings:
            self._lay_out_listing(listing)
        self._dirty = {name for name in self._dirty if not _is_listing(name)}

    def _whole(self, name: str) -> dict[str, Any] | None:
        """The document of a file written whole, not by sections (None: remove it)."""
        if name == SUMMARY:
            return self._summary.to_json()
        if name == STYLED:
            return None if self._styled is None else styled_json(self._styled)
        return {"version": INDEX_VERSION, "years": self.years} if self.years else None

    def flush(self) -> None:
        """Write every file a change touched (a file left empty is removed)."""
        if self._read_summary is not None and self._read_summary.legacy_years is not None:
            self._dirty.add(YEARS)  # the summary is written without them
        self.lay_out()
        for name, data, new in self._laid_out:
            if data is None:
                self._files.remove(name)
            else:
                self._files.put(name, data, unread=new)
        self._laid_out.clear()
        for name in sorted(self._dirty):
            if name in (SUMMARY, STYLED, YEARS):
                if (whole := self._whole(name)) is not None:
                    self._files.put(name, _dumps(whole))
                else:
                    self._files.remove(name)
                continue
            shard = _shard_of_file(name)
            if shard is not None and self._split_if_full(*shard):
                continue
            section = self._documents[name]
            if section:
                self._files.put(name, _dumps(self._document_of(name, section)))
            else:
                self._files.remove(name)
        self._dirty.clear()

    def _document_of(self, name: str, section: Mapping[str, Any]) -> dict[str, Any]:
        """A file of the index as written: its section, and a tag's years file its hint."""
        document = {"version": INDEX_VERSION, _section_key(name): section}
        if hinted := self._newest_parts_of(name, section):
            document[_NEWEST_PARTS] = hinted
        return document

    def _newest_parts_of(self, name: str, section: Mapping[str, Any]) -> dict[str, list[int]]:
        """For a tag's years file, the newest parts of each of its years in parts (as many as
        hold a tag page's `NEWEST` rows, most likely): as laid out where the year was read,
        else as the file hinted them (nothing but a write of the tag's years moves them)."""
        if not _is_tag_years(name):
            return {}
        hinted, newest = {}, newest_read(NEWEST)
        for year in section:
            listing = _tag_year_beside(name, year)
            if listing in self._parts:
                hinted[year] = [part.number for part in self._parts[listing][-newest:]]
            elif not self._is_known(listing) and listing in self._newest_hinted:
                hinted[year] = self._newest_hinted[listing]
        return hinted

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
            rows = _rows_only(self._documents[listing])
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
            chunks = chunked(_in_order(part.file, rows))
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
                more = Part(listing, number, _listed_order(part.file, row), start_json(row))
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
            document = {"version": INDEX_VERSION, _PARTS: [p.to_json() for p in laid_out]}
            self._laid_out.append((listing, _dumps(document), False))

    def _in_range(self, part: Part, rows: Mapping[str, Any]) -> dict[str, Any]:
        """The rows of `part` that lie in its range of dates (a write that died while a part
        split may have left copies of the rows it handed on)."""
        begins, end = self._bounds(part.file)
        return {
            path: row for path, row in rows.items() if begins <= _listed_order(part.file, row) < end
        }

    def _write_rows(self, name: str, rows: dict[str, Any], *, new: bool = False) -> None:
        self._documents[name] = rows
        self._parsed.pop(name, None)
        if rows:
            document = {"version": INDEX_VERSION, "articles": rows}
            self._laid_out.append((name, _dumps(document), new))
        elif not new:
            self._laid_out.append((name, None, False))

    def _split_if_full(self, folder: str, name: str) -> bool:
        """Whether a file of articles or URLs has grown too full and is written as deeper
        files and a split marker (`shardtree.py`)."""
        file = shardtree.file_of(folder, name)
        key = _section_key(file)
        markers, leaves = shardtree.split(name, self._documents[file])
        if not markers:
            return False
        # The deeper files cannot exist yet (`name` held their keys): written unread.
        for marker in sorted(markers):
            path = shardtree.file_of(folder, marker)
            self._files.put(path, _dumps(_split_marker()), unread=marker != name)
            self._split.add(path)
            self._documents.pop(path, None)
        for leaf, held in sorted(leaves.items()):
            path = shardtree.file_of(folder, leaf)
            self._documents[path] = held
            self._files.put(path, _dumps({"version": INDEX_VERSION, key: held}), unread=True)
        return True


def _part_at(parts: list[Part], key: tuple[float, str]) -> int:
    """Which of a listing's parts (in date order) a row of date order `key` falls in. Searched
    in place: a tag on every article of a blog of 10^5 has some 700 parts a year, and a first
    build asks for each of its articles."""
    return bisect.bisect_right(parts, key, lo=1, key=lambda part: part.begins) - 1


def _listings_of(entry: Entry, tag_page: Callable[[str], str]) -> list[str]:
    """The listings an entry is a row of: its month's, and each of its tags' year's (each tag
    on the page `tag_page` gives: the index's, for rows written when it was another)."""
    pages = dict.fromkeys(map(tag_page, entry.tags))
    return [month_file(month_of(entry)), *(tag_year_file(page, entry.date.year) for page in pages)]


def _is_listing(name: str) -> bool:
    """Whether a file of the index is a month's or a tag's year's: rows, not entries."""
    months, tags = f"{INDEX_FOLDER}/months/", f"{INDEX_FOLDER}/tags/"
    return name.startswith(months) or (name.startswith(tags) and not _is_tag_years(name))


def _is_tag_years(name: str) -> bool:
    """Whether a file of the index is a tag's `years.json` (its count of each year)."""
    return name.startswith(f"{INDEX_FOLDER}/tags/") and name.endswith("/years.json")


def _tag_year_beside(tag_years: str, year: str) -> str:
    """The file of a tag's year (`tag_year_file`), named from the tag's `years.json`."""
    return f"{tag_years.removesuffix('years.json')}{year}.json"


# What a month's and a tag's year's rows leave out: what only an article's own file needs, and
# the summary made of its text, which only the feed shows, of the newest (the summary's rows
# keep it): two thirds of a row, which a publish reads and writes some thirty of.
_NOT_LISTED = ENTRY_ONLY | {"summary"}


def _listing_row(listed: Listed) -> dict[str, Any]:
    """An article's row in a month's and a tag's year's files."""
    return {key: value for key, value in listed.to_json().items() if key not in _NOT_LISTED}


def _rows_only(section: dict[str, Any]) -> dict[str, Any]:
    """A listing's rows as written, what a listing written before rows were slimmed holds
    beyond them left out (once: the next write finds none)."""
    if not any(_NOT_LISTED & row.keys() for row in section.values()):
        return section
    return {path: {k: v for k, v in row.items() if k not in _NOT_LISTED}
            for path, row in section.items()}  # fmt: skip


# A month's row's digest of the article's page: where its neighbours' pages are made again
# rather than read (`SiteTarget._relink`). A tag's rows have none: no page links by tags.
_PAGE = "page"
_SPLIT = "split"
_PARTS = "parts"
_NEWEST_PARTS = "newest_parts"
# A listing's own file: a month's or a tag's year's (their parts are in a folder beside it).
_LISTING = re.compile(
    rf"{re.escape(INDEX_FOLDER)}/(months/\d{{4}}-\d{{2}}|tags/[^/]+/\d{{4}})\.json"
)


def _listed_order(name: str, row: Mapping[str, Any]) -> tuple[float, str]:
    return _order(decoded(name, Listed.from_json, row))


def _in_order(name: str, rows: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A file's rows as written, in date order."""
    return sorted(_rows_only(dict(rows)).items(), key=lambda row: _listed_order(name, row[1]))


def _newest_parts(document: Any) -> dict[str, list[int]]:
    """A tag's years file's hint: year -> the numbers of its newest parts."""
    if not isinstance(document, Mapping):
        raise TypeError(f"{_NEWEST_PARTS} is not an object")
    if not all(isinstance(numbers, list) for numbers in document.values()):
        raise TypeError(f"{_NEWEST_PARTS} names a year's parts by other than a list")
    return {f"{int(year):04d}": [int(n) for n in numbers] for year, numbers in document.items()}


def _split_marker() -> dict[str, Any]:
    """What a file of articles or URLs holds once it has split (`shardtree.py`)."""
    return {"version": INDEX_VERSION, _SPLIT: True}


def _count(counts: dict[str, int], key: str, step: int) -> None:
    counts[key] = counts.get(key, 0) + step
    if counts[key] <= 0:
        del counts[key]


def _dumps(document: Mapping[str, Any]) -> bytes:
    """Keys sorted, and each article, URL or month on a line of its own: the Pages branch's
    diffs read well."""
    parts = []
    for key, value in sorted(document.items()):
        if isinstance(value, Mapping) and value:
            rows = ",\n".join(f"  {_json(k)}: {_json(v)}" for k, v in sorted(value.items()))
            parts.append(f"{_json(key)}: {{\n{rows}\n }}")
        elif isinstance(value, list) and value:
            rows = ",\n".join(f"  {_json(item)}" for item in value)
            parts.append(f"{_json(key)}: [\n{rows}\n ]")
        else:
            parts.append(f"{_json(key)}: {_json(value)}")
    return ("{" + ",\n ".join(parts) + "}\n").encode()


# One encoder for every row: `json.dumps` with options builds one a call, a third of its cost
# for the thousands of small rows a first build writes.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def _json(value: Any) -> str:
    return _ENCODER.encode(value)
