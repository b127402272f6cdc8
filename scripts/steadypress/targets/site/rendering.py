"""An article's page on the site: its HTML in the theme's templates, its images and redirect
pages, and its entry in the site's index; a function of the article, the site's settings and
the repository's images, so that any process may make it (`RenderPool`)."""

from __future__ import annotations

import hashlib
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from html import escape, unescape
from typing import Any
from urllib.parse import urljoin, urlparse

from markupsafe import Markup

from steadypress.articles import Article
from steadypress.errors import PermanentError
from steadypress.render import is_repository_reference, prerender, reading_minutes
from steadypress.targets.site.assets import asset_site_path, find_image, under_site_path
from steadypress.targets.site.indexdates import Nav
from steadypress.targets.site.listings import human_date
from steadypress.targets.site.manifest import (
    GENERATOR,
    INDEXED_DIGITS,
    Entry,
    article_slug,
    check_tags,
    indexed_version,
    is_reserved,
    is_site_path,
    marked,
    page_path,
    redirect_file,
    redirect_path,
    tag_path,
)
from steadypress.targets.site.old_urls import old_urls
from steadypress.targets.site.settings import SiteAddress, SiteSettings, old_layout
from steadypress.targets.site.sitemaps import address_of
from steadypress.theme import Theme
from steadypress.timefmt import format_time

__all__ = ["PageMaker", "Rendered", "page_digest", "summary_of"]

_NAV_START, _NAV_END = b"<!--steadypress:neighbours-->", b"<!--/steadypress:neighbours-->"
# A link of an article's text to a path from the host's root (not `//host/...`).
_ROOT_LINK = re.compile(r'(<a\s(?:[^>]*?\s)?href=")(/(?!/)[^"]*)"')


@dataclass(frozen=True)
class Rendered:
    """An article's page as rendered, its index entry, the files it brings (images, redirect
    pages) and its body's HTML."""

    page: bytes
    entry: Entry
    assets: dict[str, bytes]  # site path -> bytes
    html: str  # the article's body, for the feed
    # Root-absolute images the repository does not hold, left as written (`check` names them).
    elsewhere: tuple[str, ...] = ()


class PageMaker:
    """Makes an article's page and what comes with it, and the parts every page shares (the
    site's header, the links to an article's neighbours)."""

    def __init__(
        self,
        *,
        settings: SiteSettings,
        address: SiteAddress,
        content_dir: str,
        theme: Theme,
        assets: Callable[..., tuple[str, bytes] | None],
    ) -> None:
        self._settings = settings
        self._old_layout = old_layout(settings)  # None: the blog moved from no generator
        self._address = address
        self._content_dir = content_dir
        self.theme = theme
        self._assets = assets

    def site(self) -> dict[str, Any]:
        return {
            "title": self._settings.title,
            "url": self._address.url,
            "base_url": self._address.base_url,
            "language": self._settings.language,
            "menu": [
                {"title": title, "href": link if "://" in link else self.href(link.lstrip("/"))}
                for title, link in self._settings.menu
            ],
        }

    def href(self, site_path: str) -> str:
        return self._address.base_url + address_of(site_path)

    def absolute(self, site_path_or_url: str) -> str:
        if "://" in site_path_or_url:
            return site_path_or_url
        return self._address.url + address_of(site_path_or_url)

    def _asset(self, article: Article, reference: str, assets: dict[str, bytes]) -> str | None:
        """Publish the image `reference` (a path of the repository: `targets/site/assets.py`)
        and return its site path; None for a root-absolute one the repository does not hold,
        which the site may serve from elsewhere, and which is left as written."""
        found = find_image(self._assets, article, reference, content_dir=self._content_dir)
        if found is None:
            return None
        location, oid, data = found
        site_path = asset_site_path(location, oid)
        assets[site_path] = data
        return site_path

    def render(self, article: Article) -> Rendered:
        """The article's page, images and index entry: a function of the article (and the
        repository's images), so that any process may render it (`RenderPool`)."""
        latin = self._settings.transliterate
        slug = article_slug(article, self._content_dir, latin=latin)
        assets: dict[str, bytes] = {}
        elsewhere: list[str] = []
        body = self.body(article, assets, elsewhere)
        cover = article.cover_image
        if cover and is_repository_reference(cover):
            served = self._asset(article, cover, assets)
            if served is None:
                elsewhere.append(cover)
            # On the site's host, whatever the site's own path (a project site's `/REPO/`).
            cover = served or urljoin(self._address.url, cover)
        date = _date_of(article)
        tagged = () if article.page else article.tags  # a page is on no tag's page
        check_tags(tagged, latin=latin)
        tags = [{"name": tag, "href": self.href(tag_path(tag, latin=latin))} for tag in tagged]
        url = self.absolute(page_path(slug))
        page = self.theme.render(
            "page.html" if article.page else "article.html",
            site=self.site(),
            # Linked once the site's other articles are known (`linked`), when written.
            older=None,
            newer=None,
            article={
                "title": article.title,
                "description": article.description,
                "date_iso": format_time(date),
                "date_human": human_date(date),
                "reading_minutes": reading_minutes(article.body),
                "tags": tags,
                "cover": (self.href(cover) if cover and not urlparse(cover).scheme else cover),
                "cover_absolute": self.absolute(cover) if cover else None,
                "url": url,
                "canonical": article.canonical_url or url,
                # Rendered from the author's own article, raw HTML kept: trusted, as DESIGN says.
                "body": Markup(body),  # noqa: S704
            },
        )
        page = marked(page)  # a theme's own template may carry no generator meta
        entry = Entry(
            blob=indexed_version(article.blob),
            slug=slug,
            title=article.title,
            date=date,
            updated=article.updated or date,
            description=article.description,
            summary=article.description or summary_of(body),
            tags=tagged,
            cover=cover,
            assets=tuple(sorted(assets)),
            sha256=page_digest(page),
            aliases=tuple(sorted(redirects := self._redirects(article, url, page_path(slug)))),
            is_page=article.page,
        )
        return Rendered(
            page=page, entry=entry, assets={**assets, **redirects}, html=body,
            elsewhere=tuple(elsewhere),
        )  # fmt: skip

    def body(
        self, article: Article, assets: dict[str, bytes], elsewhere: list[str] | None = None
    ) -> str:
        """The article's text as HTML, its images published into `assets`: what its page and
        the feed show. A root-absolute image the repository does not hold is left as written,
        and noted in `elsewhere`."""

        def served(src: str) -> str:
            site_path = self._asset(article, src, assets)
            if site_path is None:
                if elsewhere is not None:
                    elsewhere.append(src)
                return src
            return self._address.base_url + site_path

        return self._rebased(prerender(article.body).resolve(served))

    def _rebased(self, html: str) -> str:
        """`html` with each link to a path from the host's root (`/about/`, as a Jekyll post's
        `{{ site.baseurl }}{% post_url %}` becomes) under the site's own path, where the site
        has one (a project site's `/REPO/`); a link under it already is left as it is."""
        base = self._address.base_url
        if base == "/":
            return html
        return _ROOT_LINK.sub(lambda link: f'{link[1]}{under_site_path(link[2], base)}"', html)

    def warm(self) -> None:
        """A worker's renderer readied before any article comes: the Markdown renderer loaded,
        the article's templates compiled."""
        prerender("")
        self.theme.compile("article.html", "page.html", "meta.html", "base.html", "neighbours.html")

    def _redirects(self, article: Article, url: str, page: str) -> dict[str, bytes]:
        """A page at each old URL of the article that sends readers (and search engines, by
        the canonical link) to `url`, where its `page` is now. An old URL on a name the site
        itself writes is refused, unwritten."""
        pages = {}
        layout = self._old_layout
        # Each old URL is named in `aliases` (a mistake in one is the author's to hear of) or
        # worked out as the generator the blog moved from placed the article (`old_urls`).
        worked_out = [] if layout is None else [
            (url, f"{layout.generator} URL") for url in old_urls(article, self._content_dir, layout)
        ]  # fmt: skip
        # A relative alias is read from the URL the blog's generator gave the article.
        beside = next((url.lstrip("/") for url, _what in worked_out if url.endswith("/")), None)
        named = [
            (_from_page(page if beside is None else page_path(beside.rstrip("/")), alias), "alias")
            for alias in article.aliases
        ]
        for alias, what in [*named, *worked_out]:
            relative = alias.removeprefix(self._address.base_url).lstrip("/")
            path = redirect_path(relative)
            if not relative or not is_site_path(path):
                raise PermanentError(f"{what} {alias!r} is not a path this site can hold")
            if is_reserved(path.split("/")[0]):
                raise PermanentError(
                    f"{what} {alias!r} would replace /{path.split('/')[0]}, which the site "
                    "itself writes"
                )
            if path == page:
                if what != "alias":
                    continue  # the article is where it was
                raise PermanentError(f"alias {alias!r} is the article's own URL; remove it")
            pages[path] = self.redirect_page(url)
        return pages

    def redirect_page(self, url: str) -> bytes:
        """A page that sends readers to `url` at once, and search engines by its canonical
        link: GitHub Pages answers no path with an HTTP redirect."""
        target = escape(url, quote=True)
        return (
            f'<!doctype html>\n<html lang="{escape(self._settings.language, quote=True)}">'
            f'<head><meta charset="utf-8">{GENERATOR.decode()}'
            f'<meta http-equiv="refresh" content="0; url={target}">'
            f'<link rel="canonical" href="{target}"><title>Moved</title></head>\n'
            f'<body><p>This page has moved to <a href="{target}">{target}</a>.</p></body>'
            "</html>\n"
        ).encode()

    def redirects(self) -> dict[str, bytes]:
        """The redirect pages of the settings' `redirects`, by the file each is written to."""
        return {
            str(redirect_file(old.lstrip("/"))): self.redirect_page(
                self.absolute(new.lstrip("/")) if new.startswith("/") else new
            )
            for old, new in self._settings.redirects
        }

    def linked(self, page: bytes, nav: Nav) -> bytes:
        """`page` with its links to the older and newer article (the `neighbours.html` part
        between its markers; a theme without them has none to change)."""
        start, end = page.find(_NAV_START), page.find(_NAV_END)
        if start < 0 or end < start:
            return page
        older, newer = (
            {"title": title, "href": self.href(page_path(slug))} if slug else None
            for slug, title in nav
        )
        block = self.theme.render("neighbours.html", site=self.site(), older=older, newer=newer)
        return page[:start] + block.rstrip(b"\n") + page[end + len(_NAV_END) :]


def page_digest(page: bytes) -> str:
    """What the index records of a page (its entry, its month's row): the first 64 bits of
    the SHA-256 of its bytes but for the links to its neighbours, which a neighbour's publish
    rewrites without touching its index entry. Enough that no accident repeats it; the whole
    digest was a third of an entry's bytes, in the file of entries every push reads and
    rewrites."""
    start, end = page.find(_NAV_START), page.find(_NAV_END)
    if 0 <= start < end:
        page = page[: start + len(_NAV_START)] + page[end:]
    return hashlib.sha256(page).hexdigest()[:INDEXED_DIGITS]


def summary_of(html: str, limit: int = 240) -> str:
    """The first words of an article as plain text, for feeds and lists with no description."""
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


def _from_page(page: str, alias: str) -> str:
    """An alias from the site's root: as written when it begins with `/`, else (as Hugo reads
    it) from the folder of the article's own URL (`page`): `old` beside it, `../old` above."""
    if alias.startswith("/"):
        return alias
    folder = posixpath.dirname(page.removesuffix("/index.html"))
    resolved = posixpath.normpath(posixpath.join(folder, alias))
    if resolved == ".." or resolved.startswith("../") or resolved == ".":
        raise PermanentError(f"alias {alias!r} leaves the site, or is its root")
    return f"/{resolved}{'/' if alias.endswith('/') else ''}"


def _date_of(article: Article) -> datetime:
    # ContentSource fills a missing date from the commit; an Article built elsewhere may lack one.
    if article.date is None:
        raise PermanentError("no date to show")
    return article.date
