"""Articles of the site rendered again from the content at a commit: what a write that does not
read a page, or the feed, back makes instead, where that gives what the site's index records."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Mapping

from steadypress.articles import Article
from steadypress.errors import ArticleError, PublishError
from steadypress.targets.site.rendering import PageMaker, Rendered

__all__ = ["RenderedAgain"]

# Articles as they are at a commit (commit, paths), by path; with no history.
ParseAt = Callable[[str, Collection[str]], Mapping[str, Article | ArticleError]]


class RenderedAgain:
    """`maker`'s renderings of articles read by `parse_at` (None: none can be read)."""

    def __init__(self, maker: PageMaker, parse_at: ParseAt | None) -> None:
        self._maker = maker
        self._parse_at = parse_at

    def renderings(self, digests: Mapping[str, str], commit: str | None) -> dict[str, Rendered]:
        """These articles (path -> what its month's row keeps of its page's digest) rendered
        again from the content at `commit`, by path, where that gives the page the index
        records: the version published is still there, its images too, and the site's look
        has not changed since."""
        found = {}
        for path, article in self.articles(commit, digests).items():
            with contextlib.suppress(PublishError):
                rendered = self._maker.render(article)
                if rendered.entry.sha256 == digests[path]:
                    found[path] = rendered
        return found

    def articles(self, commit: str | None, paths: Collection[str]) -> dict[str, Article]:
        """The articles at `paths` as the content is at `commit`, by path: none without a
        commit or a way to read one (`parse_at`), nor one that no longer parses."""
        if not paths or commit is None or self._parse_at is None:
            return {}
        parsed = self._parse_at(commit, paths)
        return {path: a for path, a in parsed.items() if not isinstance(a, ArticleError)}
