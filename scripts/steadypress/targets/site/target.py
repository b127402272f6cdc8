"""The static site target: a page per article with its images and links to its older and newer
neighbours, the listing pages (`listings.py`), an Atom feed of the newest articles' text and
the sitemaps (`sitemaps.py`), in the theme's templates.

The site keeps its own index (`index.py`), so publishing is idempotent without asking the
ledger, and incremental: one article's new version rewrites its page, its images, the listing
pages of its month, year and tags (old and new), the feed, the sitemaps of the pages that
changed, and the links in the pages of the neighbours whose links change (their pages made
again from the content where that gives the page the index records, else read), from the
index's files of those articles alone. The same content gives the same bytes, and identical
bytes are not written. This module is the target's face to the executor: what it reads ahead,
renders and verifies; each write's work inside the site's files is `writing.py`'s, a removal's
`removals.py`'s, what `verify` reads back `verifying.py`'s, the files it has one of and its
look `singles.py`'s.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from steadypress.content import ContentSource
from steadypress.errors import (
    ArticleError,
    PublishError,
    Superseded,
    TransientError,
)
from steadypress.ledger import Look, PublishedRecord
from steadypress.pageplaces import DEFAULT_PAGES
from steadypress.targets.base import OneByBatches, Receipt, Refreshed
from steadypress.targets.site.again import RenderedAgain
from steadypress.targets.site.agreement import Comparing, describe
from steadypress.targets.site.assets import image_blob
from steadypress.targets.site.feed import SiteFeed, feed_paths
from steadypress.targets.site.files import SiteFiles, SiteWriter
from steadypress.targets.site.index import (
    NEWEST_FILE,
    STYLED,
    SUMMARY,
    YEARS,
)
from steadypress.targets.site.manifest import (
    MANIFEST,
    article_slug,
    page_path,
    path_url_slug,
)
from steadypress.targets.site.opening import Carried
from steadypress.targets.site.removals import SiteRemovals
from steadypress.targets.site.rendering import PageMaker, Rendered
from steadypress.targets.site.renderings import SiteRenderings
from steadypress.targets.site.settings import (
    SiteAddress,
    SiteSettings,
    site_address,
)
from steadypress.targets.site.singles import SHOWING, SiteSingles, site_look
from steadypress.targets.site.styling import History, LookKeeper
from steadypress.targets.site.verifying import SiteVerifier
from steadypress.targets.site.writing import (
    SiteWrites,
    first_read,
)
from steadypress.theme import Theme

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.targets.context import TargetContext

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
        pages=content.pages,
    )


def _theme_file(content: ContentSource, path: str) -> bytes | None:
    found = content.asset(path, commit=content.head())
    return found[1] if found is not None else None


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
        pages: tuple[str, ...] = DEFAULT_PAGES,
    ) -> None:
        """`assets` reads a repository file at a commit; `read_version` an article's version
        (path, blob, commit) as the executor reads it (a removal guesses from it what the
        site holds of the version gone: None, and it reads the site to learn it); `parse_at`
        articles as they are at a commit (commit, paths), with no history (the feed's newest
        articles rendered again: None, and it reads them from the feed);
        `theme_files` the git ids of the theme folder's files at a commit, by name; `history`
        orders this run's look after or before the one the site was written with (None: it
        is neither recorded nor compared); `pages` the files and folders of pages beside the
        articles (`Config.pages`), which the look depends on."""
        self._name = name
        self._page_places = pages
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
        # The writes put the singles, and the singles' writes open the index as they do.
        self._singles = SiteSingles(
            files,
            self._maker,
            settings,
            writing_index=lambda f: self._writes.opener.writing_index(f),  # noqa: PLW0108 - made below
        )
        self._renderings = SiteRenderings(self._maker)
        self._again = RenderedAgain(self._maker, parse_at)
        self._feed = SiteFeed(
            maker=self._maker, again=self._again, title=settings.title, address=address,
            content_dir=content_dir,
            also_at=feed_paths(settings),
        )  # fmt: skip
        self._writes = SiteWrites(
            maker=self._maker, feed=self._feed, again=self._again, singles=self._singles,
            settings=settings, address=address, keeper=self._keeper,
        )  # fmt: skip
        self._verifier = SiteVerifier(files, index=self._writes.opener.index, slug_of=self.slug_of)
        self._removals = SiteRemovals(
            self._writes, content_dir=content_dir, latin=settings.transliterate,
            read_version=read_version,
        )  # fmt: skip

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
        self._files.read_ahead(lambda: ((), (SUMMARY, NEWEST_FILE, MANIFEST)))

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
        return site_look(self._settings, self._address, theme, page_places=self._page_places)

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
            lambda files: self._writes.opener.index(files).styled,
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
            pages=self._page_places,
        )
        rehearsal._renderings.adopt(self._renderings)
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
        rendered = self._renderings.one(article)
        if isinstance(rendered, PublishError):
            raise rendered
        for reference in rendered.elsewhere:  # an image the repository lacks, in any form
            image_blob(self._assets, article, reference, content_dir=self._content_dir)
        return rendered.entry.slug

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
            self._files.read_ahead(
                lambda: self._removals.first_read(removals),
                self._removals.write(removals, looked_at=self._looked_at),
            )
        else:
            self._files.read_ahead(
                lambda: first_read(
                    self._renderings.ok(articles()),
                    self._singles.static_files(),
                    latin=self._settings.transliterate,
                ),
                lambda files: self._writes.publish_into(
                    files,
                    [(n, *row) for n, row in enumerate(self._renderings.ok(articles()))],
                    final=True,
                ),
            )

    def expect(self, count: int) -> None:
        """The workers started now, if they would render batches of `count`: each builds its
        renderer while the plan reads the articles."""
        self._renderings.expect(count)

    def render_ahead(self, count: int, articles: Callable[[], Sequence[Article]]) -> None:
        """Start rendering the pages of articles likely handed to a later `publish_batch`
        (the workers render them meanwhile), when there are enough for the workers: fewer are
        not even read. Nothing is written."""
        self._renderings.ahead(count, articles)

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
        renders = self._renderings.rendered([article for article, _previous in work], keep_alive)
        self._renderings.forget()
        if final:  # the run's batches are all rendered: its workers go
            self._renderings.close()
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
        file_later = not final and self._files.batches_leave_unfiled
        if batch:
            texts, oids = first_read(
                [(article, r) for _n, article, r in batch],
                self._singles.static_files(),
                latin=self._settings.transliterate,
            )
            refused, written, carried = self._files.apply(
                lambda files: self._writes.publish_into(
                    files, batch, final=final, again=again, file_later=file_later
                ),
                texts=texts,
                oids=oids,
            )
            self._writes.opener.carried = carried or self._writes.opener.carried
            for number, refusal in refused.items():
                results[number] = refusal
            if self._files.confirms_writes:
                self._verifier.confirmed(written)
        return results

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        return self._verifier.verify(work)

    def unpublish_batch(self, work: Sequence[tuple[str, PublishedRecord | None]]) -> None:
        """Remove several articles in one write, the listings rewritten once: a push that
        removes ten articles costs what one that adds ten does."""
        texts, oids = self._removals.first_read(work)
        write = self._removals.write(work, looked_at=self._looked_at)
        carried = self._files.apply(write, texts=texts, oids=oids)
        self._writes.opener.carried = carried or self._writes.opener.carried

    def finish(self) -> None:
        """Render the listing pages and write the sitemaps this run's batches left
        (`publish_batch` not `final`): one write, after the last batch."""
        self._renderings.close()

        # Superseded: a run of a later commit wrote the site; its next write renders them.
        with contextlib.suppress(Superseded):
            self._files.apply(
                self._writes.listings.finish_into, texts=[SUMMARY, NEWEST_FILE, STYLED]
            )
        self._writes.opener.carried = Carried()

    def disagreements(self, *, repair: bool) -> list[str]:
        """A line for each sitemap and listing page that is not what the site's index makes of
        it (`agreement.py`), found by making them all again from the index; `repair`: and
        those files written, in one write (nothing when they all agree)."""
        url = self._address.url

        def compare(files: SiteWriter) -> list[str]:
            comparing = Comparing(files, writing=repair)
            self._writes.listings.make_again(comparing)
            return describe(comparing, url=url)

        try:
            return self._files.apply(compare, texts=[SUMMARY, NEWEST_FILE, STYLED, YEARS])
        except Superseded:
            return []  # a run of a later commit wrote the site, the index with it
