"""The static site target: a page per article with its images and links to its older and newer
neighbours, the listing pages (`listings.py`), an Atom feed of the newest articles' text and
the sitemaps (`sitemaps.py`), in the theme's templates.

The site keeps its own index (`index.py`), so publishing is idempotent without asking the
ledger, and incremental: one article's new version rewrites its page, its images, the listing
pages of its month, year and tags (old and new), the feed, the sitemaps of the pages that
changed, and the links in the pages of the neighbours whose links change (their pages made
again from the content where that gives the page the index records, else read), from the
index's files of those articles alone. The same content gives the same bytes, and identical
bytes are not written.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING

from steadypress.content import ContentSource
from steadypress.errors import (
    ArticleError,
    GitFailed,
    PermanentError,
    PublishError,
    Superseded,
    TransientError,
)
from steadypress.ledger import ABSENT, Look, PublishedRecord
from steadypress.renderpool import RenderPool
from steadypress.targets.base import OneByBatches, Receipt, Refreshed
from steadypress.targets.site.again import RenderedAgain
from steadypress.targets.site.agreement import Comparing, describe
from steadypress.targets.site.assets import image_blob
from steadypress.targets.site.feed import SiteFeed
from steadypress.targets.site.files import SiteFiles, SiteWriter
from steadypress.targets.site.index import (
    STYLED,
    SUMMARY,
    YEARS,
    SiteIndex,
    article_files,
    index_files,
    linked_as,
    month_file,
    month_of,
    uses,
)
from steadypress.targets.site.listings import (
    every_listing_page,
    listing_pages,
    listing_reads,
    listings_existing,
    part_pages,
    stale_pages,
)
from steadypress.targets.site.manifest import (
    FEED,
    GENERATOR,
    HUGO_FEED,
    INDEX,
    MANIFEST,
    Entry,
    Listed,
    article_slug,
    page_path,
    path_url_slug,
    read_manifest,
    tag_path,
)
from steadypress.targets.site.refusals import why_refused
from steadypress.targets.site.rendering import PageMaker, Rendered, page_digest
from steadypress.targets.site.settings import (
    SiteAddress,
    SiteSettings,
    site_address,
)
from steadypress.targets.site.singles import SHOWING, SiteSingles, site_look
from steadypress.targets.site.sitemaps import (
    LISTINGS_SITEMAP,
    SITEMAPS_LAYOUT,
    Changes,
    Sitemaps,
)
from steadypress.targets.site.styling import History, LookKeeper
from steadypress.targets.site.summary import SitemapsBehind
from steadypress.theme import Theme

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.targets.registry import TargetContext

__all__ = ["SiteTarget", "build", "build_site"]


def build(name: str, settings: SiteSettings, context: TargetContext) -> SiteTarget:
    """The site as a configuration names it: its files where the backend keeps them."""
    return build_site(
        name,
        context.site_files(settings),
        settings,
        content=context.content,
        default_url=context.default_site_url,
    )


def build_site(
    name: str,
    files: SiteFiles,
    settings: SiteSettings,
    *,
    content: ContentSource,
    default_url: str,
) -> SiteTarget:
    """The site target over `files`, reading images and the theme from the content branch."""
    return SiteTarget(
        name,
        files,
        settings=settings,
        address=site_address(settings, default_url=default_url),
        content_dir=content.content_dir,
        theme=Theme(
            lambda name: _theme_file(content, f"{settings.theme}/{name}"), where=settings.theme
        )
        if settings.theme
        else Theme(),
        assets=content.asset,
        read_version=lambda path, blob, commit: content.read(path, blob, commit=commit),
        parse_at=content.parse_at,
        theme_files=lambda commit: (
            content.entries(commit, settings.theme) if settings.theme else {}
        ),
        history=content,
    )


def _theme_file(content: ContentSource, path: str) -> bytes | None:
    found = content.asset(path, commit=content.head())
    return found[1] if found is not None else None


@dataclass(frozen=True)
class _Carried:
    """The sitemap changes this run's batches left to its last write, and what its last write
    had the index say of them (`SitemapsBehind`): a write that finds the index saying anything
    else lists the pages of the months it names again instead."""

    changes: Changes = field(default_factory=dict)
    behind: SitemapsBehind | None = None


class SiteTarget(OneByBatches):
    def __init__(
        self,
        name: str,
        files: SiteFiles,
        *,
        settings: SiteSettings,
        address: SiteAddress,
        content_dir: str,
        theme: Theme,
        assets: Callable[..., tuple[str, bytes] | None],
        read_version: Callable[[str, str, str], Article] | None = None,
        parse_at: Callable[[str, Collection[str]], Mapping[str, Article | ArticleError]]
        | None = None,
        theme_files: Callable[[str], Mapping[str, str]] = lambda _commit: {},
        history: History | None = None,
    ) -> None:
        """`assets` reads a repository file at a commit; `read_version` an article's version
        (path, blob, commit) as the executor reads it (a removal guesses from it what the
        site holds of the version gone: None, and it reads the site to learn it); `parse_at`
        articles as they are at a commit (commit, paths), with no history (the feed's newest
        articles rendered again: None, and it reads them from the feed);
        `theme_files` the git ids of the theme folder's files at a commit, by name; `history`
        orders this run's look after or before the one the site was written with (None: it
        is neither recorded nor compared)."""
        self._name = name
        self._files = files
        self._settings = settings
        self._address = address
        self._content_dir = content_dir
        self._assets = assets
        self._maker = PageMaker(
            settings=settings, address=address, content_dir=content_dir, theme=theme,
            assets=assets,
        )  # fmt: skip
        self._read_version = read_version
        self._parse_at = parse_at
        self._theme_files = theme_files
        self._keeper = LookKeeper(history, self.look) if history is not None else None
        self._theme_read: dict[str, str] | None = None  # the theme files `look` last saw
        # The content commit `look` last saw (the run's): where a removal renders again what it
        # does not read (the feed's texts, its neighbours' pages); a publish renders at its
        # articles' commit.
        self._looked_at: str | None = None
        self._singles = SiteSingles(files, self._maker, settings, writing_index=self._writing_index)
        # Renderings by (path, blob, commit), made ahead of `publish_batch` (`read_ahead`).
        self._ahead: dict[tuple[str, str, str | None], Rendered | PublishError] = {}
        # The pages of a run's batches, rendered on every core (`render_ahead`).
        self._pages: RenderPool[Article, Rendered] = RenderPool(
            self._maker.render, key=_version, warm=self._maker.warm
        )
        self._again = RenderedAgain(self._maker, parse_at)
        self._feed = SiteFeed(
            maker=self._maker, again=self._again, title=settings.title, address=address,
            content_dir=content_dir,
            also_at=(HUGO_FEED,) if settings.moved_from == "hugo" else (),
        )  # fmt: skip
        # Versions (path -> blob) a write of this process put on a backend that confirms its
        # writes: `verify` has nothing to read back for them.
        self._confirmed: dict[str, str] = {}
        # Set only once a write has landed, so a write run again (a conflict) starts the same.
        self._carried = _Carried()
        # Who this run is, in what its writes leave the sitemaps missing (`SitemapsBehind`).
        self._writer = secrets.token_hex(8)
        # The site index's split markers this run has read: one is never merged back, so each
        # batch need not read again the markers on the way to its files.
        self._markers_read: set[str] = set()

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return None

    def lost(self) -> bool:
        """Whether the site's files hold no index (nor an earlier layout's manifest): deleted,
        or never written. A folder tells at no cost; a Pages branch when it was asked with the
        state's read (`ask_lost`)."""
        return self._files.holds(SUMMARY) is False and self._files.holds(MANIFEST) is False

    def ask_lost(self) -> None:
        self._files.read_ahead(lambda: ((), (SUMMARY, MANIFEST)))

    def look(self, commit: str) -> Look:
        """The site's look with the theme folder as it is at `commit` (`site_look`)."""
        theme = self._theme_files(commit)
        self._looked_at = commit
        if self._theme_read is not None and theme != self._theme_read:
            # A process that lives on (live mode) compiled the templates as they were; the
            # pages of this look are rendered from them as they are now.
            self._maker.theme = self._maker.theme.reloaded()
            self._singles.reloaded()
        self._theme_read = dict(theme)
        return site_look(self._settings, self._address, theme)

    def showing(self, part: str) -> str:
        return SHOWING[part]

    def refresh(self, parts: Collection[str]) -> Refreshed:
        return self._singles.refresh(parts)

    def overtaken(self, commit: str) -> bool:
        """Whether the site holds another look, of a later commit than `commit`, written
        within `OVERTAKEN_WITHIN` (`styling.py`), asked in a read of its own: a reconcile of
        `commit` neither restyles the site nor records its older look."""
        if self._keeper is None:
            return False
        found = self._files.apply(
            lambda files: self._index(files).styled,
            texts=[STYLED],
        )
        return self._keeper.overtakes(found, commit)

    def rehearsal(self, files: SiteFiles) -> SiteTarget:
        """This site as it would be built into `files`, from the same settings, address and
        theme, and the pages `check` rendered: `steadypress check` builds the whole site in a
        throwaway folder."""
        rehearsal = SiteTarget(
            self._name,
            files,
            settings=self._settings,
            address=self._address,
            content_dir=self._content_dir,
            theme=self._maker.theme,
            assets=self._assets,
            read_version=self._read_version,
            parse_at=self._parse_at,
            theme_files=self._theme_files,
        )
        rehearsal._ahead = dict(self._ahead)
        return rehearsal

    def slug_of(self, article: Article) -> str:
        return article_slug(article, self._content_dir, latin=self._settings.transliterate)

    def path_slug(self, path: str) -> str:
        """The URL path of an article at `path` that sets none of its own."""
        return path_url_slug(path, self._content_dir, latin=self._settings.transliterate)

    def check(self, article: Article) -> str:
        """Everything `publish` would refuse, found without writing: the URL, the images, the
        render through the theme. Returns the article's URL path. The render is kept for a
        `rehearsal` of this site."""
        key = _version(article)
        if key not in self._ahead:
            try:
                self._ahead[key] = self._maker.render(article)
            except PublishError as error:
                self._ahead[key] = error
        rendered = self._ahead[key]
        if isinstance(rendered, PublishError):
            raise rendered
        for reference in rendered.elsewhere:  # an image the repository lacks, in any form
            image_blob(self._assets, article, reference, content_dir=self._content_dir)
        return rendered.entry.slug

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

    def _index(self, files: SiteWriter) -> SiteIndex:
        return SiteIndex(files, markers_read=self._markers_read, latin=self._settings.transliterate)

    # -- the Target protocol ------------------------------------------------------------------

    def read_ahead(
        self,
        articles: Callable[[], Sequence[Article]],
        removals: Sequence[tuple[str, PublishedRecord | None]] = (),
    ) -> None:
        """What the next write will be handed (`removals` are written first, and alone read
        ahead when there are any): the files its first read names are asked ahead, for a
        backend that reads them with an earlier request (the state's). Only such a backend
        reads the `articles`, and renders them, once: `publish_batch` uses the renderings."""
        if removals:
            self._files.read_ahead(lambda: self._removal_read(removals), self._removal(removals))
        else:
            self._files.read_ahead(
                lambda: _first_read(
                    self._rendered_ok(articles()),
                    self._singles.static_files(),
                    latin=self._settings.transliterate,
                ),
                lambda files: self._publish_into(
                    files,
                    [(n, *row) for n, row in enumerate(self._rendered_ok(articles()))],
                    final=True,
                ),
            )

    def _rendered_ok(self, articles: Sequence[Article]) -> list[tuple[Article, Rendered]]:
        renders = self._rendered(articles)
        return [(a, r) for a, r in zip(articles, renders, strict=True) if isinstance(r, Rendered)]

    def expect(self, count: int) -> None:
        """The workers started now, if they would render batches of `count`: each builds its
        renderer while the plan reads the articles."""
        if self._pages.renders_ahead(count):
            self._pages.start()

    def render_ahead(self, count: int, articles: Callable[[], Sequence[Article]]) -> None:
        """Start rendering the pages of articles likely handed to a later `publish_batch`
        (the workers render them meanwhile), when there are enough for the workers: fewer are
        not even read. Nothing is written."""
        if self._pages.renders_ahead(count):
            self._pages.ahead(articles())

    def _rendered(
        self, articles: Sequence[Article], keep_alive: Callable[[], None] | None = None
    ) -> list[Rendered | PublishError]:
        """Each article rendered (on every core, each taken as it comes back, `keep_alive`
        called after each), or why it cannot be; those rendered ahead are not rendered again."""
        missing = [a for a in articles if _version(a) not in self._ahead]
        pages = self._pages.rendered(missing)
        for article, page in zip(missing, pages, strict=True):
            rendered: Rendered | PublishError
            if isinstance(page, PublishError):  # the article's own: a missing image, say
                rendered = page
            elif isinstance(page, Exception):  # a bug that one article meets
                rendered = PermanentError(
                    f"it could not be rendered: {type(page).__name__}: {page}"
                )
                rendered.__cause__ = page
            else:
                rendered = page
            self._ahead[_version(article)] = rendered
            if keep_alive is not None:
                keep_alive()
        return [self._ahead[_version(a)] for a in articles]

    def publish_batch(
        self,
        work: Sequence[tuple[Article, PublishedRecord | None]],
        *,
        final: bool = True,
        keep_alive: Callable[[], None] | None = None,
    ) -> list[Receipt | PublishError]:
        """Publish several articles in one write: their pages and images, and the listings,
        the feed, the sitemaps and the index once for all of them. An article that cannot be
        published (a missing image, a URL already taken) fails alone.

        Not `final` (more batches of this run follow): the listing pages are left to the run's
        last batch, or to `finish`, and recorded as stale in the index meanwhile, so a first
        build renders each once, not once a batch."""
        results: list[Receipt | PublishError] = []
        batch: list[tuple[int, Article, Rendered]] = []
        renders = self._rendered([article for article, _previous in work], keep_alive)
        self._ahead.clear()
        if final:  # the run's batches are all rendered: its workers go
            self._pages.close()
        for number, ((article, _previous), rendered) in enumerate(zip(work, renders, strict=True)):
            if isinstance(rendered, PublishError):
                results.append(rendered)
                continue
            batch.append((number, article, rendered))
            slug = rendered.entry.slug
            results.append(Receipt(url=self._maker.absolute(page_path(slug)), id=slug))

        # A version the site holds already, published again: the site's look changed, and its
        # listings follow even where no article's page did.
        again = any(
            (previous := work[number][1]) is not None and previous.blob == article.blob
            for number, article, _rendered in batch
        )
        if batch:
            texts, oids = _first_read(
                [(article, r) for _n, article, r in batch],
                self._singles.static_files(),
                latin=self._settings.transliterate,
            )
            refused, written, carried = self._files.apply(
                lambda files: self._publish_into(files, batch, final=final, again=again),
                texts=texts,
                oids=oids,
            )
            self._carried = carried or self._carried
            for number, refusal in refused.items():
                results[number] = refusal
            if self._files.confirms_writes:
                self._confirmed.update(written)
        return results

    def _publish_into(
        self,
        files: SiteWriter,
        batch: Sequence[tuple[int, Article, Rendered]],
        *,
        final: bool,
        again: bool = False,
    ) -> tuple[dict[int, PublishError], dict[str, str], _Carried | None]:
        """Inside the site's write: the batch recorded in the index (an article that cannot
        take its URL refused alone), its pages written linked to their neighbours, the pages of
        the neighbours it changed relinked, the listings rewritten once; returns the refusals,
        by number, the versions written (path -> blob) and the sitemap changes left to a
        later write (None: those carried before are still to do). With `again` (a version the
        site holds was given again) the listings are rewritten even where nothing changed in
        the index: the site's look did."""
        index, sitemaps = self._open_index(files)
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
        existed = listings_existing(index, listing_pages(touched, index.tag_pages_of))
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
        self._singles.put_static(files)
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

    @staticmethod
    def _want_replaced(index: SiteIndex, olds: Sequence[tuple[str, Entry]]) -> None:
        """Fetch together what replacing or removing these (path, entry) pairs reads and
        replaces: their index files, their listing pages, pages, images and redirects."""
        entries = [old for _path, old in olds]
        index.want(
            olds,
            oids=[
                *listing_pages(entries, index.tag_pages_of),
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
    ) -> _Carried:
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
            index.lay_out()  # the pages of a crowded listing follow its parts
            self._render_listings(files, index, existed)
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
        carried = _Carried()
        if not final and sitemaps.only_listings:
            behind = index.sitemaps_behind
            carried = _Carried(
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

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        """Read the pages and their index entries back in one read: the index must hold each
        version, and each page what the index says it holds (its digest, but for the links to
        its neighbours, which may have been rewritten since, by this run or another). A version
        this process wrote where the write's answer confirms it (a commit GitHub answered) is
        not read again."""
        problems: list[TransientError | None] = [None] * len(work)
        unconfirmed = [
            (number, article)
            for number, (article, _receipt) in enumerate(work)
            if self._confirmed.pop(article.path, None) != article.blob
        ]
        if not unconfirmed:
            return problems
        pages = {article.path: page_path(self.slug_of(article)) for _n, article in unconfirmed}

        def read(files: SiteWriter) -> tuple[dict[str, bytes | None], dict[str, Entry | None]]:
            index = self._index(files)
            return {p: files.read(p) for p in pages.values()}, {p: index.entry(p) for p in pages}

        found, entries = self._files.apply(read, texts=[*pages.values(), *_article_files(pages)])
        for number, article in unconfirmed:
            entry = entries[article.path]
            if entry is None or entry.blob != article.blob:
                problems[number] = TransientError("the site index does not list this version")
                continue
            page = found.get(page_path(entry.slug))
            if page is None or page_digest(page) != entry.sha256:
                problems[number] = TransientError(
                    f"/{entry.slug}/index.html does not hold what was written"
                )
        return problems

    def unpublish_batch(self, work: Sequence[tuple[str, PublishedRecord | None]]) -> None:
        """Remove several articles in one write, the listings rewritten once: a push that
        removes ten articles costs what one that adds ten does."""
        texts, oids = self._removal_read(work)
        carried = self._files.apply(self._removal(work), texts=texts, oids=oids)
        self._carried = carried or self._carried

    def _removal(
        self, work: Sequence[tuple[str, PublishedRecord | None]]
    ) -> Callable[[SiteWriter], _Carried | None]:
        """The write removing `work`. What it renders again (the feed's articles, the pages
        beside those removed) it renders from the content at the commit the run looked at,
        or, before a look (a push's removal read ahead), at the commit of the versions
        removed as recorded: each is checked against the digest the site keeps of it."""
        recorded = (previous.commit for _path, previous in work if previous is not None)
        return functools.partial(
            self._unpublish_from,
            paths=[path for path, _previous in work],
            commit=self._looked_at or next(recorded, None),
        )

    def _unpublish_from(
        self, files: SiteWriter, *, paths: Sequence[str], commit: str | None
    ) -> _Carried | None:
        """Inside the site's write: the articles at `paths` taken off the index, their pages
        and images removed, their neighbours relinked, the listings and sitemaps rewritten
        once (None: none of them was on the site, and nothing was written); what is rendered
        again, from the content at `commit`."""
        index, sitemaps = self._open_index(files)
        olds = [(path, old) for path in paths if (old := index.entry(path)) is not None]
        if not olds:
            return None
        touched = [old for _path, old in olds]
        self._want_replaced(index, olds)
        existed = listings_existing(index, listing_pages(touched, index.tag_pages_of))
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

    def _removal_read(
        self, work: Sequence[tuple[str, PublishedRecord | None]]
    ) -> tuple[list[str], list[str]]:
        """What removing these reads in the site's first read (texts, oids)."""
        paths = [path for path, _previous in work]
        # Each page is most likely at the slug made from its path; announcing it saves a read.
        likely_pages = []
        for path in paths:
            with contextlib.suppress(PermanentError):
                likely_pages.append(page_path(self.path_slug(path)))
        # So are the index's files and listing pages the recorded versions changed: announced
        # too, a removal reads twice like a publish, not three times (a wrong guess costs a
        # read, never a wrong removal: what the index holds is what is removed).
        recorded = [(path, e) for path, previous in work if (e := self._recorded(path, previous))]
        texts, oids = _announced(recorded, latin=self._settings.transliterate)
        return [*texts, *_article_files(paths)], [*oids, *likely_pages]

    def finish(self) -> None:
        """Render the listing pages and write the sitemaps this run's batches left
        (`publish_batch` not `final`): one write, after the last batch."""
        self._pages.close()

        def change(files: SiteWriter) -> None:
            index, sitemaps = self._open_index(files)
            if not (index.stale or index.sitemaps_behind):
                return
            sitemap_texts, sitemap_oids = sitemaps.reads((), articles=index.total)
            index.want(
                (), texts=[*listing_reads(index, stale_pages(index)), *sitemap_texts],
                oids=sitemap_oids,
            )  # fmt: skip
            self._render_listings(files, index, ())
            index.sitemaps_behind = None
            sitemaps.flush(articles=index.total)
            index.sitemaps_absent = sitemaps.absent
            index.flush()

        # Superseded: a run of a later commit wrote the site; its next write renders them.
        with contextlib.suppress(Superseded):
            self._files.apply(change, texts=[SUMMARY, STYLED])
        self._carried = _Carried()

    def disagreements(self, *, repair: bool) -> list[str]:
        """A line for each sitemap and listing page that is not what the site's index makes of
        it (`agreement.py`), found by making them all again from the index; `repair`: and
        those files written, in one write (nothing when they all agree)."""
        url = self._address.url

        def compare(files: SiteWriter) -> list[str]:
            comparing = Comparing(files, writing=repair)
            self._make_again(comparing)
            return describe(comparing, url=url)

        try:
            return self._files.apply(compare, texts=[SUMMARY, STYLED, YEARS])
        except Superseded:
            return []  # a run of a later commit wrote the site, the index with it

    def _make_again(self, files: SiteWriter) -> None:
        """Every listing page and sitemap made again from the index, as a write of them all
        would: the listings' every part, and the sitemaps of every page the index names."""
        index, sitemaps = self._open_index(files)
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

    def _render_listings(self, files: SiteWriter, index: SiteIndex, pages: Iterable[str]) -> None:
        """`pages` and the listing pages earlier batches left stale, rendered from the index as
        laid out (`SiteIndex.lay_out`). A stale page changed in writes this index did not see:
        every page of its parts is rendered."""
        stale = stale_pages(index)
        self._singles.listing_pages().write(files, index, {*pages, *stale}, whole=stale)
        index.clear_stale()

    def _recorded(self, path: str, previous: PublishedRecord | None) -> Entry | None:
        """The entry the site most likely holds for the version the ledger recorded, read again
        from the repository as the executor read it; None when that cannot tell (no record, no
        such version)."""
        if self._read_version is None or previous is None:
            return None
        if previous.blob == ABSENT:
            return None
        try:
            article = self._read_version(path, previous.blob, previous.commit)
            # A guess of what the site holds (read ahead before the ledger) names no URL: the
            # one made from its path is the likeliest.
            slug = previous.id if previous.id is not None else self.slug_of(article)
        except (PublishError, GitFailed):
            return None
        if article.date is None:
            return None
        return Entry(
            blob=previous.blob, slug=slug, title=article.title, date=article.date,
            updated=article.updated or article.date, description=None, summary="",
            tags=article.tags, cover=None, assets=(), sha256="",
        )  # fmt: skip

    def _catch_up(self, index: SiteIndex, sitemaps: Sitemaps) -> None:
        """The sitemap changes earlier writes left to this one: those this run carries when the
        index says exactly what its last write said, this run named as its writer; else (a
        run that died, another executor's batches since) the pages of every month it names
        and the stale listing pages, listed again from the index (a page listed already
        changes nothing)."""
        behind = index.sitemaps_behind
        if behind is None:
            return
        if behind == self._carried.behind:
            sitemaps.carry(self._carried.changes)
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

    def _writing_index(self, files: SiteWriter) -> SiteIndex:
        """The site's index for a write: this run's look recorded in it, or `Superseded`
        raised before anything is written when a later commit's run wrote the site
        (`styling.py`). Every write opens the index through here."""
        index = self._index(files)
        if self._keeper is not None:
            self._keeper.hold(index)
        return index

    def _open_index(self, files: SiteWriter) -> tuple[SiteIndex, Sitemaps]:
        """The site's index and sitemaps, this run's look recorded (`_writing_index`). An earlier
        layout's manifest is moved into the index first, once: every listing page and sitemap
        made again, the manifest deleted."""
        index = self._writing_index(files)
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
        pages = listing_pages(manifest.values(), index.tag_pages_of)
        self._singles.listing_pages().write(files, index, pages)
        existing = [page for page, there in listings_existing(index, pages).items() if there]
        sitemaps.rebuild(
            _sitemap_pages(index, (entry.listed for entry in manifest.values()), existing)
        )
        return index, sitemaps


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


def _version(article: Article) -> tuple[str, str, str | None]:
    """What tells one rendering of an article from another: its path, blob and commit (its
    images are read at the commit)."""
    return article.path, article.blob, article.commit


def _first_read(
    batch: Sequence[tuple[Article, Rendered]], static: tuple[list[str], list[str]], *, latin: bool
) -> tuple[list[str], list[str]]:
    """What publishing these renderings reads in the site's first read (texts, oids), with
    the `static` files each write puts (`SiteSingles.static_files`)."""
    batched = [(article.path, rendered.entry) for article, rendered in batch]
    texts, oids = _announced(batched, latin=latin)
    assets = {path for _article, rendered in batch for path in rendered.assets}
    return [*texts, *static[0]], [*oids, *static[1], *sorted(assets)]


def _announced(batch: Sequence[tuple[str, Entry]], *, latin: bool) -> tuple[list[str], list[str]]:
    """What publishing or removing `batch` (path, entry) reads whole (the summary, the look's
    record, the index's files of those entries) and replaces (their pages, listing pages, and
    the feed), asked for in the site's first read. Not the feed's text: the feed's articles
    are rendered again from the content (a removal's, at the commit the run looked at), and
    the feed is read only where that does not give the text it shows."""
    entries = [entry for _path, entry in batch]
    pages = [page_path(entry.slug) for entry in entries]
    texts = {SUMMARY, STYLED, LISTINGS_SITEMAP}
    texts |= set(index_files(batch, latin=latin))
    tag_pages = lambda tag: [tag_path(tag, latin=latin)]  # noqa: E731 - a page a tag
    return sorted(texts), sorted({MANIFEST, FEED, *listing_pages(entries, tag_pages), *pages})


def _article_files(paths: Iterable[str]) -> list[str]:
    return [name for path in paths for name in article_files(path)]


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
