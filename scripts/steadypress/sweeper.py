"""The sweeper: insurance, not a task list. It reconciles content/ against the ledger, takes
stale and due work with no hand-over protocol, and re-opens dead letters that could not be opened.

No executor's name is consulted: an item is taken when it is pending, older than the grace
period, due and not under a live lease, whoever last held it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from steadypress.errors import ArticleError, ConfigError
from steadypress.executor import Pipeline, Prepare, Report, drain, raise_alerts
from steadypress.ledger import ABSENT, Ledger, Sighting, enqueue, item_key, split_key, withdraw

__all__ = ["Plan", "enqueue_prepare", "plan", "push_prepare", "reconcile", "sweep"]


def _known(ledger: Ledger, key: str, blob: str) -> bool:
    """True when this version is already pending, published or dead: nothing to enqueue."""
    for section in (ledger.pending, ledger.published, ledger.dead):
        entry = section.get(key)
        if entry is not None and entry.blob == blob:
            return True
    return False


@dataclass(frozen=True)
class Plan:
    """What reading the content branch asks of the ledger: article versions to enqueue (ABSENT
    for an article to unpublish), and pending keys to withdraw: work for a removed article on a
    target that does not unpublish, or for a target no longer configured."""

    sightings: list[Sighting]
    withdrawn: list[str]

    def apply(self, ledger: Ledger, now: datetime) -> tuple[Ledger, list[str]]:
        ledger, _ = withdraw(ledger, self.withdrawn, now=now)
        return enqueue(ledger, self.sightings, now=now)


def plan(
    p: Pipeline,
    articles: Mapping[str, str],
    commit: str,
    *,
    removed: Collection[str],
    ledger: Ledger,
) -> Plan:
    """Compare article versions at `commit` with the ledger.

    Only versions the ledger does not know are read, to learn whether they are drafts or
    scheduled; one that cannot be parsed is still enqueued, so that the executor dead-letters it
    with its reason. An article removed, made a draft, or opted out of a target leaves it.
    """
    found: list[Sighting] = []
    left: dict[str, set[str]] = {path: set(p.targets) for path in removed}
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
                left[path] = set(p.targets)
                continue
            not_before = article.not_before
            if article.targets is not None:  # the article opts out of the other targets
                left[path] = set(targets) - set(article.targets)
                targets = [target for target in targets if target in article.targets]
        found.extend(
            Sighting(target=target, path=path, blob=blob, commit=commit, not_before=not_before)
            for target in targets
        )
    # Work for a target no longer in the configuration would wait forever: no executor takes it.
    unconfigured = sorted(
        key for key, item in ledger.pending.items() if item.target not in p.targets
    )
    if unconfigured:
        p.log(f"withdrawing work for targets no longer configured: {', '.join(unconfigured)}")
    withdrawn = set(unconfigured)
    for path, leaving in sorted(left.items()):
        for target in sorted(leaving):
            key = item_key(target, path)
            if not _unpublishes(p, target):
                withdrawn.add(key)
            elif key in ledger.pending or key in ledger.dead or key in ledger.published:
                found.append(Sighting(target=target, path=path, blob=ABSENT, commit=commit))
    return Plan(
        sightings=found, withdrawn=sorted(key for key in withdrawn if key in ledger.pending)
    )


def _unpublishes(p: Pipeline, target: str) -> bool:
    spec = p.config.targets.get(target)
    return spec is None or spec.unpublish


def enqueue_prepare(
    p: Pipeline,
    articles: Mapping[str, str],
    commit: str,
    *,
    removed: Collection[str] = (),
    ledger: Ledger | None = None,
) -> Prepare | None:
    """The change a plan makes, to run inside the first claim transaction; None when there is
    nothing to do (an idle run reads and writes nothing more)."""
    ledger = ledger if ledger is not None else p.store.load().ledger
    planned = plan(p, articles, commit, removed=removed, ledger=ledger)
    return planned.apply if planned.sightings or planned.withdrawn else None


def push_prepare(p: Pipeline, before: str, after_name: str) -> Prepare | None:
    """The change enqueuing what a push changed: its diff, or everything when it has none."""
    after = p.content.resolve(after_name)
    if after is None:
        raise ConfigError("--push", f"{after_name!r} is not a commit of the checkout")
    changes = p.content.changed_articles(before, after)
    if changes is None:
        return enqueue_prepare(p, p.content.list_articles(after), after)
    return enqueue_prepare(p, changes.changed, after, removed=changes.removed)


def reconcile(p: Pipeline) -> Prepare | None:
    """Every article at the content head that is neither published, pending nor dead (the
    articles whose push event was missed), and every article the ledger knows that is no longer
    there (to unpublish, or to stop working on)."""
    commit = p.content.head()
    articles = p.content.list_articles(commit)
    ledger = p.store.load().ledger
    known = {item.path for item in ledger.pending.values()} | {
        item.path for item in ledger.dead.values()
    }
    known.update(
        split_key(key)[1] for key, record in ledger.published.items() if not record.unpublished
    )
    removed = known - articles.keys()
    return enqueue_prepare(p, articles, commit, removed=removed, ledger=ledger)


def sweep(p: Pipeline, report: Report, *, grace: timedelta) -> Report:
    """Reconcile, take stale and due work, then re-open dead letters that have no alert yet."""
    drain(p, report, grace=grace, prepare=reconcile(p), just_read=True)
    # An item that died within the grace period may still get its alert from the executor it
    # died in; opening it here too would race that executor. The drain's last read or write is
    # recent enough for that: an alert missed now is opened by the next sweep.
    settled = p.clock() - grace
    known = p.store.last_known() or p.store.load()
    dead = known.ledger.dead.values()
    orphans = [item for item in dead if item.issue is None and item.died_at <= settled]
    if orphans:
        p.log(f"opening {len(orphans)} dead letter(s) that could not be opened before")
        raise_alerts(p, orphans)
    return report
