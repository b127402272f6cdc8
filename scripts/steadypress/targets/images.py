"""An article's images for a platform that takes only URLs (dev.to, Hashnode): each relative
reference, in the body and a relative cover, by the absolute URL the platform will fetch,
checked to be served there first, since a platform keeps what it first fetched (a 404 too);
and each link from the host's root (`/about/`) by its URL on the site, which on the platform's
own host would lead nowhere."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steadypress.render import (
    image_references,
    is_repository_reference,
    rewrite_image_references,
    rewrite_links,
    root_links,
)

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.targets.http import PlatformApi
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["ServedImages", "served_images"]


class ServedImages:
    """The article's body with its relative images and its links from the host's root made
    absolute, and the URL of each relative reference (the cover's too)."""

    def __init__(self, article: Article, urls: dict[str, str], links: dict[str, str]) -> None:
        self.body = rewrite_links(rewrite_image_references(article.body, urls), links)
        self.urls = urls


def served_images(article: Article, links: PublicLinks | None, api: PlatformApi) -> ServedImages:
    """An image not served yet is a transient failure: the item waits for it. Without
    `links` (no site and no repository on GitHub to serve them) they are left as written, and
    so are the links without a site."""
    urls: dict[str, str] = {}
    leads: dict[str, str] = {}
    if links is not None:
        for href in root_links(article.body):
            if (lead := links.link_url(article, href)) is not None:
                leads[href] = lead
        references = image_references(article.body)
        if article.cover_image and is_repository_reference(article.cover_image):
            references.append(article.cover_image)
        for reference in dict.fromkeys(references):
            url = links.image_url(article, reference)
            if url is None:
                continue
            api.require_served(f"image {reference!r}", url)
            urls[reference] = url
    return ServedImages(article, urls, leads)
