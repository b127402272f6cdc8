"""Planning: what the ledger must learn from the content branch, for a push, a reconcile, or
articles named on the command line. A plan is computed from a read of the ledger and applied, as
a pure change, inside the first claim's transaction (enqueue and claim in one write).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import PurePosixPath

from steadypress.articles import ARTICLE_SUFFIXES
from steadypress.config import CONFIG_FILE, Config
from steadypress.errors import UsageError
from steadypress.ledger import (
    LOOK_PARTS,
    Backlog,
    Ledger,
    PublishedRecord,
    Reconciled,
    item_key,
    split_key,
)
from steadypress.lookahead import read_ahead
from steadypress.looks import (
    alone_changed,
    keeping,
    lost_targets,
    recorded_looks,
    refresh_alone,
    restyled_targets,
    styled_targets,
)
from steadypress.pipeline import Pipeline
from steadypress.plans import Plan, plan

__all__ = [
    "ADMISSION",
    "Prepare",
    "admission",
    "article_path",
    "enqueue_prepare",
    "paths_prepare",
    "push_prepare",
    "reconcile",
    "upcoming",
]

# A change to run inside a claim transaction: the new ledger and the keys it enqueued.
Prepare = Callable[[Ledger, datetime], tuple[Ledger, list[str]]]


# The most items one plan enqueues. A larger change (a blog imported whole, a first build) enters
# the ledger a window at a time as executors empty it, so pending.json, which every claim
# rewrites, stays under 300 KB (an item is about 560 bytes once leased; GitHub's GraphQL
# returns a file as text only up to 512,000) whatever the size of the import.
ADMISSION = 500
# How long items that died count against a backlog's window (see `_room`).
HOLD = timedelta(hours=1)


def enqueue_prepare(
    pipeline: Pipeline,
    articles: Mapping[str, str],
    commit: str,
    *,
    removed: Collection[str] = (),
    ledger: Ledger | None = None,
) -> Prepare | None:
    """The change a plan makes, to run inside the first claim transaction; None when there is
    nothing to do (an idle run reads and writes nothing more)."""
    ledger = ledger or _load(pipeline, articles, removed)
    planned = plan(pipeline, articles, commit, removed=removed, ledger=ledger)
    return planned.apply if planned else None


def _load(pipeline: Pipeline, articles: Collection[str], removed: Collection[str]) -> Ledger:
    """The ledger, with the published records a plan of these articles reads first."""
    first = sorted(articles)[: ADMISSION // max(1, len(pipeline.targets))]
    looked_at = [item_key(t, path) for path in [*first, *removed] for t in pipeline.targets]
    return pipeline.store.load(hint=looked_at).ledger


def push_prepare(pipeline: Pipeline, before: str, after_name: str) -> Prepare | None:
    """The change enqueuing what a push changed: its diff, or everything when it has none.

    Past one window (`ADMISSION`), the rest of the diff is the reconcile's backlog when the
    push moves the reconcile's marker, and the reconcile's own find otherwise."""
    after = pipeline.content.resolve(after_name)
    if after is None:
        raise UsageError("--push", f"{after_name!r} is not a commit of the checkout")
    changes = pipeline.content.changed_articles(before, after)
    articles = pipeline.content.list_articles(after) if changes is None else changes.changed
    removed = () if changes is None else changes.removed
    # The state's read can carry what the site reads to publish and remove what was pushed: a
    # removed article is most likely on the site at its version before the push.
    gone = pipeline.content.versions(before, removed) if removed else {}
    read_ahead(
        pipeline,
        [(name, path, blob, after) for path, blob in articles.items() for name in pipeline.targets],
        [(name, path, PublishedRecord(blob, before, None, "", None))
         for path, blob in gone.items() for name in pipeline.targets],
    )  # fmt: skip
    ledger = _load(pipeline, articles, removed)
    last = ledger.reconciled
    if changes is None or last is None:
        # No diff to go by (a first push, a force push), or a state never reconciled (a blog
        # adopting steadypress, whose articles are published at once, not at the first sweep):
        # the run compares every article, as a sweep's reconcile would, and records the look
        # it publishes them with, against which a later push of the theme is seen.
        return reconcile(pipeline, ledger=ledger)
    marker = _marker(pipeline, after)
    if last.backlog is None and (restyled_targets(last, marker) or alone_changed(last, marker)):
        # The push changed a target's look (its settings, its theme): its own run publishes
        # every article again, or writes again what it rewrites alone (its listing pages, its
        # stylesheet), as the next sweep's reconcile would, its own articles with them
        # (planned there, not here as well).
        return reconcile(pipeline, ledger=ledger)
    planned = plan(pipeline, articles, after, removed=removed, ledger=ledger, room=ADMISSION)
    if not planned and _covers(pipeline, last, marker):
        return None  # nothing to enqueue, and nothing for the next reconcile to compare
    prepare = planned.apply if planned else None
    return _advancing(pipeline, prepare, before, replace(marker, backlog=_backlog(before, planned)))


def _backlog(
    since: str | None,
    planned: Plan,
    *,
    newest_first: bool = True,
    restyle: Collection[str] = (),
) -> Backlog | None:
    if planned.stopped_after is None:
        return None
    return Backlog(
        since=since,
        after=planned.stopped_after,
        newest_first=newest_first,
        restyle=tuple(sorted(restyle)),
    )


def _marker(pipeline: Pipeline, commit: str) -> Reconciled:
    """What a reconcile at `commit` records: the commit, the targets, the configuration, and
    the look of each target that has one."""
    return Reconciled(
        commit=commit,
        targets=tuple(sorted(pipeline.targets)),
        config=pipeline.content.versions(commit, [CONFIG_FILE])[CONFIG_FILE],
        looks=tuple(
            sorted((name, target.look(commit)) for name, target in styled_targets(pipeline))
        ),
    )


def _advancing(
    pipeline: Pipeline, prepare: Prepare | None, before: str, marker: Reconciled
) -> Prepare:
    """`prepare`, moving the reconcile's marker on to the push's commit when the push starts
    where the marker is, or past it by commits that changed no article (`_covers`): the diff
    it enqueued (and the backlog `marker` names) is all that changed, so the next sweep has
    nothing else to compare."""

    def apply(ledger: Ledger, now: datetime) -> tuple[Ledger, list[str]]:
        ledger, fresh = prepare(ledger, now) if prepare is not None else (ledger, [])
        last = ledger.reconciled
        # A marker written before looks were recorded takes the push's (`restyled_targets`).
        looks = marker.looks if last is not None and last.looks else ()
        if _covers(pipeline, last, replace(marker, commit=before, backlog=None, looks=looks)):
            ledger = replace(ledger, reconciled=marker)
        return ledger, fresh

    return apply


def _covers(pipeline: Pipeline, last: Reconciled | None, marker: Reconciled) -> bool:
    """Whether the reconcile that recorded `last` compared all `marker` would: the same
    targets, configuration and looks, no backlog, and `marker`'s commit that one or a later
    one changing no article (a README's edit). So a run of such a commit writes nothing, not
    even the marker: it stays where it is, and the next reconcile finds no article in the
    diff from it."""
    if last is None or last != replace(marker, commit=last.commit):
        return False
    if last.commit == marker.commit:
        return True
    changes = pipeline.content.changed_articles(last.commit, marker.commit)
    return changes is not None and not changes.changed and not changes.removed


def reconcile(pipeline: Pipeline, *, ledger: Ledger | None = None) -> Prepare | None:
    """Every article at the content head that is neither published, pending nor dead (the
    articles whose push event was missed), and every article the ledger knows that is no longer
    there (to unpublish, or to stop working on).

    Only what changed since the last reconcile is compared: nothing at all when the head, the
    targets and the configuration are the ones it left off at (an idle sweep reads no published
    record), the diff from that commit otherwise. Every article is compared when there is no
    such commit, the history was rewritten since, or the targets or the configuration changed.
    The commit compared is recorded in the same transaction as the work it enqueues. What does
    not fit in pending.json's room (`ADMISSION`) is recorded as the marker's backlog, which
    later reconciles (and every drain, as it empties the ledger: `admission`) enqueue before
    they compare anything newer.

    A push that hands its run over to the reconcile gives the `ledger` it loaded."""
    commit = pipeline.content.head()
    if ledger is None:
        for _name, target in styled_targets(pipeline):
            target.ask_lost()  # with the state's read: an idle sweep stays one request
        ledger = pipeline.store.load().ledger
    last = ledger.reconciled
    if last is not None and last.backlog is not None:
        if pipeline.content.resolve(last.commit) is not None:
            room = _room(ledger, pipeline.clock.now())
            return _admitting(pipeline, ledger, last, last.backlog, commit, room=room)
        # Its diff cannot be read again (a force push, a fetch without it): what the backlog
        # still held is found by comparing everything, as after any rewritten history.
        pipeline.log(f"the backlog's commit {last.commit[:12]} is not in the checkout")
    marker = _marker(pipeline, commit)
    # A target whose output was lost (a local site's folder deleted) is not a change of the
    # content, the targets or their looks: asked each time, at no cost where it is known.
    lost = lost_targets(pipeline) if last is not None else set()
    if last == marker and not lost:
        return None
    restyle = restyled_targets(last, marker)
    overtaken = {name for name, target in styled_targets(pipeline) if name in restyle
                 if target.overtaken(commit)}  # fmt: skip
    if overtaken:
        # A sweep whose checkout came before a theme edit, reconciling after the edit's run:
        # its look is the older, and the newer run's stays recorded (its writes would be
        # refused, and the next run would restyle the target once more).
        pipeline.log(
            f"the look of {', '.join(sorted(overtaken))} is a later commit's: left to a newer run"
        )
        restyle -= overtaken
        marker = keeping(marker, recorded_looks(last), {name: LOOK_PARTS for name in overtaken})
    if restyle:
        pipeline.log(
            f"the look of {', '.join(sorted(restyle))} changed: publishing every article again"
        )
    if lost - restyle:
        names = ", ".join(sorted(lost - restyle))
        pipeline.log(f"{names} holds no index: publishing again every article published to it")
    restyle |= lost
    marker, shown = refresh_alone(pipeline, last, marker, restyle=restyle)
    if shown:
        pipeline.log(
            f"the look of {', '.join(sorted(shown))} changed in a template its other pages "
            "include: publishing every article again"
        )
    restyle |= shown
    changes = None
    if (
        last is not None
        and (last.targets, last.config) == (marker.targets, marker.config)
        and not restyle
    ):
        changes = pipeline.content.changed_articles(last.commit, commit)
    room = max(1, ADMISSION - len(ledger.pending))
    if changes is not None:
        planned = plan(
            pipeline, changes.changed, commit, removed=changes.removed, ledger=ledger, room=room
        )
        since = last.commit if last is not None else None
    else:
        pipeline.log(f"reconciling every article at {commit[:12]} with the ledger")
        articles = pipeline.content.list_articles(commit)
        known = {item.path for item in ledger.pending.values()} | {
            item.path for item in ledger.dead.values()
        }
        known.update(
            split_key(key)[1] for key, record in ledger.published.items() if not record.unpublished
        )
        removed = known - articles.keys()
        planned = plan(
            pipeline, articles, commit, removed=removed, ledger=ledger, room=room, restyle=restyle
        )
        since = None
    marker = replace(marker, backlog=_backlog(since, planned, restyle=restyle))
    return _recording(pipeline, planned, last, marker)


def admission(pipeline: Pipeline) -> Prepare:
    """The change a drain makes in each later claim: when the ledger has room (half of
    `ADMISSION`) and the reconcile's marker a backlog, the backlog's next window."""

    def apply(ledger: Ledger, now: datetime) -> tuple[Ledger, list[str]]:
        last = ledger.reconciled
        room = _room(ledger, now)
        if last is None or last.backlog is None or room < ADMISSION // 2:
            return ledger, []
        if pipeline.content.resolve(last.commit) is None:
            return ledger, []  # the sweep's reconcile compares everything instead
        head = pipeline.content.head()
        prepare = _admitting(pipeline, ledger, last, last.backlog, head, room=room)
        return prepare(ledger, now) if prepare is not None else (ledger, [])

    return apply


def _room(ledger: Ledger, now: datetime) -> int:
    """How many items a backlog's next window may enqueue. Items that died within `HOLD` count:
    when a window dies of one cause (a broken theme), the import waits for the fix instead of
    filling dead.json with the whole blog; but only so long, since articles broken each on its
    own (which no one commit fixes) must not stop the rest for ever."""
    recent = sum(1 for item in ledger.dead.values() if now - item.died_at < HOLD)
    return ADMISSION - len(ledger.pending) - recent


def _admitting(
    pipeline: Pipeline,
    ledger: Ledger,
    last: Reconciled,
    backlog: Backlog,
    head: str,
    *,
    room: int,
) -> Prepare | None:
    """The next window of `last`'s backlog (`room` items at most, see `_room`), compared as
    the articles are at `head` (a version pushed since is the one to publish; an article
    removed since is unpublished), and the marker moved past it. The marker stays at its
    commit: what changed after it is compared once the backlog is done. With no room, only the
    dead items whose cause changed are revived (which makes room)."""
    if room <= 0:
        pipeline.log(
            f"the backlog waits: {len(ledger.pending)} pending items and those dead within "
            f"{HOLD} fill its window; fixing what they died of revives them (it goes on by "
            "itself once they died that long ago)"
        )
        waiting = plan(pipeline, {}, head, removed=(), ledger=ledger)
        return waiting.apply if waiting else None
    remaining, at_head = _still_to_come(pipeline, last, backlog, head)
    articles: Mapping[str, str]
    if head == last.commit:  # nothing pushed since: each article to come is there as it was
        articles, removed = at_head, []
    else:  # articles pushed or removed since: each compared as it is at `head`
        articles = {path: at_head[path] for path in remaining if path in at_head}
        removed = [path for path in remaining if path not in at_head]
    planned = plan(
        pipeline, articles, head, removed=removed, ledger=ledger, room=room, order=remaining,
        restyle=backlog.restyle,
    )  # fmt: skip
    marker = replace(
        last,
        backlog=_backlog(
            backlog.since, planned, newest_first=backlog.newest_first, restyle=backlog.restyle
        ),
    )
    return _marking(planned.apply if planned else None, last, marker)


def upcoming(pipeline: Pipeline, ledger: Ledger) -> list[tuple[str, str, str]]:
    """The article versions (path, blob, commit: the content's head) the backlog's next window
    is likely to enqueue, in its order: a hint for work that may start early (rendering), never
    a plan; the next claim decides in its own transaction. Nothing is read without a backlog."""
    last = ledger.reconciled
    if last is None or last.backlog is None or pipeline.content.resolve(last.commit) is None:
        return []
    head = pipeline.content.head()
    remaining, at_head = _still_to_come(pipeline, last, last.backlog, head)
    return [(path, at_head[path], head) for path in remaining[:ADMISSION] if path in at_head]


def _still_to_come(
    pipeline: Pipeline, last: Reconciled, backlog: Backlog, head: str
) -> tuple[Sequence[str], Mapping[str, str]]:
    """The paths of `last`'s backlog still to come, in its order, and the articles at `head`
    (path -> blob). The backlog covers the articles at its commit changed since its `since`
    (all of them without one, or when history rewritten since leaves no diff), in the order
    the window before was planned in: the dates are read at that commit, never at the head,
    so an article edited since does not change places (its new version is compared once the
    backlog is done)."""
    content = pipeline.content
    at_head = content.list_articles(head)
    if not backlog.newest_first:
        scope = content.changed_since(backlog.since, last.commit)
        return sorted(path for path in scope if path > backlog.after), at_head
    # A path outside the backlog (only a state edited by hand names one) leaves all of it to
    # come: comparing it again costs time, and an article the ledger knows is not enqueued twice.
    return content.import_order(last.commit, backlog.since).after(backlog.after), at_head


def _recording(
    pipeline: Pipeline, planned: Plan, last: Reconciled | None, marker: Reconciled
) -> Prepare | None:
    """A reconcile's `planned` with its `marker` (`_marking`); None when it has nothing to
    enqueue or revive and `last` already covers what `marker` would record (`_covers`)."""
    if not planned and _covers(pipeline, last, marker):
        return None
    return _marking(planned.apply if planned else None, last, marker)


def _marking(prepare: Prepare | None, last: Reconciled | None, marker: Reconciled) -> Prepare:
    """`prepare`, and the reconcile's marker recorded with it, unless another executor moved
    the marker since `last` was read (its window is then the one recorded; enqueuing twice
    is idempotent)."""

    def apply(ledger: Ledger, now: datetime) -> tuple[Ledger, list[str]]:
        ledger, fresh = prepare(ledger, now) if prepare is not None else (ledger, [])
        if ledger.reconciled != last:
            return ledger, fresh
        return replace(ledger, reconciled=marker), fresh

    return apply


def article_path(path: str, config: Config) -> str:
    """A path named on the command line: inside the content folder, a Markdown file, no `..`."""
    posix = PurePosixPath(path)
    if (
        posix.is_absolute()
        or ".." in posix.parts
        or posix.suffix not in ARTICLE_SUFFIXES
        or not str(posix).startswith(f"{config.content_dir}/")
    ):
        raise UsageError(
            path,
            f"not an article path: must be a .md or .markdown file under {config.content_dir}/",
        )
    return str(posix)


def paths_prepare(pipeline: Pipeline, paths: list[str]) -> Prepare | None:
    """The change enqueuing named articles as they are at the content branch's head."""
    commit = pipeline.content.head()
    at_head = pipeline.content.list_articles(commit)
    articles = {}
    for raw in paths:
        path = article_path(raw, pipeline.config)
        if path not in at_head:
            raise UsageError(path, "not an article at the content branch's head (is it committed?)")
        articles[path] = at_head[path]
    return enqueue_prepare(pipeline, articles, commit)
