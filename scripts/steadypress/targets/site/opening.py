"""How each write of one run of the built-in site opens the site's index and sitemaps: this
run's look recorded in the index (or the write stopped, `Superseded`, before anything is
written, when a later commit's run wrote the site), an earlier layout's manifest moved in once,
the pages an earlier layout of the listings wrote and this one does not left to the listings'
next rendering, and the sitemap changes earlier writes left caught up: those this run carries
(`Carried`), or the pages of the months the index says they were of, listed again."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import SiteIndex, month_file
from steadypress.targets.site.indexdocuments import KeysRead
from steadypress.targets.site.listings import (
    listing_pages,
    listings_existing,
    stale_pages,
    tag_pages_listed_whole,
)
from steadypress.targets.site.manifest import INDEX, MANIFEST, Listed, page_path, read_manifest
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.singles import SiteSingles
from steadypress.targets.site.sitemaps import SITEMAPS_LAYOUT, Changes, Sitemaps
from steadypress.targets.site.styling import LookKeeper
from steadypress.targets.site.summary import LISTINGS_LAYOUT, SitemapsBehind
from steadypress.targets.site.unfiled import UnfiledCache

__all__ = ["Carried", "SiteOpener", "front_page_date", "sitemap_pages"]


@dataclass(frozen=True)
class Carried:
    """The sitemap changes this run's batches left to its last write, and what its last write
    had the index say of them (`SitemapsBehind`): a write that finds the index saying anything
    else lists the pages of the months it names again instead."""

    changes: Changes = field(default_factory=dict)
    behind: SitemapsBehind | None = None


class SiteOpener:
    """How the writes of one run open the site's index: each through `writing_index`, so that
    this run's look is recorded in it. `carried` is what the run's writes so far left to its
    last one."""

    def __init__(
        self,
        *,
        singles: SiteSingles,
        settings: SiteSettings,
        address: SiteAddress,
        keeper: LookKeeper | None,
    ) -> None:
        self._singles = singles
        self._settings = settings
        self._address = address
        self._keeper = keeper
        # Set only once a write has landed, so a write run again (a conflict) starts the same.
        self.carried = Carried()
        # Who this run is, in what its writes leave the sitemaps missing (`SitemapsBehind`).
        self.writer = secrets.token_hex(8)
        # The site index's split markers this run has read: one is never merged back, so each
        # batch need not read again the markers on the way to its files.
        self._markers_read: set[str] = set()
        # The unfiled files this run has read or written: each read once a run; and the keys
        # of the files of articles and URLs it parsed (`IndexDocuments.lacks`).
        self._unfiled = UnfiledCache()
        self._keys_read = KeysRead()

    def writing_index(self, files: SiteWriter) -> SiteIndex:
        """The site's index for a write: this run's look recorded in it, or `Superseded`
        raised before anything is written when a later commit's run wrote the site
        (`styling.py`). Every write opens the index through here."""
        index = self.index(files)
        if self._keeper is not None:
            self._keeper.hold(index)
        return index

    def index(self, files: SiteWriter) -> SiteIndex:
        return SiteIndex(
            files,
            markers_read=self._markers_read,
            keys_read=self._keys_read,
            unfiled=self._unfiled,
            latin=self._settings.transliterate,
        )

    def open(self, files: SiteWriter, *, file_later: bool = False) -> tuple[SiteIndex, Sitemaps]:
        """The site's index and sitemaps, this run's look recorded (`writing_index`). An earlier
        layout's manifest is moved into the index first, once: every listing page and sitemap
        made again, the manifest deleted. `file_later`: the index leaves the entries of
        articles and URLs it changes unfiled (`SiteIndex.file_later`)."""
        index = self.writing_index(files)
        if file_later:
            index.file_later()
        behind = index.sitemaps_behind
        sitemaps = Sitemaps(
            files,
            self._address.url,
            articles=index.total if behind is None else behind.articles,
            absent=index.sitemaps_absent,
        )
        mark = (SITEMAPS_LAYOUT, self._address.url)
        if index.sitemaps != mark:
            if index.sitemaps is not None:  # an earlier layout, or the site has moved
                sitemaps.migrate()
            index.sitemaps = mark
        if index.listings != LISTINGS_LAYOUT:
            # Left to the listings' next rendering, which removes each page that lists nothing
            # and takes it out of the sitemaps.
            index.mark_stale(tag_pages_listed_whole(index))
            index.listings = LISTINGS_LAYOUT
        self._catch_up(index, sitemaps)  # after a migration, which starts from the files
        if index.exists or not files.exists(MANIFEST):
            return index, sitemaps
        manifest = read_manifest(files)
        for path, entry in sorted(manifest.items()):
            index.put(path, entry)
        files.remove(MANIFEST)
        index.refill_newest()
        pages = listing_pages(manifest.values(), index.tags.pages_of)
        self._singles.listing_pages().write(files, index, pages)
        existing = [page for page, there in listings_existing(index, pages).items() if there]
        sitemaps.rebuild(
            sitemap_pages(index, (entry.listed for entry in manifest.values()), existing)
        )
        return index, sitemaps

    def _catch_up(self, index: SiteIndex, sitemaps: Sitemaps) -> None:
        """The sitemap changes earlier writes left to this one: those this run carries when the
        index says exactly what its last write said, this run named as its writer; else (a
        run that died, another executor's batches since) the pages of every month it names
        and the stale listing pages, listed again from the index (a page listed already
        changes nothing)."""
        behind = index.sitemaps_behind
        if behind is None:
            return
        if behind == self.carried.behind:
            sitemaps.carry(self.carried.changes)
            return
        index.want((), texts=map(month_file, behind.months))  # read together, not one by one
        for month in sorted(behind.months):
            for _path, entry in index.month(month):
                sitemaps.put(page_path(entry.slug), entry.updated)
        for slug, updated in index.pages.values():  # in no month's rows; a handful
            sitemaps.put(page_path(slug), updated)
        # A listing page that went was taken out at once (a write taking out does not defer).
        for page, there in sorted(listings_existing(index, stale_pages(index)).items()):
            if there:
                sitemaps.put(page, None)
        sitemaps.put(INDEX, front_page_date(index))


def sitemap_pages(
    index: SiteIndex, rows: Iterable[Listed], listings: Iterable[str]
) -> dict[str, datetime | None]:
    """Every page the sitemaps list, as `Sitemaps.rebuild` takes them: the articles' of `rows`,
    dated by their last change, the listing pages there are (`listings`), undated, and the front
    page, dated by its newest article."""
    every: dict[str, datetime | None] = dict.fromkeys(listings)
    every |= {page_path(row.slug): row.updated for row in rows}
    every |= {page_path(slug): updated for slug, updated in index.pages.values()}
    every[INDEX] = front_page_date(index)
    return every


def front_page_date(index: SiteIndex) -> datetime | None:
    """When what the front page lists last changed (the sitemap's date for it)."""
    return max((entry.updated for _path, entry in index.newest), default=None)
