"""What `verify` reads back of a site after a write: the index must hold each version, and each
page what the index says it holds; a version whose write the backend confirmed is not read."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from steadypress.errors import TransientError
from steadypress.targets.base import Receipt
from steadypress.targets.site.files import SiteFiles, SiteWriter
from steadypress.targets.site.indexfiles import NEWEST_FILE, SUMMARY
from steadypress.targets.site.manifest import Entry, indexed_version, page_path
from steadypress.targets.site.rendering import page_digest
from steadypress.targets.site.writing import index_article_files

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.targets.site.index import SiteIndex

__all__ = ["SiteVerifier"]


class SiteVerifier:
    def __init__(
        self,
        files: SiteFiles,
        *,
        index: Callable[[SiteWriter], SiteIndex],
        slug_of: Callable[[Article], str],
    ) -> None:
        """`index` opens the site's index in a read of `files`; `slug_of` is an article's
        URL path on the site."""
        self._files = files
        self._index = index
        self._slug_of = slug_of
        # Versions (path -> blob) a write of this process put on a backend that confirms its
        # writes: `verify` has nothing to read back for them.
        self._confirmed: dict[str, str] = {}

    def confirmed(self, written: Mapping[str, str]) -> None:
        """These versions (path -> blob) were written, as the backend's answer confirms."""
        self._confirmed.update(written)

    def verify(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
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
        pages = {article.path: page_path(self._slug_of(article)) for _n, article in unconfirmed}

        def read(files: SiteWriter) -> tuple[dict[str, bytes | None], dict[str, Entry | None]]:
            index = self._index(files)
            return {p: files.read(p) for p in pages.values()}, {p: index.entry(p) for p in pages}

        # The summary with them: it names the unfiled files an entry may be in (`unfiled.py`).
        texts = [SUMMARY, NEWEST_FILE, *pages.values(), *index_article_files(pages)]
        found, entries = self._files.apply(read, texts=texts)
        for number, article in unconfirmed:
            entry = entries[article.path]
            if entry is None or entry.blob != indexed_version(article.blob):
                problems[number] = TransientError("the site index does not list this version")
                continue
            page = found.get(page_path(entry.slug))
            if page is None or page_digest(page) != entry.sha256:
                problems[number] = TransientError(
                    f"/{entry.slug}/index.html does not hold what was written"
                )
        return problems
