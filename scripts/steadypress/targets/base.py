"""The publisher protocol: publish is idempotent, verify reads back what publish wrote."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

from steadypress.articles import Article
from steadypress.errors import PublishError, TransientError
from steadypress.ledger import Look, PublishedRecord

__all__ = [
    "BatchTarget",
    "OneByBatches",
    "Receipt",
    "Refreshed",
    "StyledTarget",
    "Target",
    "missing_secret",
]


@dataclass(frozen=True, slots=True)
class Receipt:
    """Where the article now lives on the target: recorded in published.json."""

    url: str | None
    id: str | None


def missing_secret(variable: str, value: str | None) -> str | None:
    """The `unavailable_reason` of a target that needs the secret in `variable`."""
    return None if value is not None else f"the secret {variable} is not set in this run"


class Target(Protocol):
    """One place articles are published to.

    `publish` must be idempotent: called again for a version it already holds (a crash between
    publish and the ledger's record), it updates or does nothing, never duplicates. `previous` is
    what the ledger last recorded for this article on this target. Errors are `TransientError`
    (retry later) or `PermanentError` (dead letter now).
    """

    @property
    def name(self) -> str: ...

    def unavailable_reason(self) -> str | None:
        """Why this executor cannot run the target (a secret it lacks), or None."""
        ...

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt: ...

    def verify(self, article: Article, receipt: Receipt) -> None:
        """Raise TransientError unless the target now shows what `publish` wrote."""
        ...

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        """Take the article at `path` (gone from content/) off the target, or hide it there.

        Idempotent like `publish`: when the target holds nothing of it, there is nothing to do.
        `previous` may be a record of a version that never got there, or None when the ledger
        never recorded one (a create whose answer was lost): look for the article regardless.
        """
        ...


@runtime_checkable
class BatchTarget(Target, Protocol):
    """A target that publishes (and removes) many articles in one write (the site: one commit
    for a batch, and its listings rewritten once). The executor hands it a claimed batch whole."""

    def publish_batch(
        self,
        work: Sequence[tuple[Article, PublishedRecord | None]],
        *,
        final: bool = True,
        keep_alive: Callable[[], None] | None = None,
    ) -> list[Receipt | PublishError]:
        """`publish` for each article, together; one result per article, in order: an article
        that cannot be published fails alone. Not `final`: more batches of this run follow,
        and what all of them change alike (the site's listings) may wait for the last one, or
        for `finish`. `keep_alive` is called as each article's work is done, before the write:
        the executor renews the batch's leases there when they are due, as it does between the
        articles of a target that publishes one at a time."""
        ...

    def finish(self) -> None:
        """Write what batches that were not `final` left waiting (a run's last call)."""
        ...

    def read_ahead(
        self,
        articles: Callable[[], Sequence[Article]],
        removals: Sequence[tuple[str, PublishedRecord | None]] = (),
    ) -> None:
        """What the next `publish_batch` (`articles`, read when called) and `unpublish_batch`
        will be handed, told before the state's request that claims it: a target may ask for
        its files to be read with the state's requests, which saves its own."""
        ...

    def expect(self, count: int) -> None:
        """New articles will be handed to later `publish_batch` calls, about `count` at a time:
        a plan found them and is about to read them. A target may get ready meanwhile (start
        its workers)."""
        ...

    def render_ahead(self, count: int, articles: Callable[[], Sequence[Article]]) -> None:
        """`count` articles likely handed to a later `publish_batch`, in that order (`articles`
        reads them, to be called only by a target that starts on them): a target may start on
        the part of their work that reads and writes nothing (rendering) meanwhile."""
        ...

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        """`verify` for each article, together; None where the target shows what was written."""
        ...

    def unpublish_batch(self, work: Sequence[tuple[str, PublishedRecord | None]]) -> None:
        """`unpublish` for each path, in one write: all of them are removed, or none."""
        ...


class OneByBatches:
    """`Target`'s one-article methods for a `BatchTarget`, each a batch of one."""

    def publish(self: BatchTarget, article: Article, previous: PublishedRecord | None) -> Receipt:
        (result,) = self.publish_batch([(article, previous)])
        if isinstance(result, PublishError):
            raise result
        return result

    def verify(self: BatchTarget, article: Article, receipt: Receipt) -> None:
        (problem,) = self.verify_batch([(article, receipt)])
        if problem is not None:
            raise problem

    def unpublish(self: BatchTarget, path: str, previous: PublishedRecord | None) -> None:
        self.unpublish_batch([(path, previous)])


class Refreshed(Enum):
    """What `StyledTarget.refresh` did."""

    WRITTEN = "written"  # what the parts show, written again
    SHOWN = "shown"  # nothing: an article's page shows them too (publish every article again)
    OVERTAKEN = "overtaken"  # nothing: a run of a later commit wrote its look (`overtaken`)


@runtime_checkable
class StyledTarget(Target, Protocol):
    """A target whose pages depend on more than the article: the site's on its settings and
    theme. When what its pages show changes, every article is published to it again; when only
    what its listing pages or the files it has one of show does, those are written again
    alone."""

    def look(self, commit: str) -> Look:
        """Digests of all that, as it is at the content's `commit`."""
        ...

    def showing(self, part: str) -> str:
        """What a part of its look (of `ALONE`) shows, named for the log ("listing pages")."""
        ...

    def refresh(self, parts: Collection[str]) -> Refreshed:
        """Write again alone what these parts of its look show (of `ALONE`: `Look.listings`,
        `Look.singles`), as they are at the content's head; nothing when an article's page
        shows them as well, so every article is to be published again instead (`SHOWN`), or
        when its output holds a later commit's look (`OVERTAKEN`)."""
        ...

    def overtaken(self, commit: str) -> bool:
        """Whether its output holds the look of a later commit than `commit`, which a run of
        that one wrote meanwhile: a run of `commit` is the older, and leaves the look to it."""
        ...

    def lost(self) -> bool:
        """Whether its output holds none of what it published, where that is known without a
        request of its own (a local site's folder deleted, a Pages branch deleted): every
        article is published to it again."""
        ...

    def ask_lost(self) -> None:
        """Ask what `lost` reads with the state's next read, where a backend can."""
        ...
