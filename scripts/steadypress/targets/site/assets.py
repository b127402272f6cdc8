"""An article's images: where a reference points in the repository, and where the site serves
it. Shared by the site target (which publishes them) and by targets that link to them (dev.to,
the announcements), so that all name an image the same way: `assets/<blob id>/<name>` is
stable for its bytes. And where the article itself is read, for the platforms that link to it."""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import quote, urljoin, urlsplit

from steadypress.errors import PermanentError
from steadypress.slugs import slugify
from steadypress.targets.site.manifest import article_slug, page_path, path_url_slug
from steadypress.targets.site.sitemaps import address_of

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.content import ContentSource

__all__ = [
    "PageAddresses",
    "PublicLinks",
    "asset_site_path",
    "find_image",
    "image_blob",
    "image_locations",
    "under_site_path",
]

# Where a root-absolute image (`/images/a.png`) may be, after the content folder: the
# repository's root (a Jekyll blog's `assets/`), and Hugo's folder of files served as they are.
_ROOTS = ("", "static")


def image_locations(article_path: str, reference: str, *, content_dir: str) -> list[str]:
    """The repository paths an image reference of the article may name (its query or fragment
    dropped), in the order they are looked for: one for a path relative to the article; for a
    root-absolute one, the content folder's, the repository root's and `static/`'s. Refused
    when it leaves the repository."""
    path = reference.split("#", maxsplit=1)[0].split("?", maxsplit=1)[0]
    if path.startswith("/"):
        bases = [content_dir, *_ROOTS]
        joined = [posixpath.join(base, path.lstrip("/")) for base in bases]
    else:
        joined = [posixpath.join(posixpath.dirname(article_path), path)]
    locations = list(dict.fromkeys(map(posixpath.normpath, joined)))
    if any(location.startswith("../") or location == ".." for location in locations):
        raise PermanentError(f"image {reference!r} is outside the repository")
    return locations


# Reads a file of the repository at a commit: (blob id, bytes), or None (`ContentSource.asset`).
Asset = Callable[..., tuple[str, bytes] | None]


def find_image(
    asset: Asset, article: Article, reference: str, *, content_dir: str
) -> tuple[str, str, bytes] | None:
    """(location, blob id, bytes) of an image the article shows, read where the article is.
    A relative reference to no file is an error naming it; a root-absolute one found nowhere
    is None: the site may serve it from elsewhere (an old blog's files on the Pages branch)."""
    locations = image_locations(article.path, reference, content_dir=content_dir)
    if article.commit is None:
        raise PermanentError(f"image {reference!r}: the article was read from no commit")
    for location in locations:
        found = asset(location, commit=article.commit)
        if found is not None:
            return location, *found
    if reference.startswith("/"):
        return None
    raise PermanentError(
        f"image {reference!r} not found: no file {locations[0]} in commit {article.commit[:12]}",
        depends_on=(locations[0],),
    )


def image_blob(
    asset: Asset, article: Article, reference: str, *, content_dir: str
) -> tuple[str, str, bytes]:
    """`find_image`, where an image found nowhere, in any form, is an error naming where it
    was looked for (`steadypress check`)."""
    found = find_image(asset, article, reference, content_dir=content_dir)
    if found is None:
        locations = image_locations(article.path, reference, content_dir=content_dir)
        raise PermanentError(
            f"image {reference!r} is not in the repository (looked for {', '.join(locations)} "
            f"in commit {(article.commit or '')[:12]}); if the site serves it from elsewhere, "
            "write its full URL",
            depends_on=tuple(locations),
        )
    return found


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


def under_site_path(path: str, base: str) -> str:
    """A path from the host's root (`/about/`) under the site's own path `base` (a project
    site's `/REPO/`), where it is not under it already."""
    return path if path.startswith(base) else base + path[1:]


# What a link's path, query and fragment may hold as typed: letters outside ASCII are encoded.
_URL_PUNCTUATION = "/#?&=%:@+!$'()*,;~"


@dataclass(frozen=True)
class PublicLinks:
    """Absolute URLs of an article, its images and its links from the host's root, for
    platforms that only take URLs: on the site when the article is published there (the site
    target named `site`, at `site_url`); else an image is the file in the repository at the
    article's commit (`raw_base`, on GitHub); None when neither applies (a local run without a
    site)."""

    content: ContentSource
    site: str | None = None
    site_url: str | None = None
    raw_base: str | None = None
    # Where a site made by the blog's generator serves each article (its addresses are the
    # generator's; its images are wherever the generator puts them, so not named here).
    pages: PageAddresses | None = None
    latin: bool = False  # the site's `transliterate`: how it spells pages' addresses

    def addressing(self) -> dict[str, object]:
        """What the addresses it gives depend on besides the article: the site, its URL, how it
        spells pages' addresses, and whether its generator places them (by its own settings,
        not named here)."""
        return {"site": self.site, "url": self.site_url, "latin": self.latin,
                "generated": self.pages is not None}  # fmt: skip

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
        slug = article_slug(article, self.content.content_dir, latin=self.latin)
        return site_url + address_of(page_path(slug))

    def page_url_of_path(self, path: str) -> str | None:
        """Where the site showed the article at `path` when it set no `slug` of its own: all
        that is known of an article that is gone."""
        if not (self.site and self.site_url) or self.pages is not None:
            return None
        try:
            slug = path_url_slug(path, self.content.content_dir, latin=self.latin)
            return self.site_url + address_of(page_path(slug))
        except PermanentError:
            return None

    def link_url(self, article: Article, href: str) -> str | None:
        """Where a link from the host's root (`/about/`) in the article leads: on the site's
        host, under steadypress's own site's path where it is not already
        (`rendering._rebased`); None without a site to lead to."""
        site_url = self._on_site(article)
        if site_url is None:
            return None
        address = urlsplit(site_url)
        if self.pages is None:  # steadypress's own site, where it leads (`rendering.body`)
            href = under_site_path(href, address.path)
        return f"{address.scheme}://{address.netloc}{quote(href, safe=_URL_PUNCTUATION)}"

    def image_url(self, article: Article, reference: str) -> str | None:
        content_dir = self.content.content_dir
        found = find_image(self.content.asset, article, reference, content_dir=content_dir)
        site_url = self._on_site(article) if self.pages is None else None
        if found is None:  # root-absolute, served from elsewhere on the site's host
            return urljoin(site_url or "", reference) if site_url else None
        location, oid, _data = found
        if site_url is not None:
            return site_url + asset_site_path(location, oid)
        if self.raw_base and article.commit:
            return f"{self.raw_base}/{article.commit}/{quote(location)}"
        return None
