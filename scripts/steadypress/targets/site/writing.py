"""What one write of the built-in site does to its articles inside its files: a batch of
articles recorded in the index or taken off it, their pages written and their neighbours
relinked; the index opened by `opening.py`, the listings, the feed and the sitemaps that
follow made by `listingwrites.py`."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from steadypress.articles import Article
from steadypress.errors import PermanentError, PublishError
from steadypress.targets.site.again import RenderedAgain
from steadypress.targets.site.feed import SiteFeed
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import (
    NEWEST_FILE,
    STYLED,
    SUMMARY,
    SiteIndex,
    article_files,
    index_files,
    linked_as,
    uses,
)
from steadypress.targets.site.listings import (
    listing_pages,
    listing_reads,
    listings_existing,
    part_pages,
    stale_pages,
    turning_tag_pages,
)
from steadypress.targets.site.listingwrites import ListingWrites, appearing_or_going
from steadypress.targets.site.manifest import (
    FEED,
    MANIFEST,
    Entry,
    Listed,
    made_by_steadypress,
    page_path,
    tag_path,
)
from steadypress.targets.site.opening import Carried, SiteOpener
from steadypress.targets.site.refusals import why_refused
from steadypress.targets.site.rendering import PageMaker, Rendered, page_digest
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.singles import SiteSingles
from steadypress.targets.site.sitemaps import LISTINGS_SITEMAP, Sitemaps
from steadypress.targets.site.styling import LookKeeper

__all__ = ["SiteWrites", "announced", "first_read", "index_article_files"]


class SiteWrites:
    """The writes of one run of the site: each opens the index through `opener` (this run's
    look recorded in it, or the write stopped, `Superseded`, before anything is written, when
    a later commit's run wrote the site), and `listings` makes what follows its changes."""

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
        self._again = again
        self._singles = singles
        self.opener = SiteOpener(singles=singles, settings=settings, address=address, keeper=keeper)
        self.listings = ListingWrites(opener=self.opener, singles=singles, feed=feed)

    def publish_into(
        self,
        files: SiteWriter,
        batch: Sequence[tuple[int, Article, Rendered]],
        *,
        final: bool,
        again: bool = False,
        file_later: bool = False,
    ) -> tuple[dict[int, PublishError], dict[str, str], Carried | None]:
        """Inside the site's write: the batch recorded in the index (an article that cannot
        take its URL refused alone), its pages written linked to their neighbours, the pages of
        the neighbours it changed relinked, the listings rewritten once; returns the refusals,
        by number, the versions written (path -> blob) and the sitemap changes left to a
        later write (None: those carried before are still to do). With `again` (a version the
        site holds was given again) the listings are rewritten even where nothing changed in
        the index: the site's look did. `file_later`: the entries of articles and URLs it
        changes are left unfiled for the run's last write (`unfiled.py`)."""
        index, sitemaps = self.opener.open(files, file_later=file_later)
        index.want([(article.path, rendered.entry) for _n, article, rendered in batch])
        olds = _published(index, [article.path for _n, article, _r in batch])
        self._want_replaced(index, [(path, old) for path, old in olds.items() if old is not None])
        taken = {page_path(r.entry.slug): a.path for _n, a, r in batch}
        batch = [
            (n, a, self._moved_along(index, taken, a.path, r, olds[a.path])) for n, a, r in batch
        ]
        refused: dict[int, PublishError] = {}
        # An entry read back has no summary of its text (`Entry.to_json`): compared as stored.
        changes = [(n, a, r) for n, a, r in batch
                   if (old := olds[a.path]) is None or old.stored != r.entry.stored]  # fmt: skip
        touched = [*(r.entry for _n, _a, r in changes), *filter(None, olds.values())]
        existed = listings_existing(index, _listings_touched(index, touched))
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
                page = self._maker.linked(page, index.dates.nav(article.path, entry))
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
            carried = self.listings.after_change(
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
        index, sitemaps = self.opener.open(files)
        olds = [(path, old) for path in paths if (old := index.entry(path)) is not None]
        if not olds:
            return None
        touched = [old for _path, old in olds]
        self._want_replaced(index, olds)
        existed = listings_existing(index, _listings_touched(index, touched))
        stale = dict.fromkeys(stale_pages(index), True)
        unused = [used for path, _old in olds for used in index.put(path, None)]
        self._want_listings(
            index, listings={**stale, **existed}, sitemaps=sitemaps,
            pages=[page_path(old.slug) for old in touched],
        )  # fmt: skip
        self._relink(files, index, _beside(index, olds, paths), commit)
        gone = dict.fromkeys((old.slug for old in touched), None)
        carried = self.listings.after_change(
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
                [*pages, *appearing_or_going(index, listings)], articles=index.total
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
            site_path, nav = page_path(entry.slug), index.dates.nav(path, entry)
            if (again := rendered.get(path)) is not None:
                files.put(site_path, self._maker.linked(again.page, nav), unread=True)
            elif (page := files.read(site_path)) is not None and made_by_steadypress(page):
                files.put(site_path, self._maker.linked(page, nav))
                index.keep_page_digest(path, entry, page_digest(page))


def _published(index: SiteIndex, paths: Iterable[str]) -> dict[str, Entry | None]:
    """The entry of each of these articles (None: not on the site)."""
    return {path: index.entry(path) for path in paths}


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
        for path, entry in index.dates.beside(moved_path, version)
        if path not in written
    }


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


def _listings_touched(index: SiteIndex, entries: Sequence[Entry]) -> set[str]:
    """The listing pages whose content depends on `entries` (versions gone and new), with
    every year's page of a tag they may carry across the articles its own page lists."""
    return listing_pages(entries, index.tags.pages_of) | turning_tag_pages(index, entries)


def first_read(
    batch: Sequence[tuple[Article, Rendered]], static: Sequence[str], *, latin: bool
) -> tuple[list[str], list[str]]:
    """What publishing these renderings reads in the site's first read (texts, oids), with
    the `static` files each write puts (`SiteSingles.static_files`)."""
    batched = [(article.path, rendered.entry) for article, rendered in batch]
    texts, oids = announced(batched, latin=latin)
    assets = {path for _article, rendered in batch for path in rendered.assets}
    return texts, [*oids, *static, *sorted(assets)]


def announced(batch: Sequence[tuple[str, Entry]], *, latin: bool) -> tuple[list[str], list[str]]:
    """What publishing or removing `batch` (path, entry) reads whole (the summary, the look's
    record, the index's files of those entries) and replaces (their pages, listing pages, and
    the feed), asked for in the site's first read. Not the feed's text: the feed's articles
    are rendered again from the content (a removal's, at the commit the run looked at), and
    the feed is read only where that does not give the text it shows."""
    entries = [entry for _path, entry in batch]
    pages = [page_path(entry.slug) for entry in entries]
    texts = {SUMMARY, NEWEST_FILE, STYLED, LISTINGS_SITEMAP}
    texts |= set(index_files(batch, latin=latin))
    tag_pages = lambda tag: [tag_path(tag, latin=latin)]  # noqa: E731 - a page a tag
    return sorted(texts), sorted({MANIFEST, FEED, *listing_pages(entries, tag_pages), *pages})


def index_article_files(paths: Iterable[str]) -> list[str]:
    """The index's files that may hold these articles' entries."""
    return [name for path in paths for name in article_files(path)]
