"""The site's Atom feed: the newest articles with their whole text, each entry's id permanent.

A publish writes it from the site's index and what it rendered, never reading it back where it
can render the others' text again from the content (`RenderedAgain`)."""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping

from steadypress.errors import PermanentError, PublishError
from steadypress.feeds import FeedEntry, atom_feed, feed_contents
from steadypress.targets.site.again import RenderedAgain
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import SiteIndex
from steadypress.targets.site.manifest import (
    FEED,
    HUGO_FEED,
    INDEXED_DIGITS,
    Listed,
    page_path,
    path_url_slug,
)
from steadypress.targets.site.rendering import PageMaker, summary_of
from steadypress.targets.site.settings import SiteAddress, SiteSettings
from steadypress.targets.site.sitemaps import address_of

__all__ = ["SiteFeed", "feed_paths"]


def feed_paths(settings: SiteSettings) -> tuple[str, ...]:
    """Where the site's feed is written besides `feed.xml`: Hugo's `/index.xml` for a blog
    moved from Hugo, and `feed_also_at`."""
    hugo = (HUGO_FEED,) if settings.moved_from == "hugo" else ()
    return (*hugo, *settings.feed_also_at)


class SiteFeed:
    """The feed of the site at `address`, titled `title`, its pages made by `maker`."""

    def __init__(
        self,
        *,
        maker: PageMaker,
        again: RenderedAgain,
        title: str,
        address: SiteAddress,
        content_dir: str,
        also_at: tuple[str, ...] = (),
    ) -> None:
        """`also_at`: where else the feed is written whole, the address a blog's readers
        subscribed to before it moved (Hugo's `index.xml`): a feed reader follows no redirect
        page, and GitHub Pages can answer no HTTP redirect."""
        self._maker = maker
        self._also_at = also_at
        self._again = again
        self._title = title
        self._address = address
        self._content_dir = content_dir
        # The text the feed shows of articles by (slug, `_body_digest`): those of this run's
        # renderings, and of the newest rendered again, kept while they are in the feed.
        self._bodies: dict[tuple[str, str], str] = {}

    def write(
        self,
        files: SiteWriter,
        index: SiteIndex,
        changed: Mapping[str, str | None],
        commit: str | None,
    ) -> None:
        """The newest articles with their whole text: this batch's from its rendering; each
        other's rendered again from the content at `commit` where that gives the text the
        feed shows (its digest in the summary) or, for one without (it came in from its month
        after a newer one was removed), the page its month's row records, so that a version
        not published yet is never shown; else read from the feed as it was. One the feed has
        no text of either is shown by its title and link alone (rendered as the content is,
        where its row predates page digests). The feed is as long as its articles: not
        reading it back spares a publish on GitHub as many bytes again."""
        rows, digests = index.newest, index.newest_bodies()
        texts = {row.slug: text for _path, row in rows if (text := changed.get(row.slug))}
        texts |= self._rendered_again(
            {path: (row.slug, digests[path]) for path, row in rows
             if row.slug not in texts and path in digests},
            commit,
        )  # fmt: skip
        missing = {path: row for path, row in rows if row.slug not in texts}
        pages = {path: page for path, row in missing.items()
                 if (page := index.page_digest(path, row)) is not None}  # fmt: skip
        again = self._again.renderings(pages, commit)
        texts |= {missing[path].slug: rendered.html for path, rendered in again.items()}
        if any(row.slug not in texts for _path, row in rows):
            files.want(texts=[FEED])
            known = feed_contents(files.read(FEED))
            for path, row in rows:
                key = self._key(path, row)
                if row.slug not in texts and key in known:
                    texts[row.slug] = known[key]
            texts |= self._rendered_again(
                {path: (row.slug, None) for path, row in rows
                 if row.slug not in texts and path not in pages},
                commit,
            )  # fmt: skip
        feed_id = index.feed_id
        if feed_id is None:
            feed_id = index.feed_id = self._address.url  # its first address, its id for good
        feed = [
            FeedEntry(
                title=row.title, url=self._maker.absolute(page_path(row.slug)),
                id=feed_id + self._key(path, row), published=row.date,
                updated=row.updated, tags=row.tags,
                # A month's rows keep no summary: one that came in from there is made again.
                summary=row.summary or summary_of(texts.get(row.slug, "")),
                cover=self._maker.absolute(row.cover) if row.cover else None,
                content=texts.get(row.slug),
            )
            for path, row in rows
        ]  # fmt: skip
        document = atom_feed(title=self._title, url=self._address.url, ident=feed_id,
                             entries=feed)  # fmt: skip
        for path in (FEED, *self._also_at):
            files.put(path, document)
        written = {path: _body_digest(texts[row.slug]) for path, row in rows if row.slug in texts}
        index.keep_bodies(written)
        self._bodies = {
            (row.slug, written[path]): texts[row.slug] for path, row in rows if path in written
        }

    def _key(self, path: str, row: Listed) -> str:
        """What an article's feed entry's id adds to the feed's: the address its path gives
        (its own while it sets no `slug`), which neither a `slug` nor a new domain changes."""
        try:
            return address_of(page_path(path_url_slug(path, self._content_dir)))
        except PermanentError:  # a path that makes no URL: published under its `slug`
            return address_of(page_path(row.slug))

    def _rendered_again(
        self, wanted: Mapping[str, tuple[str, str | None]], commit: str | None
    ) -> dict[str, str]:
        """The text of each of these articles (path -> (slug, `_body_digest`)) by slug, where
        this run rendered it, or rendering it again from the content at `commit` gives that
        digest: the version the feed shows is still there, and so are its images. (None for
        a digest: whatever the content renders.)"""
        found = {slug: self._bodies[slug, digest] for slug, digest in wanted.values()
                 if digest is not None and (slug, digest) in self._bodies}  # fmt: skip
        unread = [path for path, (slug, _digest) in wanted.items() if slug not in found]
        for path, article in self._again.articles(commit, unread).items():
            slug, digest = wanted[path]
            # The versions the feed shows were published: one that no longer renders here (an
            # image gone) is read from the feed instead.
            with contextlib.suppress(PublishError):
                text = self._maker.body(article, {})
                if digest is None or _body_digest(text) == digest:
                    found[slug] = text
        return found


def _body_digest(text: str) -> str:
    """What the index keeps of the text the feed shows of one of the newest articles, to know
    it again: 64 bits of its SHA-256 (`INDEXED_DIGITS`), which no accident repeats
    (`newest.json`, which nearly every push reads and writes, holds 20)."""
    return hashlib.sha256(text.encode()).hexdigest()[:INDEXED_DIGITS]
