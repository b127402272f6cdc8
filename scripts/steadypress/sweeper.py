"""The sweeper: insurance, not a task list. It reconciles content/ against the ledger, takes
stale and due work with no hand-over protocol, and re-opens dead letters that could not be opened.

No executor's name is consulted: an item is taken when it is pending, older than the grace
period, due and not under a live lease, whoever last held it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from steadypress.errors import ArticleError
from steadypress.executor import Pipeline, Prepare, Report, drain, raise_alerts
from steadypress.ledger import Ledger, Sighting, enqueue, item_key

__all__ = ["enqueue_prepare", "reconcile", "sightings", "sweep"]


def _known(ledger: Ledger, key: str, blob: str) -> bool:
    """True when this version is already pending, published or dead: nothing to enqueue."""
    for section in (ledger.pending, ledger.published, ledger.dead):
        entry = section.get(key)
        if entry is not None and entry.blob == blob:
            return True
    return False


def sightings(
    p: Pipeline, articles: Mapping[str, str], commit: str, *, ledger: Ledger
) -> list[Sighting]:
    """The (target, article) versions at `commit` that the ledger does not know yet.

    Only those articles are read, to learn whether they are drafts or scheduled; one that cannot
    be parsed is still enqueued, so that the executor dead-letters it with its reason.
    """
    found: list[Sighting] = []
    for path, blob in sorted(articles.items()):
        targets = [t for t in p.targets if not _known(ledger, item_key(t, path), blob)]
        if not targets:
            continue
        not_before = None
        try:
            article = p.content.read(path, blob, commit=commit)
        except ArticleError:
            article = None
        if article is not None:
            if article.draft:
                continue
            not_before = article.not_before
        found.extend(
            Sighting(target=target, path=path, blob=blob, commit=commit, not_before=not_before)
            for target in targets
        )
    return found


def enqueue_prepare(p: Pipeline, articles: Mapping[str, str], commit: str) -> Prepare | None:
    """A change enqueuing these article versions, to run inside the first claim transaction;
    None when the ledger already knows them all (an idle run reads and writes nothing more)."""
    found = sightings(p, articles, commit, ledger=p.store.load().ledger)
    if not found:
        return None

    def prepare(ledger: Ledger, now: datetime) -> tuple[Ledger, list[str]]:
        return enqueue(ledger, found, now=now)

    return prepare


def reconcile(p: Pipeline) -> Prepare | None:
    """Every article at the content head that is neither published, pending nor dead: the
    articles whose push event was missed."""
    commit = p.content.head()
    return enqueue_prepare(p, p.content.list_articles(commit), commit)


def sweep(p: Pipeline, report: Report, *, grace: timedelta) -> Report:
    """Reconcile, take stale and due work, then re-open dead letters that have no alert yet."""
    drain(p, report, grace=grace, prepare=reconcile(p))
    orphans = [item for item in p.store.load().ledger.dead.values() if item.issue is None]
    if orphans:
        p.log(f"opening {len(orphans)} dead letter(s) that could not be opened before")
        raise_alerts(p, orphans)
    return report
