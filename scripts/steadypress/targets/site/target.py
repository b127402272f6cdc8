"""The static site target: a page per article with its images and links to its older and newer
neighbours, an index, an Atom feed of the newest articles' text, a sitemap index over sitemaps,
and a page per tag, in the theme's templates.

The site keeps its own manifest (`manifest.py`), so publishing is idempotent without asking
the ledger, and incremental: one article's new version rewrites its page, its images, the
index, the feed, the sitemap index and two sitemaps, the pages of its tags (old and new), and
the links in the pages of the neighbours it changed, built from the manifest without reading
any other article. The same content gives the same bytes, and identical bytes are not written.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from html import escape, unescape
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from markupsafe import Markup

from steadypress.content import ContentSource
from steadypress.errors import PermanentError, PublishError, TransientError
from steadypress.feeds import FeedEntry, atom_feed, feed_contents, sitemap, sitemap_index
from steadypress.ledger import PublishedRecord
from steadypress.render import is_relative_reference, reading_minutes, render_markdown
from steadypress.targets.base import Receipt
from steadypress.targets.site.assets import asset_site_path, image_blob
from steadypress.targets.site.files import SiteFiles, SiteWriter
from steadypress.targets.site.listings import (
    ARCHIVE_INDEX,
    Listing,
    ListingPages,
    human_date,
    listing_pages,
)
from steadypress.targets.site.manifest import (
    CNAME,
    FEED,
    GENERATED_FOLDERS,
    GENERATOR,
    INDEX,
    MANIFEST,
    NO_JEKYLL,
    NOT_FOUND,
    OLD_SITEMAP_PAGES,
    SITEMAP,
    STYLESHEET,
    TAGS_INDEX,
    Entry,
    article_slug,
    encode_manifest,
    is_site_path,
    page_path,
    path_slug_source,
    read_manifest,
    sitemap_shard,
    tag_path,
    url_slug,
)
from steadypress.targets.site.settings import SiteAddress, SiteSettings, site_address
from steadypress.theme import Theme
from steadypress.timefmt import format_time

if TYPE_CHECKING:
    from steadypress.content import Article
    from steadypress.targets.registry import TargetContext

__all__ = ["SiteTarget", "build", "build_site"]

# The files a publish or a removal rewrites besides the article's own, asked by id (the feed is
# read whole: it holds the newest articles' text).
_LISTINGS = (INDEX, SITEMAP, OLD_SITEMAP_PAGES, TAGS_INDEX, ARCHIVE_INDEX)


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
    )


def _theme_file(content: ContentSource, path: str) -> bytes | None:
    found = content.asset(path, commit=content.head())
    return found[1] if found is not None else None


@dataclass(frozen=True)
class _Rendered:
    page: bytes
    entry: Entry
    assets: dict[str, bytes]  # site path -> bytes
    html: str  # the article's body, for the feed


def _summary(html: str, limit: int = 240) -> str:
    """The first words of an article as plain text, for feeds and lists with no description."""
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


class SiteTarget:
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
    ) -> None:
        self._name = name
        self._files = files
        self._settings = settings
        self._address = address
        self._content_dir = content_dir
        self._theme = theme
        self._assets = assets
        self._stylesheet: bytes | None = None

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return None

    def slug_of(self, article: Article) -> str:
        return article_slug(article, self._content_dir)

    def check(self, article: Article) -> str:
        """Everything `publish` would refuse, found without writing: the URL, the images, the
        render through the theme. Returns the article's URL path."""
        return self._render(article).entry.slug

    # -- rendering ----------------------------------------------------------------------------

    def _site(self) -> dict[str, str]:
        return {
            "title": self._settings.title,
            "url": self._address.url,
            "base_url": self._address.base_url,
            "language": self._settings.language,
        }

    def _href(self, site_path: str) -> str:
        return self._address.base_url + site_path.removesuffix("index.html")

    def _absolute(self, site_path_or_url: str) -> str:
        if "://" in site_path_or_url:
            return site_path_or_url
        return self._address.url + site_path_or_url.removesuffix("index.html")

    def _asset(self, article: Article, reference: str, assets: dict[str, bytes]) -> str:
        """Publish the image `reference` (relative to the article) and return its site path."""
        location, oid, data = image_blob(self._assets, article, reference)
        site_path = asset_site_path(location, oid)
        assets[site_path] = data
        return site_path

    def _render(self, article: Article) -> _Rendered:
        slug = self.slug_of(article)
        assets: dict[str, bytes] = {}
        body = render_markdown(
            article.body,
            image_src=lambda src: self._address.base_url + self._asset(article, src, assets),
        )
        cover = article.cover_image
        if cover and is_relative_reference(cover):
            cover = self._asset(article, cover, assets)
        date = _date_of(article)
        tags = [{"name": tag, "href": self._href(tag_path(tag))} for tag in article.tags]
        url = self._absolute(page_path(slug))
        page = self._theme.render(
            "article.html",
            site=self._site(),
            # Linked once the site's other articles are known (`_linked`), when written.
            older=None,
            newer=None,
            article={
                "title": article.title,
                "description": article.description,
                "date_iso": format_time(date),
                "date_human": human_date(date),
                "reading_minutes": reading_minutes(article.body),
                "tags": tags,
                "cover": (self._href(cover) if cover and not urlparse(cover).scheme else cover),
                "cover_absolute": self._absolute(cover) if cover else None,
                "url": url,
                "canonical": article.canonical_url or url,
                # Rendered by markdown-it from the author's own article: trusted, as DESIGN says.
                "body": Markup(body),  # noqa: S704
            },
        )
        entry = Entry(
            blob=article.blob,
            slug=slug,
            title=article.title,
            date=date,
            updated=article.updated or date,
            description=article.description,
            summary=article.description or _summary(body),
            tags=article.tags,
            cover=cover,
            assets=tuple(sorted(assets)),
            sha256=hashlib.sha256(page).hexdigest(),
            aliases=tuple(sorted(redirects := self._redirects(article, url))),
        )
        return _Rendered(page=page, entry=entry, assets={**assets, **redirects}, html=body)

    def _redirects(self, article: Article, url: str) -> dict[str, bytes]:
        """A page at each old URL of the article that sends readers (and search engines, by
        the canonical link) to where it is now."""
        pages = {}
        for alias in article.aliases:
            relative = alias.removeprefix(self._address.base_url).lstrip("/")
            path = relative if relative.endswith(".html") else f"{relative.rstrip('/')}/index.html"
            if not relative or not is_site_path(path) or path.split("/")[0] in GENERATED_FOLDERS:
                raise PermanentError(f"alias {alias!r} is not a path this site can hold")
            target = escape(url, quote=True)
            pages[path] = (
                f'<!doctype html>\n<html lang="{escape(self._settings.language, quote=True)}">'
                f'<head><meta charset="utf-8">{GENERATOR.decode()}'
                f'<meta http-equiv="refresh" content="0; url={target}">'
                f'<link rel="canonical" href="{target}"><title>Moved</title></head>\n'
                f'<body><p>This page has moved to <a href="{target}">{target}</a>.</p></body>'
                "</html>\n"
            ).encode()
        return pages

    def _write_shared(
        self,
        files: SiteWriter,
        manifest: Mapping[str, Entry],
        touched: Iterable[Entry],
        changed: Mapping[str, str | None],
    ) -> None:
        """The files that list articles: the listing pages that list `touched` (the versions
        before and after of the articles that changed), the feed, and the sitemaps. `changed`
        is the slugs of the articles published or removed, with the HTML of those published."""
        listing = Listing.of(manifest.values())
        pages = listing_pages(touched)
        ListingPages(
            self._theme, self._site(), href=self._href, absolute=self._absolute,
            page_of=lambda entry: page_path(entry.slug),
        ).write(files, listing, pages)  # fmt: skip
        self._write_feed(files, listing.newest, changed)
        pages.update(page_path(slug) for slug in changed)
        self._write_sitemaps(files, manifest, listing, pages)

    def _write_feed(
        self, files: SiteWriter, newest: list[Entry], changed: Mapping[str, str | None]
    ) -> None:
        """The newest articles with their whole text: this batch's from its rendering, the
        others' from the feed as it was (an article entering the feed whose text is not known,
        after a newer one was removed, shows its summary alone)."""
        known = feed_contents(files.read(FEED))
        feed = []
        for entry in newest:
            url = self._absolute(page_path(entry.slug))
            feed.append(FeedEntry(
                title=entry.title, url=url, published=entry.date, updated=entry.updated,
                summary=entry.summary, tags=entry.tags,
                cover=self._absolute(entry.cover) if entry.cover else None,
                content=changed.get(entry.slug) or known.get(url),
            ))  # fmt: skip
        files.put(FEED, atom_feed(title=self._settings.title, url=self._address.url, entries=feed))

    def _write_sitemaps(
        self,
        files: SiteWriter,
        manifest: Mapping[str, Entry],
        listing: Listing,
        pages: Iterable[str],
    ) -> None:
        """The sitemap index, and the sitemaps of `pages` (every sitemap the first time, or
        after an older layout): every page of the site is in the sitemap its path hashes to."""
        last = listing.last_changes()
        last.update((page_path(entry.slug), entry.updated) for entry in manifest.values())
        shards: dict[str, list[str]] = {}
        for page in last:
            shards.setdefault(sitemap_shard(page), []).append(page)
        if files.exists(SITEMAP) and not files.exists(OLD_SITEMAP_PAGES):
            rewrite = {sitemap_shard(page) for page in pages}
        else:
            files.remove(OLD_SITEMAP_PAGES)
            rewrite = set(shards) | {sitemap_shard(page) for page in pages}
            files.want(oids=rewrite)
        for path in sorted(rewrite):
            listed = shards.get(path)
            if listed:
                files.put(path, sitemap([(self._absolute(page), last[page]) for page in listed]))
            else:
                files.remove(path)
        index = [
            (self._absolute(path), max(filter(None, (last[page] for page in listed)), default=None))
            for path, listed in shards.items()
        ]
        files.put(SITEMAP, sitemap_index(index))

    def _put_static(self, files: SiteWriter) -> None:
        if self._stylesheet is None:
            self._stylesheet = self._theme.stylesheet()
        files.put(STYLESHEET, self._stylesheet)
        # An old site's own 404 page stays: steadypress replaces no file it did not write.
        if not _written_by_someone_else(files, NOT_FOUND):
            files.put(NOT_FOUND, self._theme.render("404.html", site=self._site()))
        files.put(NO_JEKYLL, b"")
        if self._settings.cname:
            files.put(CNAME, f"{self._settings.cname}\n".encode())

    # -- the Target protocol ------------------------------------------------------------------

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        (result,) = self.publish_batch([(article, previous)])
        if isinstance(result, PublishError):
            raise result
        return result

    def verify(self, article: Article, receipt: Receipt) -> None:
        (problem,) = self.verify_batch([(article, receipt)])
        if problem is not None:
            raise problem

    def publish_batch(
        self, work: Sequence[tuple[Article, PublishedRecord | None]]
    ) -> list[Receipt | PublishError]:
        """Publish several articles in one write: their pages and images, and the shared files
        (index, feed, sitemap, manifest, tag pages) once for all of them. An article that cannot
        be published (a missing image, a URL already taken) fails alone."""
        results: list[Receipt | PublishError] = []
        batch: list[tuple[int, Article, _Rendered]] = []
        for index, (article, _previous) in enumerate(work):
            try:
                rendered = self._render(article)
            except PublishError as error:
                results.append(error)
                continue
            batch.append((index, article, rendered))
            slug = rendered.entry.slug
            results.append(Receipt(url=self._absolute(page_path(slug)), id=slug))

        if batch:
            refused = self._files.apply(
                lambda files: self._publish_into(files, batch),
                # The 404 page is read whole: an old site's own is left alone (it is small).
                texts=[MANIFEST, NOT_FOUND, FEED],
                oids=[*_LISTINGS, STYLESHEET, NO_JEKYLL, NOT_FOUND,
                      *_announced([rendered.entry for _index, _article, rendered in batch]),
                      *{path for _index, _article, rendered in batch for path in rendered.assets}],
            )  # fmt: skip
            for index, refusal in refused.items():
                results[index] = refusal
        return results

    def _publish_into(
        self, files: SiteWriter, batch: Sequence[tuple[int, Article, _Rendered]]
    ) -> dict[int, PublishError]:
        """Inside the site's write: the batch's pages linked to their neighbours and written
        (an article that cannot be, refused alone), the pages of their neighbours relinked,
        the listings rewritten once; returns the refusals, by index."""
        manifest = read_manifest(files)
        before = dict(manifest)
        owners = {entry.slug: path for path, entry in manifest.items()}
        refused: dict[int, PublishError] = {}
        accepted = []
        for index, article, rendered in batch:
            entry, old = rendered.entry, manifest.get(article.path)
            refusal = _refusal(files, owners, article.path, entry, old)
            if refusal is not None:
                refused[index] = refusal
                continue
            accepted.append((index, article, rendered))
            if old is not None and old.slug != entry.slug:
                owners.pop(old.slug, None)
            owners[entry.slug] = article.path
            manifest[article.path] = entry  # in place, to know its neighbours
        neighbours = _navigation(manifest)
        # What the writes below read and replace, fetched together: the pages of the neighbours
        # to relink, the listings of the versions before and after.
        relinks = _relinks(
            before,
            manifest,
            {path: neighbours[path] for path in manifest if manifest[path] is not before.get(path)},
        )
        news = [rendered.entry for _index, _article, rendered in accepted]
        olds = [old for entry in news if (old := before.get(owners[entry.slug])) is not None]
        files.want(texts=[page_path(manifest[path].slug) for path in relinks],
                   oids=_announced([*news, *olds]))  # fmt: skip
        linked: dict[str, Nav] = {}  # the batch's pages, by the links they were written with
        changed: dict[str, str | None] = {}  # slug -> its HTML (None: it is gone)
        touched: list[Entry] = []  # the versions before and after of what changed
        replaced: list[Entry] = []
        for index, article, rendered in accepted:
            old = before.get(article.path)
            page = self._linked(rendered.page, neighbours[article.path])
            entry = replace(rendered.entry, sha256=hashlib.sha256(page).hexdigest())
            if old is not None and old.slug != entry.slug:
                files.remove(page_path(old.slug))
            refusal = _write_article(files, replace(rendered, page=page))
            if refusal is not None:
                refused[index] = refusal
                _restore(manifest, article.path, old)
                continue
            manifest[article.path] = entry
            linked[article.path] = neighbours[article.path]
            if old != entry:
                if old is not None:
                    changed[old.slug] = None
                changed[entry.slug] = rendered.html
                touched.extend([entry, old] if old else [entry])
                replaced.extend([old] if old else [])
        self._put_static(files)
        self._relink(files, before, manifest, linked)
        if changed:
            self._write_listings(files, manifest, touched, replaced, changed)
        return refused

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        """Read the pages and the manifest back in one read: the manifest must list each
        version, and each page hold what the manifest says it holds (its digest; a page's links
        to its neighbours may have been rewritten since it was, by this run or another)."""
        pages = {article.path: page_path(self.slug_of(article)) for article, _receipt in work}
        found, manifest = self._files.apply(
            lambda files: ({p: files.read(p) for p in pages.values()}, read_manifest(files)),
            texts=[*pages.values(), MANIFEST],
        )
        problems: list[TransientError | None] = []
        for article, _receipt in work:
            entry = manifest.get(article.path)
            if entry is None or entry.blob != article.blob:
                problems.append(TransientError("the site index does not list this version"))
                continue
            page = found.get(page_path(entry.slug))
            if page is None or hashlib.sha256(page).hexdigest() != entry.sha256:
                problems.append(
                    TransientError(f"/{entry.slug}/index.html does not hold what was written")
                )
            else:
                problems.append(None)
        return problems

    def _linked(self, page: bytes, nav: Nav) -> bytes:
        """`page` with its links to the older and newer article (the `neighbours.html` part
        between its markers; a theme without them has none to change)."""
        start, end = page.find(_NAV_START), page.find(_NAV_END)
        if start < 0 or end < start:
            return page
        older, newer = (
            {"title": title, "href": self._href(page_path(slug))} if slug else None
            for slug, title in nav
        )
        block = self._theme.render("neighbours.html", site=self._site(), older=older, newer=newer)
        return page[:start] + block.rstrip(b"\n") + page[end + len(_NAV_END) :]

    def _relink(
        self,
        files: SiteWriter,
        before: Mapping[str, Entry],
        manifest: dict[str, Entry],
        linked: Mapping[str, Nav],
    ) -> None:
        """The pages whose older or newer article changed (besides those just written with
        `linked`), their links rewritten in place, and their digests kept in the manifest."""
        for path, nav in _relinks(before, manifest, linked).items():
            entry = manifest[path]
            page = files.read(page_path(entry.slug))
            if page is None or GENERATOR not in page:
                continue
            relinked = self._linked(page, nav)
            if relinked != page:
                files.put(page_path(entry.slug), relinked)
                manifest[path] = replace(entry, sha256=hashlib.sha256(relinked).hexdigest())

    def _write_listings(
        self,
        files: SiteWriter,
        manifest: Mapping[str, Entry],
        touched: Iterable[Entry],
        replaced: Iterable[Entry],
        changed: Mapping[str, str | None],
    ) -> None:
        """After articles changed: the shared files, the images nobody uses any more, and the
        manifest."""
        self._write_shared(files, manifest, touched, changed)
        for old in replaced:
            _remove_orphans(files, manifest, old)
        files.put(MANIFEST, encode_manifest(manifest))

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        """Remove the article's page, its images, and its entries in the shared files."""
        self.unpublish_batch([(path, previous)])

    def unpublish_batch(self, work: Sequence[tuple[str, PublishedRecord | None]]) -> None:
        """Remove several articles in one write, the shared files rewritten once: a push that
        removes ten articles costs what one that adds ten does."""
        paths = [path for path, _previous in work]

        def change(files: SiteWriter) -> None:
            manifest = read_manifest(files)
            before = dict(manifest)
            removed = [entry for path in paths if (entry := manifest.pop(path, None))]
            if not removed:
                return
            files.want(
                texts=[page_path(manifest[path].slug) for path in _relinks(before, manifest, {})],
                oids=_announced(removed),
            )
            for entry in removed:
                files.remove(page_path(entry.slug))
            self._relink(files, before, manifest, {})
            gone = dict.fromkeys((entry.slug for entry in removed), None)
            self._write_listings(files, manifest, removed, removed, gone)

        # Each page is most likely at the slug made from its path; announcing it saves a read.
        likely_pages = []
        for path in paths:
            with contextlib.suppress(PermanentError):
                likely_pages.append(page_path(url_slug(path_slug_source(path, self._content_dir))))
        self._files.apply(
            change,
            texts=[MANIFEST, FEED],
            oids=[*_LISTINGS, *likely_pages, *map(sitemap_shard, likely_pages)],
        )  # fmt: skip


# An article's older and newer neighbour, by date: (slug, title) of each, or (None, None).
Nav = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]
_NAV_START, _NAV_END = b"<!--steadypress:neighbours-->", b"<!--/steadypress:neighbours-->"


def _navigation(manifest: Mapping[str, Entry]) -> dict[str, Nav]:
    """Each article's neighbours in date order (the slug breaks a tie)."""
    ordered = sorted(manifest.items(), key=lambda item: (item[1].date, item[1].slug))
    navs: dict[str, Nav] = {}
    for number, (path, _entry) in enumerate(ordered):
        older = ordered[number - 1][1] if number > 0 else None
        newer = ordered[number + 1][1] if number + 1 < len(ordered) else None
        navs[path] = (
            (older.slug, older.title) if older else (None, None),
            (newer.slug, newer.title) if newer else (None, None),
        )
    return navs


def _relinks(
    before: Mapping[str, Entry], manifest: Mapping[str, Entry], linked: Mapping[str, Nav]
) -> dict[str, Nav]:
    """The articles whose older or newer neighbour is not what their page links to (`linked`:
    the pages being written, by the links they are written with), and the links they need."""
    was = {**_navigation(before), **linked}
    return {path: nav for path, nav in _navigation(manifest).items() if was.get(path) != nav}


def _announced(entries: Sequence[Entry]) -> set[str]:
    """What publishing `entries` puts (their pages, the pages listing them, the sitemaps of
    all these), asked for by id in the site's first read."""
    pages = listing_pages(entries) | {page_path(entry.slug) for entry in entries}
    return pages | {sitemap_shard(page) for page in pages}


def _restore(manifest: dict[str, Entry], path: str, old: Entry | None) -> None:
    if old is None:
        manifest.pop(path, None)
    else:
        manifest[path] = old


def _remove_orphans(
    files: SiteWriter, manifest: Mapping[str, Entry], previous: Entry | None
) -> None:
    """Images and redirect pages the previous version had that no article has any more."""
    if previous is None:
        return
    used = {path for entry in manifest.values() for path in (*entry.assets, *entry.aliases)}
    for path in (*previous.assets, *previous.aliases):
        if path not in used:
            files.remove(path)


def _refusal(
    files: SiteWriter, owners: Mapping[str, str], path: str, entry: Entry, old: Entry | None
) -> PermanentError | None:
    """Why the article may not take its URL: another article has it, or a file is there that
    steadypress did not write."""
    owner = owners.get(entry.slug, path)
    if owner != path:
        return PermanentError(f"URL /{entry.slug}/ is already used by {owner}")
    return _foreign_file(files, entry, old)


def _write_article(files: SiteWriter, rendered: _Rendered) -> PermanentError | None:
    """The article's own files; an error writing them fails this article only."""
    page = page_path(rendered.entry.slug)
    try:
        files.put(page, rendered.page)
        for path, data in rendered.assets.items():
            files.put(path, data)
    except OSError as error:
        return PermanentError(f"{page} could not be written: {error.strerror}")
    return None


def _foreign_file(files: SiteWriter, entry: Entry, old: Entry | None) -> PermanentError | None:
    """Why the article may not be written: a file at its page that is not its own and that
    steadypress did not write. (An alias may replace such a file: the author named that very
    URL, which is how an old blog's page becomes a redirect to its new one.)"""
    mine = set() if old is None else {page_path(old.slug)}
    for path in (page_path(entry.slug),):
        if path not in mine and _written_by_someone_else(files, path):
            return PermanentError(
                f"{path} is already on the site and steadypress did not write it (a page of "
                "the old site?): steadypress never replaces such a file; remove it, or give the "
                "article another `slug`"
            )
    return None


def _written_by_someone_else(files: SiteWriter, path: str) -> bool:
    """A file already at `path` that steadypress did not write (no generator mark in it); read
    only when there is one, which on a site steadypress made alone there never is."""
    return files.exists(path) and GENERATOR not in (files.read(path) or b"")


def _date_of(article: Article) -> datetime:
    # ContentSource fills a missing date from the commit; an Article built elsewhere may lack one.
    if article.date is None:
        raise PermanentError("no date to show")
    return article.date
