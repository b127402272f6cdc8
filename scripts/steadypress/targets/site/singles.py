"""The files a site has one of (its stylesheet, 404 page, `.nojekyll`, `CNAME` and redirect
pages; its front page, archive and tags page), and the site's look: what its pages depend on
besides the articles, and the parts of it written again alone when they change (`refresh`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping
from dataclasses import asdict
from typing import NamedTuple

from steadypress.errors import Superseded
from steadypress.ledger import Look, look_digest
from steadypress.pageplaces import DEFAULT_PAGES
from steadypress.targets.base import Refreshed
from steadypress.targets.site.feed import feed_paths
from steadypress.targets.site.files import SiteFiles, SiteWriter
from steadypress.targets.site.index import NEWEST_FILE, STYLED, SUMMARY, YEARS, SiteIndex
from steadypress.targets.site.listingpaths import ARCHIVE_INDEX
from steadypress.targets.site.listings import (
    ListingPages,
    every_listing_page,
    listing_reads,
)
from steadypress.targets.site.manifest import (
    CNAME,
    INDEX,
    NO_JEKYLL,
    NOT_FOUND,
    STYLESHEET,
    TAGS_INDEX,
    marked,
)
from steadypress.targets.site.refusals import put_own
from steadypress.targets.site.rendering import PageMaker
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.termfeeds import every_feed
from steadypress.theme import LISTING_TEMPLATES, SINGLE_TEMPLATES, shipped_look

__all__ = ["SHOWING", "SINGLE_LISTINGS", "SiteSingles", "site_look"]

# The listing pages a site has one of, whose templates are among `SINGLE_TEMPLATES`.
SINGLE_LISTINGS = (INDEX, ARCHIVE_INDEX, TAGS_INDEX)
# Listing pages rewritten by one write when the listings' templates change: a month's page and
# its parts read about 10 KB of the index, and a write of 200 stays far below what one commit
# of the Pages branch may hold.
_LISTINGS_PER_WRITE = 200
_DEFAULT_SETTINGS = asdict(SiteSettings())

# What each part of the site's look shows, for the log.
SHOWING = {
    "listings": "listing pages",
    "singles": "stylesheet, 404 page, front page, archive and tags page",
}


def site_look(
    settings: SiteSettings,
    address: SiteAddress,
    theme: Mapping[str, str],
    *,
    page_places: tuple[str, ...] = DEFAULT_PAGES,
) -> Look:
    """What the site depends on besides its articles (`StyledTarget`): every page on the
    settings and on which files are pages beside the articles (`page_places`: a file becoming one
    leaves the listings and the feed), where the site is served, the theme folder's files
    (`theme`: their git ids, by name) and what steadypress ships (its theme and renderers);
    the listing pages
    (`LISTING_TEMPLATES`) and the files it has one of (`SINGLE_TEMPLATES`) on their templates
    alone, of the user's theme and the shipped one."""
    shipped_pages, shipped_listings, shipped_singles = shipped_look()

    def of(templates: Callable[[str], bool]) -> dict[str, str]:
        return {name: oid for name, oid in theme.items() if templates(name)}

    pages = {
        # The settings set (a setting added in a later release changes no site's look), but
        # the redirects, on no page but their own, which the site has one of each of.
        "settings": {
            key: value
            for key, value in asdict(settings).items()
            if key != "redirects" and value != _DEFAULT_SETTINGS[key]
        },
        **({"page places": list(page_places)} if page_places != DEFAULT_PAGES else {}),
        "address": [address.url, address.base_url],
        "theme": of(lambda name: name not in LISTING_TEMPLATES | SINGLE_TEMPLATES),
        "shipped": shipped_pages,
    }
    listings = {"theme": of(LISTING_TEMPLATES.__contains__), "shipped": shipped_listings}
    singles = {
        "theme": of(SINGLE_TEMPLATES.__contains__),
        "shipped": shipped_singles,
        **({"redirects": settings.redirects} if settings.redirects else {}),
    }
    return Look(
        pages=look_digest(pages), listings=look_digest(listings), singles=look_digest(singles)
    )


class _ListingsWrite(NamedTuple):
    """One of a refresh's writes of listing pages: the pages, the index files they are made
    from, and whether it puts the files the site has one of too (`_put_singles`)."""

    pages: list[str]
    reads: list[str]
    singles: bool


class SiteSingles:
    """The files the site has one of, put by every write of articles (`put_static`) and by a
    `refresh` of the parts of the look they show."""

    def __init__(
        self,
        files: SiteFiles,
        maker: PageMaker,
        settings: SiteSettings,
        *,
        writing_index: Callable[[SiteWriter], SiteIndex],
    ) -> None:
        """`writing_index` opens the site's index for a write, this run's look recorded."""
        self._files = files
        self._maker = maker
        self._settings = settings
        self._writing_index = writing_index
        self._stylesheet: bytes | None = None
        self._redirects: dict[str, bytes] | None = None

    def reloaded(self) -> None:
        """The theme's templates were read again: the stylesheet is made again from them."""
        self._stylesheet = None

    def listing_pages(self) -> ListingPages:
        maker = self._maker
        return ListingPages(
            maker.theme, maker.site(), href=maker.href, absolute=maker.absolute,
            term_feeds=self._settings.old_term_feeds,
        )  # fmt: skip

    def static_files(self) -> list[str]:
        """What `put_static` replaces, for a write to ask their blob ids with its first read.
        It reads none whole: the 404 page (an old site's own is left alone) and the redirect
        pages are read only where they are not what steadypress would write (`put_own`)."""
        cname = [CNAME] if self._settings.cname else []
        return [STYLESHEET, NOT_FOUND, NO_JEKYLL, *cname, *self._redirect_pages()]

    def put_static(self, files: SiteWriter, index: SiteIndex | None) -> None:
        """The files the site has one of but its listing pages; and those a setting asked for
        (`extras`, the term feeds of `old_term_feeds`) that none asks for now removed, as
        `index` records them (None: a site of an earlier layout, with no index to record them
        in yet)."""
        if self._stylesheet is None:
            self._stylesheet = self._maker.theme.stylesheet()
        files.put(STYLESHEET, self._stylesheet)
        # An old site's own 404 page stays: steadypress replaces no file it did not write.
        not_found = marked(self._maker.theme.render("404.html", site=self._maker.site()))
        put_own(files, NOT_FOUND, not_found)
        files.put(NO_JEKYLL, b"")
        if self._settings.cname:
            files.put(CNAME, f"{self._settings.cname}\n".encode())
        extras = set(feed_paths(self._settings))  # the feed's copies
        for path, page in self._redirect_pages().items():
            # An old site's own file at an address it moved stays, as its 404 page does.
            if put_own(files, path, page):
                extras.add(path)
        if index is not None:
            # And the feeds of a taxonomy `old_term_feeds` names no longer: its terms', each
            # tag's.
            dropped = [t for t in index.term_feeds if t not in self._settings.old_term_feeds]
            feeds = every_feed(index, dropped)
            for path in sorted(index.extras.union(feeds) - extras):
                if not index.owners(path):  # an article's page now, or one of its redirects
                    files.remove(path)
            index.extras = frozenset(extras)
            index.term_feeds = self._settings.old_term_feeds

    def _redirect_pages(self) -> dict[str, bytes]:
        if self._redirects is None:
            self._redirects = self._maker.redirects()
        return self._redirects

    def refresh(self, parts: Collection[str]) -> Refreshed:
        """What these parts of the look show written again alone (`StyledTarget`): the files
        the site has one of (the stylesheet, the 404 page, and the front page, archive and tags
        page from its index), and for `listings` every listing page too, a write for each
        `_LISTINGS_PER_WRITE` of them. A site without an index (an earlier layout's) has its
        listing pages made by its next publish. Nothing is written when a page of another kind
        includes one of their templates (for `listings`: an article's page: `SHOWN`), or when
        a run of a later commit wrote the site, and its look, meanwhile (`OVERTAKEN`)."""
        templates = SINGLE_TEMPLATES | (LISTING_TEMPLATES if "listings" in parts else set())
        if self._maker.theme.pages_reach(templates):
            return Refreshed.SHOWN
        writes: list[_ListingsWrite] = []
        singles_oids = [*self.static_files(), *SINGLE_LISTINGS]  # what putting them replaces
        # The 404 page read whole: its template may be what changed, and then `put_own` reads
        # it to see whose it is, which later would be a request of its own.
        singles_texts = [NOT_FOUND]
        try:
            self._files.apply(
                functools.partial(
                    self._put_singles, listings=writes if "listings" in parts else None
                ),
                texts=[*singles_texts, SUMMARY, NEWEST_FILE, STYLED, YEARS],
                oids=singles_oids,
            )
            for write in writes:
                self._files.apply(
                    functools.partial(self._rewrite_listings, write),
                    texts=[SUMMARY, NEWEST_FILE, STYLED, YEARS, *write.reads,
                           *(singles_texts if write.singles else ())],
                    oids=[*write.pages, *(singles_oids if write.singles else ())],
                )  # fmt: skip
        except Superseded:
            return Refreshed.OVERTAKEN
        return Refreshed.WRITTEN

    def _put_singles(self, files: SiteWriter, *, listings: list[_ListingsWrite] | None) -> None:
        """The files the site has one of, put; when `listings` is given, the site's other
        listing pages put in it for later writes, `_LISTINGS_PER_WRITE` a write, each with the
        index files it reads (a write run again, after a conflict, lists them afresh)."""
        if listings is not None:
            listings.clear()
        index = self._writing_index(files)
        self._put_single_files(files, index)
        if not index.exists:
            return
        pages = (
            []
            if listings is None
            else [page for page in every_listing_page(index) if page not in SINGLE_LISTINGS]
        )
        # A write that changes nothing but the look's record cost a commit of its own: when
        # listing writes follow, the first records it, and puts these files again (an older run
        # may write them meanwhile, the record still its look).
        deferred = index.unflushed and bool(pages) and not files.may_change
        if index.unflushed and not deferred:
            index.flush()
        if listings is None:
            return
        for start in range(0, len(pages), _LISTINGS_PER_WRITE):
            chunk = pages[start : start + _LISTINGS_PER_WRITE]
            listings.append(
                _ListingsWrite(chunk, listing_reads(index, chunk), singles=deferred and start == 0)
            )

    def _rewrite_listings(self, write: _ListingsWrite, files: SiteWriter) -> None:
        """The write's pages rendered again from the index, every page of their parts with
        them; and the files the site has one of, when the write records the look."""
        index = self._writing_index(files)
        if write.singles:
            self._put_single_files(files, index)
        self.listing_pages().write(files, index, write.pages, whole=write.pages)
        if index.unflushed:
            index.flush()  # the look recorded

    def _put_single_files(self, files: SiteWriter, index: SiteIndex) -> None:
        """The files the site has one of: the stylesheet and 404 page, and the front page,
        archive and tags page where the site has an index to make them from."""
        self.put_static(files, index if index.exists else None)
        if index.exists:
            self.listing_pages().write(files, index, SINGLE_LISTINGS)
