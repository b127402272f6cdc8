"""Telling batch targets what they are about to write, before the state request that can
carry their reads (`github/readahead.py`): a push's articles before the ledger is read, a
claim's before it is written. Only a saving: whatever goes wrong here is left to the write,
which reads and reports it itself."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Mapping, Sequence

from steadypress.articles import Article
from steadypress.claims import claim_size
from steadypress.errors import ArticleError
from steadypress.ledger import PublishedRecord
from steadypress.pipeline import Pipeline
from steadypress.targets.base import BatchTarget

__all__ = ["READ_AHEAD_MOST", "batch_targets", "expect", "read_ahead", "render_ahead"]

# The most articles read ahead for: a push's. A larger batch reads what it writes when it
# writes, since its site read would not ride in one query (300 files), and rendering it before
# the state's request would hold that request back.
READ_AHEAD_MOST = 10

Version = tuple[str, str, str, str]  # target, path, blob, commit
Removal = tuple[str, str, PublishedRecord | None]  # target, path, what the ledger recorded


def read_ahead(
    pipeline: Pipeline, versions: Sequence[Version], removals: Sequence[Removal] = ()
) -> None:
    """Hand each batch target the article `versions` and the `removals` it is about to be
    handed (at most READ_AHEAD_MOST in all); the articles are read when the target asks."""
    batched = batch_targets(pipeline)
    versions = [version for version in versions if version[0] in batched]
    removals = [removal for removal in removals if removal[0] in batched]
    if not 0 < len(versions) + len(removals) <= READ_AHEAD_MOST:
        return
    try:
        for name, target in batched.items():
            wanted = [(path, blob, commit) for to, path, blob, commit in versions
                      if to == name]  # fmt: skip
            removed = [(path, previous) for to, path, previous in removals if to == name]
            if wanted or removed:
                # Read only by a target whose backend reads ahead (not a local folder).
                target.read_ahead(
                    functools.cache(functools.partial(_read, pipeline, wanted)), removed
                )
    except Exception as error:  # a saving lost, never the work
        pipeline.log(f"reading ahead failed, read when written: {error}")


def expect(pipeline: Pipeline, counts: Mapping[str, int]) -> None:
    """Tell each batch target how large the batches of the new article versions a plan is
    about to read will be (`counts`: how many, by target; a drain's first claim of them), for
    it to get ready to render them."""
    try:
        for name, target in batch_targets(pipeline).items():
            if counts.get(name):
                target.expect(claim_size(counts[name]))
    except Exception as error:  # a saving lost, never the work
        pipeline.log(f"getting ready to render failed, rendered when written: {error}")


def render_ahead(pipeline: Pipeline, versions: Sequence[Version]) -> None:
    """Hand each batch target, in the order it will be handed them, the article `versions` it
    is likely to publish next (those a claim took, then those the next is likely to take): it
    may start on what does not depend on its files (rendering) while this process works."""
    try:
        for name, target in batch_targets(pipeline).items():
            wanted = [(path, blob, commit) for to, path, blob, commit in versions if to == name]
            if wanted:
                # Read only by a target that will start on them (enough for its workers).
                target.render_ahead(
                    len(wanted), functools.cache(functools.partial(_prefetched, pipeline, wanted))
                )
    except Exception as error:  # a saving lost, never the work
        pipeline.log(f"rendering ahead failed, rendered when written: {error}")


def batch_targets(pipeline: Pipeline) -> dict[str, BatchTarget]:
    """The pipeline's targets that publish a batch at once, by name: the ones told ahead."""
    return {name: t for name, t in pipeline.targets.items() if isinstance(t, BatchTarget)}


def _prefetched(pipeline: Pipeline, versions: Sequence[tuple[str, str, str]]) -> list[Article]:
    """`_read` of many versions, their bytes and dates read first in one git process each
    commit, not three an article."""
    commits: dict[str, set[str]] = {}
    for path, _blob, commit in versions:
        commits.setdefault(commit, set()).add(path)
    for commit, paths in commits.items():
        pipeline.content.prefetch(commit, paths)
    return _read(pipeline, versions)


def _read(pipeline: Pipeline, versions: Sequence[tuple[str, str, str]]) -> list[Article]:
    """The articles of `versions` (path, blob, commit), read as the executor will read them;
    one that cannot be read is left to the executor, which reports it."""
    head = pipeline.content.head()
    found = []
    for path, blob, commit in versions:
        with contextlib.suppress(ArticleError):
            found.append(pipeline.content.read(path, blob, commit=commit, newest=head))
    return found
