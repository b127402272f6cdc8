"""Articles taken off the site: what a removal reads first, guessed from the versions the
ledger recorded, and the write that removes them (`SiteWrites.unpublish_from`)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from steadypress.errors import GitFailed, PermanentError, PublishError
from steadypress.ledger import ABSENT, PublishedRecord
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.manifest import (
    Entry,
    article_slug,
    indexed_version,
    page_path,
    path_url_slug,
)
from steadypress.targets.site.opening import Carried
from steadypress.targets.site.writing import SiteWrites, announced, index_article_files

if TYPE_CHECKING:
    from steadypress.articles import Article

__all__ = ["Removal", "SiteRemovals"]

# Articles to remove: each path with the version the ledger recorded on the site, if any.
Removal = Sequence[tuple[str, PublishedRecord | None]]


class SiteRemovals:
    def __init__(
        self,
        writes: SiteWrites,
        *,
        content_dir: str,
        latin: bool,
        read_version: Callable[[str, str, str], Article] | None,
    ) -> None:
        """`read_version` reads an article's version (path, blob, commit) as the executor
        reads it, from which a removal guesses what the site holds of it (None: the site is
        read to learn it); `latin`: the site's addresses are transliterated."""
        self._writes = writes
        self._content_dir = content_dir
        self._latin = latin
        self._read_version = read_version

    def write(
        self, work: Removal, *, looked_at: str | None
    ) -> Callable[[SiteWriter], Carried | None]:
        """The write removing `work`. What it renders again (the feed's articles, the pages
        beside those removed) it renders from the content at the commit the run looked at
        (`looked_at`), or, before a look (a push's removal read ahead), at the commit of the
        versions removed as recorded: each is checked against the digest the site keeps."""
        recorded = (previous.commit for _path, previous in work if previous is not None)
        return functools.partial(
            self._writes.unpublish_from,
            paths=[path for path, _previous in work],
            commit=looked_at or next(recorded, None),
        )

    def first_read(self, work: Removal) -> tuple[list[str], list[str]]:
        """What removing these reads in the site's first read (texts, oids)."""
        paths = [path for path, _previous in work]
        # Each page is most likely at the slug made from its path; announcing it saves a read.
        likely_pages = []
        for path in paths:
            with contextlib.suppress(PermanentError):
                likely_pages.append(
                    page_path(path_url_slug(path, self._content_dir, latin=self._latin))
                )
        # So are the index's files and listing pages the recorded versions changed: announced
        # too, a removal reads twice like a publish, not three times (a wrong guess costs a
        # read, never a wrong removal: what the index holds is what is removed).
        recorded = [(path, e) for path, previous in work if (e := self._recorded(path, previous))]
        texts, oids = announced(recorded, latin=self._latin)
        return [*texts, *index_article_files(paths)], [*oids, *likely_pages]

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
            slug = (
                previous.id
                if previous.id is not None
                else article_slug(article, self._content_dir, latin=self._latin)
            )
        except (PublishError, GitFailed):
            return None
        if article.date is None:
            return None
        return Entry(
            blob=indexed_version(previous.blob), slug=slug, title=article.title, date=article.date,
            updated=article.updated or article.date, description=None, summary="",
            tags=article.tags, cover=None, assets=(), sha256="",
        )  # fmt: skip
