"""The pages of a run's articles for the built-in site, each version rendered once: ahead of the
write that publishes it (on every core, `RenderPool`), for `check`, or when a batch is written;
and, for a version that cannot be rendered, why."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from steadypress.articles import Article
from steadypress.errors import PermanentError, PublishError
from steadypress.renderpool import RenderPool
from steadypress.targets.site.rendering import PageMaker, Rendered

__all__ = ["SiteRenderings"]

# What tells one rendering of an article from another: its path, blob and commit (its images
# are read at the commit).
_Version = tuple[str, str, str | None]


def _version(article: Article) -> _Version:
    return article.path, article.blob, article.commit


class SiteRenderings:
    """The renderings `maker` makes of a run's article versions, kept until the batch that
    publishes them is written (`forget`)."""

    def __init__(self, maker: PageMaker) -> None:
        self._maker = maker
        self._done: dict[_Version, Rendered | PublishError] = {}
        # The pages of a run's batches, rendered on every core (`ahead`).
        self._pool: RenderPool[Article, Rendered] = RenderPool(
            maker.render, key=_version, warm=maker.warm
        )

    def adopt(self, other: SiteRenderings) -> None:
        """Keep the renderings `other` made (a site rehearsed from the one `check` rendered)."""
        self._done.update(other._done)

    def one(self, article: Article) -> Rendered | PublishError:
        """The article rendered here and now, where it was not rendered before."""
        key = _version(article)
        if key not in self._done:
            try:
                self._done[key] = self._maker.render(article)
            except PublishError as error:
                self._done[key] = error
        return self._done[key]

    def rendered(
        self, articles: Sequence[Article], keep_alive: Callable[[], None] | None = None
    ) -> list[Rendered | PublishError]:
        """Each article rendered (on every core, each taken as it comes back, `keep_alive`
        called after each), or why it cannot be; those rendered ahead are not rendered again."""
        missing = [a for a in articles if _version(a) not in self._done]
        pages = self._pool.rendered(missing)
        for article, page in zip(missing, pages, strict=True):
            rendered: Rendered | PublishError
            if isinstance(page, PublishError):  # the article's own: a missing image, say
                rendered = page
            elif isinstance(page, Exception):  # a bug that one article meets
                rendered = PermanentError(
                    f"it could not be rendered: {type(page).__name__}: {page}"
                )
                rendered.__cause__ = page
            else:
                rendered = page
            self._done[_version(article)] = rendered
            if keep_alive is not None:
                keep_alive()
        return [self._done[_version(a)] for a in articles]

    def ok(self, articles: Sequence[Article]) -> list[tuple[Article, Rendered]]:
        """The articles that render, each with its rendering."""
        renders = self.rendered(articles)
        return [(a, r) for a, r in zip(articles, renders, strict=True) if isinstance(r, Rendered)]

    def expect(self, count: int) -> None:
        """The workers started now, if they would render batches of `count`: each builds its
        renderer while the plan reads the articles."""
        if self._pool.renders_ahead(count):
            self._pool.start()

    def ahead(self, count: int, articles: Callable[[], Sequence[Article]]) -> None:
        """Start rendering articles likely handed to a later batch (the workers render them
        meanwhile), when there are enough for the workers: fewer are not even read."""
        if self._pool.renders_ahead(count):
            self._pool.ahead(articles())

    def forget(self) -> None:
        """The renderings made so far let go: their batch is written."""
        self._done.clear()

    def close(self) -> None:
        """The workers stopped: the run renders no more batches."""
        self._pool.close()
