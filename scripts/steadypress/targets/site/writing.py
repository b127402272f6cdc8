"""What one write of the built-in site does inside its files: the site's index and sitemaps
opened (an earlier layout's moved in, the sitemap changes earlier writes left caught up), a
batch of articles recorded or taken off, their pages written and their neighbours relinked,
and the listing pages, the feed and the sitemaps that follow, made from the index."""

from __future__ import annotations

import secrets
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from steadypress.articles import Article
from steadypress.errors import PermanentError, PublishError
from steadypress.targets.site.again import RenderedAgain
from steadypress.targets.site.feed import SiteFeed
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import SiteIndex, linked_as, month_file, month_of, uses
from steadypress.targets.site.listings import (
    every_listing_page,
    listing_pages,
    listing_reads,
    listings_existing,
    part_pages,
    stale_pages,
)
from steadypress.targets.site.manifest import (
    GENERATOR,
    INDEX,
    MANIFEST,
    Entry,
    Listed,
    page_path,
    read_manifest,
)
from steadypress.targets.site.refusals import why_refused
from steadypress.targets.site.rendering import PageMaker, Rendered, page_digest
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.singles import SiteSingles
from steadypress.targets.site.sitemaps import SITEMAPS_LAYOUT, Changes, Sitemaps
from steadypress.targets.site.styling import LookKeeper
from steadypress.targets.site.summary import SitemapsBehind

__all__ = ["Carried", "SiteWrites"]


@dataclass(frozen=True)
class Carried:
    """The sitemap changes this run's batches left to its last write, and what its last write
    had the index say of them (`SitemapsBehind`): a write that finds the index saying anything
    else lists the pages of the months it names again instead."""

    changes: Changes = field(default_factory=dict)
    behind: SitemapsBehind | None = None


class SiteWrites:
    """The writes of one run of the site: each opens the index through `writing_index`, so
    that this run's look is recorded in it (or the write stops, `Superseded`, before anything
    is written, when a later commit's run wrote the site)."""

    def __init__(
        self,
        *,
        maker: PageMaker,
        feed: SiteFeed,
        again: RenderedAgain,
        singles: SiteSingles,
        settings: SiteSettings,
        address: SiteAddress,
        keeper: LookKeeper | None,
    ) -> None:
        self._maker = maker
        self._feed = feed
        self._again = again
        self._singles = singles
        self._settings = settings
        self._address = address
        self._keeper = keeper
        # Set only once a write has landed, so a write run again (a conflict) starts the same.
        self.carried = Carried()
        # Who this run is, in what its writes leave the sitemaps missing (`SitemapsBehind`).
        self._writer = secrets.token_hex(8)
        # The site index's split markers this run has read: one is never merged back, so each
        # batch need not read again the markers on the way to its files.
        self._markers_read: set[str] = set()

    def writing_index(self, files: SiteWriter) -> SiteIndex:
        """The site's index for a write: this run's look recorded in it, or `Superseded`
        raised before anything is written when a later commit's run wrote the site
        (`styling.py`). Every write opens the index through here."""
        index = self.index(files)
        if self._keeper is not None:
            self._keeper.hold(index)
        return index

    def index(self, files: SiteWriter) -> SiteIndex:
        return SiteIndex(files, markers_read=self._markers_read, latin=self._settings.transliterate)

    def open_index(self, files: SiteWriter) -> tuple[SiteIndex, Sitemaps]:
        """The site's index and sitemaps, this run's look recorded (`writing_index`). An earlier
        layout's manifest is moved into the index first, once: every listing page and sitemap
        made again, the manifest deleted."""
        index = self.writing_index(files)
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
            _sitemap_pages(index, (entry.listed for entry in manifest.values()), existing)
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
        sitemaps.put(INDEX, _front_page_date(index))

    def publish_into(
        self,
        files: SiteWriter,
        batch: Sequence[tuple[int, Article, Rendered]],
        *,
        final: bool,
        again: bool = False,
    ) -> tuple[dict[int, PublishError], dict[str, str], Carried | None]:
        """Inside the site's write: the batch recorded in the index (an article that cannot
        take its URL refused alone), its pages written linked to their neighbours, the pages of
        the neighbours it changed relinked, the listings rewritten once; returns the refusals,
        by number, the versions written (path -> blob) and the sitemap changes left to a
        later write (None: those carried before are still to do). With `again` (a version the
        site holds was given again) the listings are rewritten even where nothing changed in
        the index: the site's look did."""
        index, sitemaps = self.open_index(files)
        index.want([(article.path, rendered.entry) for _n, article, rendered in batch])
        olds = {article.path: index.entry(article.path) for _n, article, _r in batch}
        self._want_replaced(index, [(path, old) for path, old in olds.items() if old is not None])
        taken = {page_path(r.entry.slug): a.path for _n, a, r in batch}
        batch = [
            (n, a, self._moved_along(index, taken, a.path, r, olds[a.path])) for n, a, r in batch
        ]
        refused: dict[int, PublishError] = {}
        changes = [(n, a, r) for n, a, r in batch if olds[a.path] != r.entry]
        touched = [*(r.entry for _n, _a, r in changes), *filter(None, olds.values())]
        existed = listings_existing(index, listing_pages(touched, index.tags.pages_of))
        stale = stale_pages(index) if final else set()
        unused: list[str] = []
        accepted = []
        batch_pages = {page_path(r.entry.slug): a.path for _n, a, r in changes}
        for number, article, rendered in changes:
            refusal = why_refused(
                files,
                index,
                article.path,
                rendered.entry,
                olds[article.path],
                batch_pages=batch_pages,
            )
            if refusal is not None:
                refused[number] = refusal
                continue
            unused += index.put(article.path, rendered.entry)
            accepted.append((number, article, rendered))
        pages = [page_path(e.slug) for _n, a, r in changes for e in (r.entry, olds[a.path]) if e]
        self._want_listings(
            index, listings={**dict.fromkeys(stale, True), **existed}, sitemaps=sitemaps,
            pages=pages if final else None,
        )  # fmt: skip
        changed: dict[str, str | None] = {}  # slug -> its HTML (None: it is gone)
        published, written, moved = [], {}, []
        for number, article, rendered in accepted:
            old, entry = olds[article.path], rendered.entry
            page = rendered.page
            if not entry.is_page:
                page = self._maker.linked(page, index.nav(article.path, entry))
            refusal = _write_article(files, replace(rendered, page=page))
            if refusal is not None:
                refused[number] = refusal
                index.put(article.path, old)
                continue
            if old is not None:
                changed[old.slug] = None
            changed[entry.slug] = rendered.html
            published.append(entry)
            written[article.path] = article.blob
            if old is None or linked_as(old) != linked_as(entry):
                moved += [(article.path, version) for version in (old, entry) if version]
        commit = batch[0][1].commit
        self._singles.put_static(files, index)
        self._relink(files, index, _beside(index, moved, written), commit)
        carried = None
        if changed or stale or again:
            carried = self._write_listings(
                files, index, sitemaps, existed=existed, changed=changed, published=published,
                commit=commit, final=final,
            )  # fmt: skip
        elif index.unflushed:
            index.flush()  # the look recorded
        _remove_unused(files, index, unused)
        return refused, written, carried

    def _moved_along(
        self,
        index: SiteIndex,
        taken: Mapping[str, str],
        path: str,
        rendered: Rendered,
        old: Entry | None,
    ) -> Rendered:
        """The rendering with a redirect page at each address the article had before (its old
        version's page, where its address changed, and those it kept before), but the one it
        is at again and those another article has taken (in the index, or in this batch:
        `taken`, page -> the article's path)."""
        if old is None or not (old.moved or old.slug != rendered.entry.slug):
            return rendered
        page = page_path(rendered.entry.slug)
        earlier = dict.fromkeys([*old.moved, page_path(old.slug)])
        moved = tuple(
            at for at in earlier
            if at != page and at not in rendered.entry.aliases
            and taken.get(at, path) == path and all(owner == path for owner in index.owners(at))
        )  # fmt: skip
        redirect = self._maker.redirect_page(self._maker.absolute(page))
        return replace(
            rendered,
            entry=replace(rendered.entry, moved=moved),
            assets={**rendered.assets, **dict.fromkeys(moved, redirect)},
        )

    def unpublish_from(
        self, files: SiteWriter, *, paths: Sequence[str], commit: str | None
    ) -> Carried | None:
        """Inside the site's write: the articles at `paths` taken off the index, their pages
        and images removed, their neighbours relinked, the listings and sitemaps rewritten
        once (None: none of them was on the site, and nothing was written); what is rendered
        again, from the content at `commit`."""
        index, sitemaps = self.open_index(files)
        olds = [(path, old) for path in paths if (old := index.entry(path)) is not None]
        if not olds:
            return None
        touched = [old for _path, old in olds]
        self._want_replaced(index, olds)
        existed = listings_existing(index, listing_pages(touched, index.tags.pages_of))
        stale = dict.fromkeys(stale_pages(index), True)
        unused = [used for path, _old in olds for used in index.put(path, None)]
        self._want_listings(
            index, listings={**stale, **existed}, sitemaps=sitemaps,
            pages=[page_path(old.slug) for old in touched],
        )  # fmt: skip
        self._relink(files, index, _beside(index, olds, paths), commit)
        gone = dict.fromkeys((old.slug for old in touched), None)
        carried = self._write_listings(
            files, index, sitemaps, existed=existed, changed=gone, commit=commit
        )
        _remove_unused(files, index, unused)
        return carried

    @staticmethod
    def _want_replaced(index: SiteIndex, olds: Sequence[tuple[str, Entry]]) -> None:
        """Fetch together what replacing or removing these (path, entry) pairs reads and
        replaces: their index files, their listing pages, pages, images and redirects."""
        entries = [old for _path, old in olds]
        index.want(
            olds,
            oids=[
                *listing_pages(entries, index.tags.pages_of),
                *(used for old in entries for used in uses(old)),
            ],
        )

    @staticmethod
    def _want_listings(
        index: SiteIndex,
        *,
        listings: Mapping[str, bool],
        sitemaps: Sitemaps,
        pages: Iterable[str] | None,
    ) -> None:
        """Fetch together what rendering `listings` reads (each mapped to whether it existed
        before), the sitemaps of the changed `pages` and of the listing pages that appear or
        go (which sitemap, the index now says), and whether the pages of their crowded
        listings' parts are there; None: the listings and sitemaps are most likely left to a
        later write, and read only if not. Asked before the articles beside the changes are
        looked for, a crowded month's parts read one at a time: a write rehearsed on what was
        read ahead stops at its first read it did not announce (`github/pages.py`), and what
        it asked by then rides with the state's next request."""
        sitemap_texts, sitemap_oids = (
            ([], [])
            if pages is None
            else sitemaps.reads(
                [*pages, *_appearing_or_going(index, listings)], articles=index.total
            )
        )
        # Through the index: of a crowded listing read, the parts its pages show come next.
        index.want((), texts=[*listing_reads(index, listings), *sitemap_texts], oids=(
            () if pages is None else [*listings, *part_pages(index, listings), *sitemap_oids]
        ))  # fmt: skip

    def _relink(
        self, files: SiteWriter, index: SiteIndex, relink: Mapping[str, Listed], commit: str | None
    ) -> None:
        """The links of the pages of `relink` to their older and newer article, as the index
        stands now. A page not at hand (on GitHub: not read yet) is rendered again from the
        content at `commit` where that gives the page the index records (its month's row
        keeps the page's digest), and written without reading it: the page of an article
        beside a back-dated one is known only once a crowded month's part is read, and
        reading it too would be a request of its own. Else it is read (its row keeps the
        digest of the page read where the write rewrites its month's file anyway), and one
        steadypress did not write is left alone."""
        rendered = self._again.renderings(
            {path: digest for path, entry in relink.items()
             if not files.at_hand(page_path(entry.slug))
             and (digest := index.page_digest(path, entry)) is not None},
            commit,
        )  # fmt: skip
        files.want(texts=[page_path(e.slug) for path, e in relink.items() if path not in rendered])
        for path, entry in relink.items():
            site_path, nav = page_path(entry.slug), index.nav(path, entry)
            if (again := rendered.get(path)) is not None:
                files.put(site_path, self._maker.linked(again.page, nav), unread=True)
            elif (page := files.read(site_path)) is not None and GENERATOR in page:
                files.put(site_path, self._maker.linked(page, nav))
                index.keep_page_digest(path, entry, page_digest(page))

    def _write_listings(
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
            self.render_listings(files, index, existed)
        else:
            index.mark_stale(existed)
        for page, there in sorted(_appearing_or_going(index, existed).items()):
            sitemaps.put(page, None) if there else sitemaps.drop(page)
        sitemaps.put(INDEX, _front_page_date(index))
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
                    writer=self._writer,
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
        index, sitemaps = self.open_index(files)
        if not index.exists:
            return
        listings = every_listing_page(index)
        index.want((), texts=listing_reads(index, listings))
        self._singles.listing_pages().write(files, index, listings, whole=listings)
        index.clear_stale()
        months = [month for year in index.years for month in index.months(year)]
        index.want((), texts=map(month_file, months))
        rows = (row for month in months for _path, row in index.month(month))
        sitemaps.rebuild(_sitemap_pages(index, rows, listings))
        index.sitemaps_behind = None
        sitemaps.flush(articles=index.total)
        index.sitemaps_absent = sitemaps.absent
        if index.unflushed:
            index.flush()

    def finish_into(self, files: SiteWriter) -> None:
        """The listing pages and sitemaps this run's batches left (not `final`), written."""
        index, sitemaps = self.open_index(files)
        if not (index.stale or index.sitemaps_behind):
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


def _beside(
    index: SiteIndex, moved: Iterable[tuple[str, Listed]], written: Collection[str]
) -> dict[str, Listed]:
    """The articles now beside where the `moved` (path, version) pairs are or were, whose
    links to their neighbours change, but for those `written` anew. Looked for once the index
    holds the changes: beside a version gone are the two it left side by side."""
    return {
        path: entry
        for moved_path, version in moved
        if not (isinstance(version, Entry) and version.is_page)  # a page has no neighbours
        for path, entry in index.beside(moved_path, version)
        if path not in written
    }


def _appearing_or_going(index: SiteIndex, existed: Mapping[str, bool]) -> dict[str, bool]:
    """The listing pages among `existed` (each: whether it had something to list before) that
    appear or go as the index stands now, each with whether it is there now."""
    now = listings_existing(index, existed)
    return {page: there for page, there in now.items() if there != existed[page]}


def _sitemap_pages(
    index: SiteIndex, rows: Iterable[Listed], listings: Iterable[str]
) -> dict[str, datetime | None]:
    """Every page the sitemaps list, as `Sitemaps.rebuild` takes them: the articles' of `rows`,
    dated by their last change, the listing pages there are (`listings`), undated, and the front
    page, dated by its newest article."""
    every: dict[str, datetime | None] = dict.fromkeys(listings)
    every |= {page_path(row.slug): row.updated for row in rows}
    every |= {page_path(slug): updated for slug, updated in index.pages.values()}
    every[INDEX] = _front_page_date(index)
    return every


def _front_page_date(index: SiteIndex) -> datetime | None:
    """When what the front page lists last changed (the sitemap's date for it)."""
    return max((entry.updated for _path, entry in index.newest), default=None)


def _remove_unused(files: SiteWriter, index: SiteIndex, unused: Iterable[str]) -> None:
    """Pages, images and redirect pages an old version had that no article uses any more."""
    for path in dict.fromkeys(unused):
        if not index.owners(path):
            files.remove(path)


def _write_article(files: SiteWriter, rendered: Rendered) -> PermanentError | None:
    """The article's own files; an error writing them fails this article only."""
    page = page_path(rendered.entry.slug)
    try:
        files.put(page, rendered.page)
        for path, data in rendered.assets.items():
            files.put(path, data)
    except OSError as error:
        return PermanentError(f"{page} could not be written: {error.strerror}")
    return None
