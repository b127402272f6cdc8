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
Where each file is and what it is written as is `indexfiles.py`'s; the listings' rows, in one
file or in parts, `rows.py`'s (`ListingRows`, over the same documents).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from steadypress import shardtree
from steadypress.targets.site.files import SiteWriter, unreadable
from steadypress.targets.site.indexfiles import (
    AFTER_ALL,
    ARTICLES,
    INDEX_FOLDER,
    LISTING,
    NEWEST,
    NEWEST_PARTS,
    PAGE,
    PARTS,
    READABLE_VERSIONS,
    SPLIT,
    STYLED,
    SUMMARY,
    URLS,
    YEARS,
    article_files,
    date_order,
    dumps,
    is_tag_years,
    listing_row,
    listings_of,
    month_file,
    month_of,
    section_key,
    shard_layouts,
    shard_of_file,
    split_marker,
    tag_year_file,
    tag_years_file,
    url_files,
    year_file,
)
from steadypress.targets.site.manifest import (
    Entry,
    Listed,
    page_fingerprint,
    page_path,
    tag_path,
)
from steadypress.targets.site.rows import ListingRows
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
    "ARTICLES",
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

# An article's older and newer neighbour, by date: (slug, title) of each, or (None, None).
Nav = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]


def index_files(entries: Iterable[tuple[str, Entry]], *, latin: bool = False) -> set[str]:
    """The index's files that recording or removing these (path, entry) pairs reads, their
    tags on the pages `latin` names them by (`tag_path`)."""
    tag_page = functools.partial(tag_path, latin=latin)
    files = set()
    for path, entry in entries:
        files |= {*article_files(path), *listings_of(entry, tag_page)}
        files |= {YEARS, year_file(f"{entry.date.year:04d}")}
        files |= {name for used in uses(entry) for name in url_files(used)}
        files |= {tag_years_file(page) for page in map(tag_page, entry.tags)}
    return files


def linked_as(entry: Listed) -> tuple[float, str, str]:
    """Where an article stands among its neighbours and what their links to it show: a change
    to anything else of it leaves their pages as they are."""
    return (*date_order(entry), entry.title)


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
        self.rows = ListingRows(
            files, self._documents, self._dirty, section=self._section, load=self._load
        )
        self._read_summary: Summary | None = None  # read when first wanted (`verify` never)
        self._years: list[str] | None = None  # sorted; read when first wanted
        self._styled: Styled | None = None  # `look.json`, once `_styled_read`
        self._styled_read = False
        # The name of each tag whose last article went in this index's changes, by its page:
        # its files named after it (Hugo's term feeds) go with the page.
        self._gone_names: dict[str, str] = {}

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
        wanted |= self.rows.hinted_files(wanted)
        self._files.want(texts=sorted(wanted - self._documents.keys() - self._split), oids=oids)
        around: dict[str, list[tuple[float, str]]] = {}
        for _path, entry in entries:
            for listing in listings_of(entry, self.tag_page):
                around.setdefault(listing, []).append(date_order(entry))
        self.rows.want_parts([name for name in wanted if LISTING.fullmatch(name)], around)

    def _section(self, name: str, key: str) -> dict[str, Any]:
        if name not in self._documents:
            self._load(name, key)
        return self._documents[name]

    def _load(self, name: str, key: str, *, split_allowed: bool = False) -> None:
        """Read a file into `_documents`, or into `_split` when it is a split marker (allowed
        for the files of articles and URLs only), or into `rows` when it names the parts of a
        listing (allowed for a listing's own file only)."""
        raw = self._files.read(name)
        document = None if raw is None else self._parse(name, raw, key, split_allowed=split_allowed)
        if split_allowed and document is not None and SPLIT in document:
            self._split.add(name)
            self._markers_read.add(name)
        elif document is not None and is_tag_years(name) and NEWEST_PARTS in document:
            self._documents[name] = document[key]
            self.rows.hint(name, document[NEWEST_PARTS])
        elif document is not None and PARTS in document:
            self.rows.take(name, document)
        else:
            self._documents[name] = {} if document is None else document[key]

    def _shard(self, folder: str, key: str) -> str:
        """The file of `folder` that holds `key`, its split markers read on the way: as the
        index's layout files it (`shard_layouts`, which the summary says), or, before the
        summary is read, the first of the key's files that holds records, in either layout
        (a read of what the index holds, `verify`, reads no summary for it)."""
        if self._read_summary is None:
            for name in (article_files if folder == ARTICLES else url_files)(key):
                if not self._is_split(name) and self._documents[name]:
                    return name
        layout = self._shard_layouts[folder]
        leaf = layout.leaf(key, lambda name: self._is_split(shardtree.file_of(folder, name)))
        return shardtree.file_of(folder, leaf)

    @property
    def _shard_layouts(self) -> dict[str, shardtree.Layout]:
        return shard_layouts(first=self._summary.first_shards)

    def _is_split(self, name: str) -> bool:
        if name not in self._split and name not in self._documents:
            self._load(name, section_key(name), split_allowed=True)
        return name in self._split

    @staticmethod
    def _parse(
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

    def entry(self, path: str) -> Entry | None:
        name = self._shard(ARTICLES, path)
        fields = self._section(name, "articles").get(path)
        return None if fields is None else decoded(name, Entry.from_json, fields)

    def owners(self, site_path: str) -> list[str]:
        """The articles that use `site_path` (a page has one; an image may have several)."""
        return list(self._section(self._shard(URLS, site_path), "urls").get(site_path, []))

    def month(self, month: str) -> list[tuple[str, Listed]]:
        """The month's articles, newest first."""
        return self.rows.listing(month_file(month))

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
    def term_feeds(self) -> tuple[str, ...]:
        """The taxonomies whose term feeds each tag has (`Summary.term_feeds`)."""
        return self._summary.term_feeds

    @term_feeds.setter
    def term_feeds(self, taxonomies: tuple[str, ...]) -> None:
        if taxonomies != self._summary.term_feeds:
            self._summary.term_feeds = taxonomies
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
                    self.rows.known(listing)  # its parts, if it is in parts
                pages = [
                    page for page, listing in zip(pages, listings, strict=True)
                    if path in self._section(self.rows.file_holding(listing, entry), "articles")
                ]  # fmt: skip
            held[spelling] = pages[0] if pages else self.tag_page(spelling)
        return held

    def tag_spellings(self, tag_page: str) -> dict[str, int]:
        """How many articles spell the tag of `tag_page` each way."""
        return dict(self._summary.names.get(tag_page, {}))

    def tag_name(self, tag_page: str) -> str:
        """A tag page is named by the smallest spelling of its tag among its articles."""
        return min(self._summary.names[tag_page])

    def gone_tag_name(self, tag_page: str) -> str | None:
        """The name of a tag whose last article went in this index's changes (None: another
        page, or one gone before)."""
        return self._gone_names.get(tag_page)

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
        digest = row.get(PAGE) if isinstance(row, dict) else None
        return digest if isinstance(digest, str) else None

    def keep_page_digest(self, path: str, entry: Listed, sha256: str) -> None:
        """Where the row of `path` (at `entry`) lacks its page's digest and its month's file is
        written anyway, keep `sha256`, the digest of its page as read: a row written before
        rows kept it gains it the first time its page is read, at no cost."""
        file = self._month_file_of(entry)
        rows = self._documents.get(file, {})
        row = rows.get(path)
        if file in self._dirty and isinstance(row, dict) and PAGE not in row:
            rows[path] = {**row, PAGE: page_fingerprint(sha256)}

    def _month_file_of(self, entry: Listed) -> str:
        """The file of its month's listing that holds the row of `entry`, where the month's
        file has been read (else the month's file, as if it held its rows)."""
        return self.rows.file_holding(month_file(month_of(entry)), entry)

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
        key = date_order(entry)
        pick = min if newer else max
        newest = self._summary.newest
        if newest and key >= date_order(newest[-1][1]):
            side = [row for row in newest if row[0] != path and (date_order(row[1]) > key) == newer]
            if side or newer or len(newest) == self.total:
                return pick(side, key=lambda row: date_order(row[1])) if side else None
        for candidate in self._months_from(month_of(entry), newer=newer):
            for row in self.rows.beside(month_file(candidate), key, newer=newer):
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
        self.rows.forget(name)
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
        for listing in listings_of(entry, held.__getitem__):
            self.rows.edit(listing, entry).pop(path, None)
        self._tally(entry, -1, held)
        self._summary.newest = [row for row in self._summary.newest if row[0] != path]
        self._summary.bodies.pop(path, None)
        self._dirty.add(SUMMARY)

    def _add(self, path: str, entry: Entry) -> None:
        self._edit(self._shard(ARTICLES, path), "articles")[path] = entry.to_json()
        listed = entry.listed
        row = listing_row(listed)  # one document in every tag's year's file
        for used in uses(entry):
            urls = self._edit(self._shard(URLS, used), "urls")
            urls[used] = sorted({*urls.get(used, []), path})
        if entry.is_page:
            self._summary.pages[path] = (entry.slug, entry.updated)
            self._dirty.add(SUMMARY)
            return
        month, *tag_years = listings_of(entry, self.tag_page)
        self.rows.edit(month, listed)[path] = {**row, PAGE: page_fingerprint(entry.sha256)}
        for listing in tag_years:
            self.rows.edit(listing, listed)[path] = row
        self._tally(entry, 1)
        newest = sorted([*self._summary.newest, (path, listed)], key=lambda r: date_order(r[1]))
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
            named = min(names, default=None)
            for spelling in entry.tags:
                if pages[spelling] == page:
                    _count(names, spelling, step)
            if not names:
                del self._summary.names[page]
                if named is not None:
                    self._gone_names[page] = named

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
            for path, entry in self.rows.beside(month_file(month), AFTER_ALL, newer=False):
                if len(have) >= wanted:
                    break
                if path not in have:
                    self._summary.newest.append((path, entry))
                    have.add(path)
        self._summary.newest = sorted(
            self._summary.newest, key=lambda row: date_order(row[1]), reverse=True
        )[:NEWEST]

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
        self.rows.lay_out()
        for name, data, new in self.rows.take_laid_out():
            if data is None:
                self._files.remove(name)
            else:
                self._files.put(name, data, unread=new)
        for name in sorted(self._dirty):
            if name in (SUMMARY, STYLED, YEARS):
                if (whole := self._whole(name)) is not None:
                    self._files.put(name, dumps(whole))
                else:
                    self._files.remove(name)
                continue
            shard = shard_of_file(name)
            if shard is not None and self._split_if_full(*shard):
                continue
            section = self._documents[name]
            if section:
                self._files.put(name, dumps(self._document_of(name, section)))
            else:
                self._files.remove(name)
        self._dirty.clear()

    def _document_of(self, name: str, section: Mapping[str, Any]) -> dict[str, Any]:
        """A file of the index as written: its section, and a tag's years file its hint."""
        document = {"version": INDEX_VERSION, section_key(name): section}
        if hinted := self.rows.newest_parts_of(name, section):
            document[NEWEST_PARTS] = hinted
        return document

    def _split_if_full(self, folder: str, name: str) -> bool:
        """Whether a file of articles or URLs has grown too full and is written as deeper
        files and a split marker (`shardtree.py`)."""
        file = shardtree.file_of(folder, name)
        key = section_key(file)
        markers, leaves = self._shard_layouts[folder].split(name, self._documents[file])
        if not markers:
            return False
        # The deeper files cannot exist yet (`name` held their keys): written unread.
        for marker in sorted(markers):
            path = shardtree.file_of(folder, marker)
            self._files.put(path, dumps(split_marker()), unread=marker != name)
            self._split.add(path)
            self._documents.pop(path, None)
        for leaf, held in sorted(leaves.items()):
            path = shardtree.file_of(folder, leaf)
            self._documents[path] = held
            self._files.put(path, dumps({"version": INDEX_VERSION, key: held}), unread=True)
        return True


def _count(counts: dict[str, int], key: str, step: int) -> None:
    counts[key] = counts.get(key, 0) + step
    if counts[key] <= 0:
        del counts[key]
