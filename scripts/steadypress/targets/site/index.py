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
  (the tag's count is their sum), where the tag is spelt more ways than one how many
  articles spell it each way, and, of each year in parts, its newest parts' numbers: a
  read-ahead hint (the tag's page reaches back into the years before for its `NEWEST`, and
  reads those parts with the year's file instead of after it), never where a row is looked
  up;
- `summary.json`: the tag pages and each one's spellings, the sitemaps' layout, the pages
  beside the articles, the feed's id (`Summary`): read by every write, rewritten only when
  one of them changes, never by a whole site's count;
- `newest.json`: how many articles the site has, and the rows of the newest (the front page,
  the feed) with a digest of the text the feed shows of each: what nearly every article
  changes;
- `look.json`: the look the site was last written with, and the commit it is of (`Styled`;
  a file of its own, read by every write, rewritten only when the look changes);
- `unfiled/NAME.json`: entries of articles and URLs a run's batches left for its last write
  to file (`unfiled.py`), which the summary names; a lookup reads them first.

A publish reads the files of the articles it changes, of their months and tags and of their
neighbours, and writes back those it changed: never a file that grows with the number of
articles. `SiteIndex` says what the files hold and how a change moves them; `IndexDocuments`
(`indexdocuments.py`) reads each file once, when first wanted, and writes those changed.
Where each file is and what it is written as is `indexfiles.py`'s; the listings' rows, in one
file or in parts, `rows.py`'s (`ListingRows`, over the same documents); the tags' counts and
spellings `indextags.py`'s; the years, the months and each article's neighbours
`indexdates.py`'s.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

from steadypress import shardtree
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.indexdates import IndexDates
from steadypress.targets.site.indexdocuments import IndexDocuments, KeysRead
from steadypress.targets.site.indexfiles import (
    AFTER_ALL,
    ARTICLES,
    INDEX_FOLDER,
    LISTING,
    NEWEST,
    NEWEST_FILE,
    PAGE,
    STYLED,
    SUMMARY,
    URLS,
    YEARS,
    article_files,
    date_order,
    listing_row,
    listings_of,
    month_file,
    month_of,
    tag_year_file,
    tag_years_file,
    url_files,
    year_file,
)
from steadypress.targets.site.indextags import IndexTags
from steadypress.targets.site.manifest import (
    Entry,
    Listed,
    page_path,
    tag_path,
)
from steadypress.targets.site.summary import (
    INDEX_VERSION,
    SUMMARY_VERSION,
    SitemapsBehind,
    Styled,
    Summary,
    decoded,
    styled_from_json,
    styled_json,
)
from steadypress.targets.site.unfiled import (
    FILE_AT_MOST,
    EntryChanges,
    UnfiledCache,
    unfiled_file,
)

__all__ = [
    "ARTICLES",
    "INDEX_FOLDER",
    "NEWEST",
    "NEWEST_FILE",
    "STYLED",
    "SUMMARY",
    "YEARS",
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

T = TypeVar("T")


def index_files(entries: Iterable[tuple[str, Entry]], *, latin: bool = False) -> set[str]:
    """The index's files that recording or removing these (path, entry) pairs reads, their
    tags on the pages `latin` names them by (`tag_path`)."""
    tag_page = functools.partial(tag_path, latin=latin)
    files = set()
    for path, entry in entries:
        files |= {*article_files(path), *listings_of(entry, tag_page)}
        # The years beside too: their months are where a neighbour is when the year has no
        # other article (`IndexDates.want_beside`); a file that is not there costs nothing.
        files |= {YEARS, *(year_file(f"{entry.date.year + n:04d}") for n in (-1, 0, 1))}
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


class _Recorded(Generic[T]):
    """A field of the index's summary (`Summary`, which says what it holds): set to another
    value, the summary is written again with it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._field = name

    def __get__(self, index: SiteIndex, owner: type) -> T:
        return cast(T, getattr(index._summary, self._field))

    def __set__(self, index: SiteIndex, value: T) -> None:
        if value != getattr(index._summary, self._field):
            setattr(index._summary, self._field, value)
            index._dirty.add(SUMMARY)


class SiteIndex:
    """The site's record of its articles, read from and written to `files` a file at a time."""

    def __init__(
        self,
        files: SiteWriter,
        *,
        markers_read: set[str] | None = None,
        keys_read: KeysRead | None = None,
        unfiled: UnfiledCache | None = None,
        latin: bool = False,
    ) -> None:
        """`markers_read`: split markers read from the site before, by an index of an earlier
        batch of the run, and `keys_read` the keys of the files of articles and URLs it parsed
        (`IndexDocuments`); `unfiled`: the unfiled files the run has read or written.
        `latin`: tags are on the pages that names them by (`tag_path`)."""
        self._files = files
        self._latin = latin
        self._store = IndexDocuments(files, markers_read=markers_read, keys_read=keys_read)
        self._unfiled = UnfiledCache() if unfiled is None else unfiled
        self._earlier: EntryChanges | None = None  # the unfiled files' entries, once read
        self._changes = EntryChanges()  # this write's, filed or left unfiled by `flush`
        self._file_later = False
        self.rows = self._store.rows
        self._dirty = self._store.dirty
        self.tags = IndexTags(self._store, files, latin=latin)
        self.dates = IndexDates(self._store, files, self.rows)
        self._styled: Styled | None = None  # `look.json`, once `_styled_read`
        self._styled_read = False

    @property
    def _summary(self) -> Summary:
        """The index's summary, as read (`IndexDocuments.summary`)."""
        return self._store.summary

    @property
    def exists(self) -> bool:
        """Whether the site has an index (an earlier layout, or a new site, has none)."""
        return self._files.exists(SUMMARY)

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
        wanted |= self.rows.hints.files(wanted)
        self._store.want(wanted, oids)
        around: dict[str, list[tuple[float, str]]] = {}
        for _path, entry in entries:
            for listing in listings_of(entry, self.tags.page):
                around.setdefault(listing, []).append(date_order(entry))
        self.rows.want_parts([name for name in wanted if LISTING.fullmatch(name)], around)
        self.dates.want_beside((path, entry.listed) for path, entry in entries)

    def entry(self, path: str) -> Entry | None:
        if path in self._changes.articles:
            fields, name = self._changes.articles[path], ARTICLES
        elif path in (unfiled := self._unfiled_entries()).articles:
            fields, name = unfiled.articles[path], unfiled.read_from[path]
        elif self._store.lacks(name := self._store.shard(ARTICLES, path), path):
            return None
        else:
            fields = self._store.section(name, "articles").get(path)
        return None if fields is None else decoded(name, Entry.from_json, fields)

    def owners(self, site_path: str) -> list[str]:
        """The articles that use `site_path` (a page has one; an image may have several)."""
        for changes in (self._changes, self._unfiled_entries()):
            if site_path in changes.urls:
                return list(changes.urls[site_path] or ())
        if self._store.lacks(name := self._store.shard(URLS, site_path), site_path):
            return []
        return list(self._store.section(name, "urls").get(site_path, []))

    def _unfiled_entries(self) -> EntryChanges:
        """The entries of the unfiled files the summary names (`unfiled.py`)."""
        if self._earlier is None:
            self._earlier = self._unfiled.merged(self._summary.unfiled, self._files)
        return self._earlier

    def month(self, month: str) -> list[tuple[str, Listed]]:
        """The month's articles, newest first."""
        return self.rows.listing(month_file(month))

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
            self._dirty.add(NEWEST_FILE)

    # The feed's permanent id.
    feed_id = _Recorded[str | None]()
    # The files written because a setting asks for them.
    extras = _Recorded[frozenset[str]]()
    # The taxonomies whose term feeds each tag has.
    term_feeds = _Recorded[tuple[str, ...]]()
    # The layout of the site's sitemaps and the site address they name, as last written (a
    # summary of the index's first version says nothing: layout 1, address unknown).
    sitemaps = _Recorded[tuple[int, str] | None]()
    # Of the sitemaps laid out, those not there, as last written (None: not known).
    sitemaps_absent = _Recorded[frozenset[str] | None]()
    # What the sitemaps lack, when a batch left them to a later one (`SitemapsBehind`).
    sitemaps_behind = _Recorded[SitemapsBehind | None]()
    # How the listing pages were laid out when last written (`LISTINGS_LAYOUT`).
    listings = _Recorded[int]()

    @property
    def pages(self) -> dict[str, tuple[str, datetime]]:
        """The pages beside the articles, by path: (slug, last change)."""
        return dict(self._summary.pages)

    @property
    def total(self) -> int:
        return self._summary.total

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
    def styled(self) -> Styled | None:
        """The look the site was last written with (`Styled`); None: written by a steadypress
        that recorded none, or by a target with no history to order looks by."""
        if not self._styled_read:
            raw = self._files.read(STYLED)
            if raw is not None:
                self._styled = decoded(
                    STYLED, styled_from_json, self._store.parse(STYLED, raw, "look", list)
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
        return bool(self._dirty or self._changes)

    @property
    def unfiled(self) -> bool:
        """Whether entries wait in unfiled files for a write to file them (`unfiled.py`)."""
        return bool(self._summary.unfiled)

    def file_later(self) -> None:
        """This write is a batch of a run whose last write files the entries it changes: they
        go into an unfiled file of their own (`unfiled.py`), unless the unfiled files hold
        `FILE_AT_MOST` already."""
        self._file_later = True

    def moved_from(self, owner: str, page: str) -> bool:
        """Whether `page` is where the article at `owner` was before its address changed: a
        redirect to it, which yields to an article that takes the address."""
        entry = self.entry(owner)
        return entry is not None and page in entry.moved

    def page_digest(self, path: str, entry: Listed) -> str | None:
        """What the row of `path` (at `entry`) in its month's file keeps of the digest of its
        page (`page_digest`), where that file has been read; None where it has not, or
        was written before rows kept it. It reads nothing: reading the row would cost a read
        as the page's does."""
        row = self._store.documents.get(self._month_file_of(entry), {}).get(path)
        digest = row.get(PAGE) if isinstance(row, dict) else None
        return digest if isinstance(digest, str) else None

    def keep_page_digest(self, path: str, entry: Listed, sha256: str) -> None:
        """Where the row of `path` (at `entry`) lacks its page's digest and its month's file is
        written anyway, keep `sha256`, the digest of its page as read: a row written before
        rows kept it gains it the first time its page is read, at no cost."""
        file = self._month_file_of(entry)
        rows = self._store.documents.get(file, {})
        row = rows.get(path)
        if file in self._dirty and isinstance(row, dict) and PAGE not in row:
            rows[path] = {**row, PAGE: sha256}

    def _month_file_of(self, entry: Listed) -> str:
        """The file of its month's listing that holds the row of `entry`, where the month's
        file has been read (else the month's file, as if it held its rows)."""
        return self.rows.file_holding(month_file(month_of(entry)), entry)

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

    def _drop(self, path: str, entry: Entry) -> None:
        self._changes.articles[path] = None
        for used in uses(entry):
            self._changes.urls[used] = [o for o in self.owners(used) if o != path] or None
        if entry.is_page:
            del self._summary.pages[path]
            self._dirty.add(SUMMARY)
            return
        held = self.tags.rows_held(path, entry)
        for listing in listings_of(entry, held.__getitem__):
            self.rows.edit(listing, entry).pop(path, None)
        self._tally(entry, -1, held)
        self._summary.newest = [row for row in self._summary.newest if row[0] != path]
        self._summary.bodies.pop(path, None)
        self._dirty.add(NEWEST_FILE)

    def _add(self, path: str, entry: Entry) -> None:
        self._changes.articles[path] = entry.to_json()
        listed = entry.listed
        row = listing_row(listed)  # one document in every tag's year's file
        for used in uses(entry):
            self._changes.urls[used] = sorted({*self.owners(used), path})
        if entry.is_page:
            self._summary.pages[path] = (entry.slug, entry.updated)
            self._dirty.add(SUMMARY)
            return
        month, *tag_years = listings_of(entry, self.tags.page)
        self.rows.edit(month, listed)[path] = {**row, PAGE: entry.sha256}
        for listing in tag_years:
            self.rows.edit(listing, listed)[path] = row
        self._tally(entry, 1)
        newest = sorted([*self._summary.newest, (path, listed)], key=lambda r: date_order(r[1]))
        self._summary.newest = newest[::-1][:NEWEST]
        self._summary.bodies.pop(path, None)  # this version's, once the feed has its text
        self._dirty.add(NEWEST_FILE)

    def _tally(self, entry: Entry, step: int, held: Mapping[str, str] | None = None) -> None:
        """The counts of the entry's year, month and tags, moved by `step`: on each tag's page
        now, or on the page `held` says its row was on."""
        self._summary.total += step
        self.dates.count(entry, step)
        self.tags.tally(entry, month_of(entry).split("/")[0], step, held)

    def refill_newest(self) -> None:
        """After a removal from the newest: the next ones, from the months (newest first). The
        months are not looked at otherwise: a back-dated publish reads nothing of the newest
        year."""
        before = list(self._summary.newest)
        have = {path for path, _entry in before}
        wanted = min(NEWEST, self.total)
        if len(have) < wanted:
            self.dates.want_newest(wanted)
        newest = max(self.dates.years, default="0000")
        months = self.dates.months_from(f"{newest}/99", newer=False) if len(have) < wanted else ()
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
        if self._summary.newest != before:  # every write refills; most find nothing to add
            self._dirty.add(NEWEST_FILE)

    def _whole(self, name: str) -> dict[str, Any] | None:
        """The document of a file written whole, not by sections (None: remove it)."""
        if name == SUMMARY:
            return self._summary.to_json()
        if name == NEWEST_FILE:
            return self._summary.newest_json()
        if name == STYLED:
            return None if self._styled is None else styled_json(self._styled)
        years = self.dates.years
        return {"version": INDEX_VERSION, "years": years} if years else None

    def _place_entries(self) -> None:
        """This write's entries of articles and URLs into their files, with those the unfiled
        files hold; or, for a batch that files them later (`file_later`), into an unfiled file
        of their own while the unfiled files hold fewer than `FILE_AT_MOST`."""
        if not self._changes and not (self._store.summary_read and self._summary.unfiled):
            return
        names, unfiled = self._summary.unfiled, self._unfiled_entries()
        if self._file_later and len(unfiled.articles) + len(self._changes.articles) < FILE_AT_MOST:
            if self._changes:
                name, data = self._changes.written()
                self._files.put(unfiled_file(name), data, unread=True)
                # A lookup later in this write finds them there, their file named.
                unfiled.update(self._unfiled.keep(name, self._changes))
                if name not in names:
                    self._summary.unfiled = (*names, name)
                    self._dirty.add(SUMMARY)
                self._changes = EntryChanges()
            return
        if names:  # their files read together (one request on GitHub), not one by one
            wanted = {name for path in unfiled.articles for name in article_files(path)}
            wanted |= {name for used in unfiled.urls for name in url_files(used)}
            self._store.want(wanted, ())
        for changes in (unfiled, self._changes):
            self._file(changes)
        for name in names:
            self._files.remove(unfiled_file(name))
        if names:
            self._summary.unfiled = ()
            self._dirty.add(SUMMARY)
        self._earlier, self._changes = EntryChanges(), EntryChanges()

    def _file(self, changes: EntryChanges) -> None:
        """Entries of articles and URLs into the files that hold them (None: removed), a file
        at a time: taken in the order of their keys' hash, a file's keys come together, and
        each file is written out once they are in (`IndexDocuments.write_out`)."""
        kinds: list[tuple[str, str, Mapping[str, Any]]] = [
            (ARTICLES, "articles", changes.articles), (URLS, "urls", changes.urls)
        ]  # fmt: skip
        for folder, key, values in kinds:
            held = None
            for changed in sorted(values, key=shardtree.digest):
                name = self._store.shard(folder, changed)
                if held is not None and name != held:
                    self._store.write_out(held)
                held = name
                section = self._store.edit(name, key)
                if values[changed]:
                    section[changed] = values[changed]
                else:
                    section.pop(changed, None)
            if held is not None:
                self._store.write_out(held)

    def flush(self) -> None:
        """Write every file a change touched (a file left empty is removed)."""
        self._place_entries()
        if self._store.summary_read and self._summary.legacy_years is not None:
            self._dirty.add(YEARS)  # the summary is written without them
        if self._dirty and self.tags.move_legacy_counts():
            # A summary before version 6 is written without the counts, its newest beside it.
            self._dirty.update((SUMMARY, NEWEST_FILE))
        if (
            self._dirty
            and self._store.summary_read
            and self._summary.read_version < SUMMARY_VERSION
        ):
            # Written as this version's, which an older one refuses: it would pass over what
            # this one's files hold (a tag's rows in its years file) and drop it.
            self._dirty.add(SUMMARY)
        self._store.flush(self._whole)
