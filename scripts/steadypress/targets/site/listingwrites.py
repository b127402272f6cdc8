"""What follows a change of the built-in site's articles inside its write, made from its
index: the listing pages that list them, the feed, the sitemaps (those a run's batches leave
to its last write carried to it), and the index written; and every listing page and sitemap
made again (`make_again`), or those a run's batches left (`finish_into`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from steadypress.targets.site.feed import SiteFeed
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import SiteIndex, month_file, month_of
from steadypress.targets.site.listings import (
    every_listing_page,
    listing_reads,
    listings_existing,
    stale_pages,
)
from steadypress.targets.site.manifest import INDEX, Entry, page_path
from steadypress.targets.site.opening import Carried, SiteOpener, front_page_date, sitemap_pages
from steadypress.targets.site.singles import SiteSingles
from steadypress.targets.site.sitemaps import Sitemaps
from steadypress.targets.site.summary import SitemapsBehind

__all__ = ["ListingWrites", "appearing_or_going"]


class ListingWrites:
    """The listings, feed and sitemaps of one run's writes of the site, opened by `opener`."""

    def __init__(self, *, opener: SiteOpener, singles: SiteSingles, feed: SiteFeed) -> None:
        self._opener = opener
        self._singles = singles
        self._feed = feed

    def after_change(
        self,
        files: SiteWriter,
        index: SiteIndex,
        sitemaps: Sitemaps,
        *,
        existed: Mapping[str, bool],
        changed: Mapping[str, str | None],
        published: Sequence[Entry] = (),
        commit: str | None = None,
        final: bool = True,
    ) -> Carried:
        """After articles changed: the listing pages that list their versions before and after
        (`existed`: whether each had something to list before), the feed, the sitemaps and the
        index. `changed` is the slugs of the versions gone and new, with the HTML of those
        `published`; `commit` is the content the feed's other articles are rendered again
        from (None: their text is read from the feed). Not `final`: the listing pages are
        recorded as stale instead, and the sitemap changes that only list pages are returned
        for the final write to make with its own, the index saying meanwhile which months'
        pages they list."""
        index.refill_newest()
        if final:
            index.rows.lay_out()  # the pages of a crowded listing follow its parts
            # A stale page may have been there: one that lists nothing now leaves the sitemaps.
            existed = {**dict.fromkeys(stale_pages(index), True), **existed}
            self.render_listings(files, index, existed)
        else:
            index.mark_stale(existed)
        for page, there in sorted(appearing_or_going(index, existed).items()):
            sitemaps.put(page, None) if there else sitemaps.drop(page)
        sitemaps.put(INDEX, front_page_date(index))
        for slug in changed:
            sitemaps.drop(page_path(slug))
        for entry in published:
            sitemaps.put(page_path(entry.slug), entry.updated)
        self._feed.write(files, index, changed, commit)
        carried = Carried()
        if not final and sitemaps.only_listings:
            behind = index.sitemaps_behind
            carried = Carried(
                changes=sitemaps.changes,
                behind=SitemapsBehind(
                    articles=sitemaps.laid_out_for,
                    months=frozenset(map(month_of, published)).union(
                        () if behind is None else behind.months
                    ),
                    writer=self._opener.writer,
                ),
            )
        index.sitemaps_behind = carried.behind
        if carried.behind is None:
            sitemaps.flush(articles=index.total)
            index.sitemaps_absent = sitemaps.absent
        index.flush()
        return carried

    def render_listings(self, files: SiteWriter, index: SiteIndex, pages: Iterable[str]) -> None:
        """`pages` and the listing pages earlier batches left stale, rendered from the index as
        laid out (`SiteIndex.lay_out`). A stale page changed in writes this index did not see:
        every page of its parts is rendered."""
        stale = stale_pages(index)
        self._singles.listing_pages().write(files, index, {*pages, *stale}, whole=stale)
        index.clear_stale()

    def make_again(self, files: SiteWriter) -> None:
        """Every listing page and sitemap made again from the index, as a write of them all
        would: the listings' every part, and the sitemaps of every page the index names."""
        index, sitemaps = self._opener.open(files)
        if not index.exists:
            return
        listings = every_listing_page(index)
        index.want((), texts=listing_reads(index, listings))
        # With the stale pages, of which those that list nothing any more go.
        every = {*listings, *stale_pages(index)}
        self._singles.listing_pages().write(files, index, every, whole=every)
        index.clear_stale()
        months = [month for year in index.dates.years for month in index.dates.months(year)]
        index.want((), texts=map(month_file, months))
        rows = (row for month in months for _path, row in index.month(month))
        sitemaps.rebuild(sitemap_pages(index, rows, listings))
        index.sitemaps_behind = None
        sitemaps.flush(articles=index.total)
        index.sitemaps_absent = sitemaps.absent
        if index.unflushed:
            index.flush()

    def finish_into(self, files: SiteWriter) -> None:
        """The listing pages and sitemaps this run's batches left (not `final`) written, and
        the entries they left unfiled filed."""
        index, sitemaps = self._opener.open(files)
        if not (index.stale or index.sitemaps_behind):
            if index.unfiled:
                index.flush()
            return
        sitemap_texts, sitemap_oids = sitemaps.reads((), articles=index.total)
        index.want(
            (), texts=[*listing_reads(index, stale_pages(index)), *sitemap_texts],
            oids=sitemap_oids,
        )  # fmt: skip
        self.render_listings(files, index, ())
        index.sitemaps_behind = None
        sitemaps.flush(articles=index.total)
        index.sitemaps_absent = sitemaps.absent
        index.flush()


def appearing_or_going(index: SiteIndex, existed: Mapping[str, bool]) -> dict[str, bool]:
    """The listing pages among `existed` (each: whether it had something to list before) that
    appear or go as the index stands now, each with whether it is there now."""
    now = listings_existing(index, existed)
    return {page: there for page, there in now.items() if there != existed[page]}
