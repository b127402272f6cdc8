"""The feeds a blog moved from Hugo keeps at Hugo's addresses of its terms
(`SiteSettings.old_term_feeds`): each tag's newest articles at `/TAXONOMY/TERM/index.xml`
beside the tag's page, and each taxonomy's terms at `/TAXONOMY/index.xml` beside the tags' page
(https://gohugo.io/templates/rss/)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from steadypress.feeds import FeedEntry, atom_feed
from steadypress.targets.site.manifest import HUGO_FEED, TAGS_INDEX, Listed, page_path
from steadypress.targets.site.old_urls import term_feed_paths

if TYPE_CHECKING:
    from steadypress.targets.site.index import SiteIndex

__all__ = ["TermFeeds", "every_feed"]


def every_feed(index: SiteIndex, taxonomies: Sequence[str]) -> list[str]:
    """Every feed of `taxonomies` the site has: their terms' lists, and each tag's."""
    if not taxonomies:
        return []
    names = [index.tags.name(tag) for tag in index.tags.pages]
    return [*_terms_lists(taxonomies), *(p for n in names for p in term_feed_paths(taxonomies, n))]


def _terms_lists(taxonomies: Sequence[str]) -> list[str]:
    return [f"{taxonomy}/{HUGO_FEED}" for taxonomy in taxonomies]


class TermFeeds:
    """Hugo's feeds of `taxonomies`' terms, in a site titled `title`; `absolute` makes a site
    path an absolute URL, `tag_newest` gives a tag's newest articles."""

    def __init__(
        self,
        taxonomies: Sequence[str],
        title: str,
        *,
        absolute: Callable[[str], str],
        tag_newest: Callable[[SiteIndex, str], list[Listed]],
    ) -> None:
        self._taxonomies = tuple(taxonomies)
        self._title = title
        self._absolute = absolute
        self._tag_newest = tag_newest

    def gone(self, index: SiteIndex, pages: Collection[str]) -> dict[str, list[str]]:
        """Of these tag pages, each one whose tag's last article went, with the feeds of the
        tag that go with it."""
        return {
            page: term_feed_paths(self._taxonomies, name)
            for page in pages
            if (name := index.tags.gone_name(page)) and not index.tags.has(page)
        }

    def lists(self, pages: Collection[str]) -> list[str]:
        """The feeds of the terms written with the tags' page, when `pages` hold it."""
        return _terms_lists(self._taxonomies) if TAGS_INDEX in pages else []

    def of_tag(self, index: SiteIndex, tag: str) -> dict[str, bytes]:
        """The feed of a tag's newest articles (`tag`: its own page) at each of its Hugo
        addresses (`/tags/c++/index.xml`)."""
        if not self._taxonomies:
            return {}
        name = index.tags.name(tag)
        if not (paths := term_feed_paths(self._taxonomies, name)):
            return {}
        entries = [
            FeedEntry(title=row.title, url=(url := self._absolute(page_path(row.slug))), id=url,
                      published=row.date, updated=row.updated, summary=row.description or "",
                      tags=row.tags, cover=None)
            for row in self._tag_newest(index, tag)
        ]  # fmt: skip
        return {
            path: atom_feed(
                title=f"{self._title}: {name}",
                url=self._absolute(tag),
                ident=self._absolute(tag),
                entries=entries,
                self_url=self._absolute(path),
            )
            for path in paths
        }

    def of_terms(self, index: SiteIndex, path: str) -> bytes:
        """Hugo's feed of a taxonomy's terms at `path`: an entry for each tag, its page's link,
        dated by its newest article, of the tags of the site's newest articles (the summary
        holds them: the tags of older ones would cost a read each, and Hugo's feed lists the
        terms newest first too)."""
        newest: dict[str, datetime] = {}
        for _path, row in index.newest:
            for spelling in row.tags:
                page = index.tags.page(spelling)
                if index.tags.has(page):
                    newest[page] = max(row.date, newest.get(page, row.date))
        entries = [
            FeedEntry(title=index.tags.name(page), url=(url := self._absolute(page)), id=url,
                      published=date, updated=date, summary="", tags=(), cover=None)
            for page, date in newest.items()
        ]  # fmt: skip
        return atom_feed(
            title=f"{self._title}: {path.partition('/')[0]}",
            url=self._absolute(TAGS_INDEX),
            ident=self._absolute(path),
            entries=entries,
            self_url=self._absolute(path),
        )
