"""An article's images: where a reference points in the repository, and where the site serves
it. Shared by the site target (which publishes them) and by targets that link to them (dev.to,
the announcements), so that all name an image the same way: `assets/<blob id>/<name>` is
stable for its bytes. And where the article itself is read, for the platforms that link to it."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import quote

from steadypress.errors import PermanentError
from steadypress.slugs import slugify
from steadypress.targets.site.manifest import article_slug, path_slug_source, url_slug

if TYPE_CHECKING:
    from steadypress.content import Article, ContentSource

__all__ = ["PageAddresses", "PublicLinks", "asset_site_path", "image_blob", "image_location"]


def image_location(article_path: str, reference: str) -> str:
    """The repository path an image reference of the article names (its query or fragment
    dropped); refused when it leaves the repository."""
    location = posixpath.normpath(
        posixpath.join(
            posixpath.dirname(article_path),
            reference.split("#", maxsplit=1)[0].split("?", maxsplit=1)[0],
        )
    )
    if location.startswith("../") or location == "..":
        raise PermanentError(f"image {reference!r} is outside the repository")
    return location


# Reads a file of the repository at a commit: (blob id, bytes), or None (`ContentSource.asset`).
Asset = Callable[..., tuple[str, bytes] | None]


def image_blob(asset: Asset, article: Article, reference: str) -> tuple[str, str, bytes]:
    """(location, blob id, bytes) of an image the article shows, read where the article is."""
    location = image_location(article.path, reference)
    if article.commit is None:
        raise PermanentError(f"image {reference!r}: the article was read from no commit")
    found = asset(location, commit=article.commit)
    if found is None:
        raise PermanentError(
            f"image {reference!r} not found: no file {location} in commit {article.commit[:12]}",
            depends_on=(location,),
        )
    return location, *found


def asset_site_path(location: str, oid: str) -> str:
    """Where the site serves an image: by its bytes (a new version is a new path) and a name
    made of its file name."""
    stem, dot, extension = posixpath.basename(location).rpartition(".")
    name = f"{slugify(stem) or 'image'}{dot}{slugify(extension)}" if dot else slugify(extension)
    return f"assets/{oid[:16]}/{name}"


class PageAddresses(Protocol):
    def url_of(self, article: Article) -> str:
        """The article's page's address, or a PublishError saying why it has none yet."""
        ...


@dataclass(frozen=True)
class PublicLinks:
    """Absolute URLs of an article and its images, for platforms that only take URLs: on the
    site when the article is published there (the site target named `site`, at `site_url`);
    else an image is the file in the repository at the article's commit (`raw_base`, on
    GitHub); None when neither applies (a local run without a site)."""

    content: ContentSource
    site: str | None = None
    site_url: str | None = None
    raw_base: str | None = None
    # Where a site made by the blog's generator serves each article (its addresses are the
    # generator's; its images are wherever the generator puts them, so not named here).
    pages: PageAddresses | None = None

    def _on_site(self, article: Article) -> str | None:
        wanted = article.targets is None or self.site in article.targets
        return self.site_url if self.site and wanted else None

    def article_url(self, article: Article) -> str | None:
        """Where readers are sent: the article's `canonical_url`, else its page on the site."""
        if article.canonical_url:
            return article.canonical_url
        site_url = self._on_site(article)
        if site_url is None:
            return None
        if self.pages is not None:
            return self.pages.url_of(article)
        return site_url + article_slug(article, self.content.content_dir) + "/"

    def page_url_of_path(self, path: str) -> str | None:
        """Where the site showed the article at `path` when it set no `slug` of its own: all
        that is known of an article that is gone."""
        if not (self.site and self.site_url) or self.pages is not None:
            return None
        try:
            return self.site_url + url_slug(path_slug_source(path, self.content.content_dir)) + "/"
        except PermanentError:
            return None

    def image_url(self, article: Article, reference: str) -> str | None:
        location, oid, _data = image_blob(self.content.asset, article, reference)
        site_url = self._on_site(article) if self.pages is None else None
        if site_url is not None:
            return site_url + asset_site_path(location, oid)
        if self.raw_base and article.commit:
            return f"{self.raw_base}/{article.commit}/{quote(location)}"
        return None
