"""What comparing article versions at a commit with the ledger asks of it (`Plan`): the versions
to enqueue (or to unpublish), the pending work to withdraw, and the dead versions to try again.
`planning.py` says which articles to compare, for a push, a reconcile or a window of a backlog.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from steadypress.ledger import ABSENT, Ledger, item_key
from steadypress.liquid import is_jekyll_post
from steadypress.lookahead import expect
from steadypress.pipeline import Pipeline
from steadypress.transitions import Sighting, enqueue, revive, withdraw

__all__ = ["Plan", "plan", "revivals"]


def _known(ledger: Ledger, key: str, blob: str, *, restyled: bool = False) -> bool:
    """True when this version is already pending, published or dead: nothing to enqueue. For a
    target `restyled` (its look changed), a version it holds is to publish again."""
    held = () if restyled else (ledger.published,)
    for section in (ledger.pending, *held, ledger.dead):
        entry = section.get(key)
        if entry is not None and entry.blob == blob:
            return True
    return False


@dataclass(frozen=True)
class Plan:
    """What reading the content branch asks of the ledger: article versions to enqueue (ABSENT
    for an article to unpublish), and pending keys to withdraw: work for a removed article on a
    target that does not unpublish, or for a target no longer configured; and dead versions to
    try again (key -> blob) because something they depended on changed. A plan given a window
    names the last article it compared (`stopped_after`) when it left some for a later one."""

    sightings: list[Sighting]
    withdrawn: list[str]
    revived: Mapping[str, str] = field(default_factory=dict)
    stopped_after: str | None = None

    def apply(self, ledger: Ledger, now: datetime) -> tuple[Ledger, list[str]]:
        ledger, _ = withdraw(ledger, self.withdrawn, now=now)
        ledger, fresh = enqueue(ledger, self.sightings, now=now)
        ledger, back = revive(ledger, self.revived, now=now)
        return ledger, fresh + back

    def __bool__(self) -> bool:
        return bool(self.sightings or self.withdrawn or self.revived)


def plan(
    pipeline: Pipeline,
    articles: Mapping[str, str],
    commit: str,
    *,
    removed: Collection[str],
    ledger: Ledger,
    room: int | None = None,
    order: Sequence[str] | None = None,
    restyle: Collection[str] = (),
) -> Plan:
    """Compare article versions at `commit` with the ledger; to the targets of `restyle` (their
    look changed), the versions they hold are published again.

    Only versions the ledger does not know are read, to learn whether they are drafts or
    scheduled; one that cannot be parsed is still enqueued, so that the executor dead-letters it
    with its reason. An article removed, made a draft, or opted out of a target leaves it.

    With `room`, articles are compared in `order` (by default newest first, as they are at
    `commit`: `importorder`) only until that many versions are found (removals are all
    compared): `Plan.stopped_after` then names the last article compared, and the ones after it
    are left for a later window.
    """
    found, withdrawn = _compare(pipeline, {}, commit, removed, ledger, restyle=restyle)
    step = len(articles) if room is None else max(1, room // max(1, len(pipeline.targets)))
    if order is None and len(articles) > step:  # a window may stop early: the order says where
        order = pipeline.content.newest_first(commit, articles)
    # Taken a window at a time, never all filtered first: an import's order is the rest of its
    # backlog, and its every claim takes one window of it.
    left = (path for path in (sorted(articles) if order is None else order) if path in articles)
    part, last = list(itertools.islice(left, step)), None
    while part and (room is None or last is None or len(found) < room):
        window = {path: articles[path] for path in part}
        more, leaving = _compare(pipeline, window, commit, (), ledger, restyle=restyle)
        found += more
        withdrawn |= leaving
        last = part[-1]
        part = list(itertools.islice(left, step))
    # Work for a target no longer in the configuration would wait forever: no executor takes it.
    # One that carries a letter is left to the sweep, which retires it and closes the letter.
    unconfigured = sorted(
        key
        for key, item in ledger.pending.items()
        if item.target not in pipeline.targets and item.alert is None
    )
    if unconfigured:
        pipeline.log(
            f"withdrawing work for targets no longer configured: {', '.join(unconfigured)}"
        )
    withdrawn.update(unconfigured)
    return Plan(
        sightings=found,
        withdrawn=sorted(key for key in withdrawn if key in ledger.pending),
        revived=revivals(pipeline, ledger, commit),
        stopped_after=last if part else None,
    )


def _compare(
    pipeline: Pipeline,
    articles: Mapping[str, str],
    commit: str,
    removed: Collection[str],
    ledger: Ledger,
    *,
    restyle: Collection[str] = (),
) -> tuple[list[Sighting], set[str]]:
    """The versions of these articles to enqueue, and the keys they withdraw (see `plan`)."""
    found: list[Sighting] = []
    left: dict[str, set[str]] = {path: set(pipeline.targets) for path in removed}
    # The published records of these articles, read together (one request on GitHub).
    ledger.published.preload(
        item_key(target, path) for path in [*articles, *removed] for target in pipeline.targets
    )
    sites = {name for name, spec in pipeline.config.targets.items() if spec.kind == "site"}
    left |= _placed_pages_held(pipeline, ledger, articles, sites)
    # The targets each version is new to; those versions are read below, together.
    unknown: dict[str, list[str]] = {}
    for path, blob in sorted(articles.items()):
        new_to = [
            target
            for target in pipeline.targets
            if not _known(ledger, item_key(target, path), blob, restyled=target in restyle)
        ]
        if new_to:
            unknown[path] = new_to
    expect(pipeline, Counter(target for new_to in unknown.values() for target in new_to))
    pipeline.content.prefetch(commit, list(unknown))
    for path, new_to in unknown.items():
        blob, targets = articles[path], new_to
        not_before = None
        try:
            article = pipeline.content.read(path, blob, commit=commit)
        except Exception:
            article = None
        if article is not None:
            if article.draft:
                left[path] = set(pipeline.targets)
                continue
            not_before = article.not_before
            # The article opts out of the other targets; a name that is not a target is a
            # mistake the executor dead-letters on every target, never a silent opt-out.
            if article.targets is not None and set(article.targets) <= set(pipeline.targets):
                left.setdefault(path, set()).update(set(targets) - set(article.targets))
                targets = [target for target in targets if target in article.targets]
            if article.page:  # a page is the site's alone: no platform is sent an "About"
                left[path] = left.get(path, set()) | (set(targets) - sites)
                targets = [target for target in targets if target in sites]
        found.extend(
            Sighting(
                target=target, path=path, blob=blob, commit=commit, not_before=not_before,
                republish=target in restyle,
            )
            for target in targets
        )  # fmt: skip
    moved = [path for path in unknown if _moved_post(pipeline, ledger, path, articles[path], sites)]
    found += _relinking(pipeline, ledger, commit, moved, changed=articles)
    withdrawn = set()
    for path, leaving in sorted(left.items()):
        for target in sorted(leaving):
            key = item_key(target, path)
            if not _unpublishes(pipeline, target):
                withdrawn.add(key)
            elif key in ledger.pending or key in ledger.dead or key in ledger.published:
                found.append(Sighting(target=target, path=path, blob=ABSENT, commit=commit))
    return found, withdrawn


def revivals(pipeline: Pipeline, ledger: Ledger, commit: str) -> dict[str, str]:
    """Dead versions (key -> blob) something of which changed at `commit` since they died: an
    image committed, the theme or the configuration edited. Fixing the cause is enough; no one
    has to ask for the retry. The article's own path is left out: a new version of it is
    enqueued as such, and replaces the dead one."""
    # A dead item of a target no longer configured is retired by the sweep, not retried.
    watching = [
        item for item in ledger.dead.values() if item.depends and item.target in pipeline.targets
    ]
    if not watching:
        return {}
    current = pipeline.content.versions(
        commit, {path for item in watching for path, _ in item.depends}
    )
    revived = {}
    for item in watching:
        changed = [
            path
            for path, oid in item.depends
            if path != item.path and current.get(path, ABSENT) != oid
        ]
        if changed:
            pipeline.log(f"retrying {item.key}: {', '.join(changed)} changed since it died")
            revived[item.key] = item.blob
    return revived


def _moved_post(
    pipeline: Pipeline, ledger: Ledger, path: str, blob: str, sites: Collection[str]
) -> bool:
    """Whether the Jekyll post at `path`, of the version `blob`, sets another `slug` (or
    `permalink`) than the version a site shows: the posts that link it by `post_url` lead to
    its old address."""
    if not is_jekyll_post(path):
        return False
    records = [ledger.published.get(item_key(site, path)) for site in sites]
    shown = {record.blob for record in records if record is not None and not record.unpublished}
    if not shown - {blob}:  # new to the sites (a first build): no post links where it was
        return False
    slugs = pipeline.content.slugs_set(path, {blob, *shown})
    return any(slugs[old] != slugs[blob] for old in shown - {blob})


def _relinking(
    pipeline: Pipeline,
    ledger: Ledger,
    commit: str,
    moved: Sequence[str],
    *,
    changed: Mapping[str, str],
) -> list[Sighting]:
    """The posts that link the `moved` ones by `post_url`, published again as they are at
    `commit` to every target that holds them (their links lead to the new addresses); those
    the plan publishes anyway (`changed`) are left to it."""
    linking = {post for path in moved for post in pipeline.content.posts_linking(commit, path)}
    current = pipeline.content.list_articles(commit) if linking else {}
    keys = [item_key(target, post) for post in linking for target in pipeline.targets]
    ledger.published.preload(keys)
    relinked = []
    for post in sorted(linking - changed.keys()):
        for target in pipeline.targets:
            record = ledger.published.get(item_key(target, post))
            if post in current and record is not None and not record.unpublished:
                relinked.append(Sighting(target=target, path=post, blob=current[post],
                                         commit=commit, republish=True))  # fmt: skip
    if relinked:
        again = ", ".join(sorted({sighting.path for sighting in relinked}))
        pipeline.log(f"publishing again the posts that link one whose address moved: {again}")
    return relinked


def _placed_pages_held(
    pipeline: Pipeline, ledger: Ledger, articles: Collection[str], sites: Collection[str]
) -> dict[str, set[str]]:
    """The platforms each page by its place (`Config.pages`) is on, whatever its version: one
    holding the version it had as an article, before `pages` named it, is to leave it too."""
    held = {
        path: {target for target in pipeline.targets
               if target not in sites and _holds(ledger, item_key(target, path))}
        for path in articles
        if pipeline.content.placed_as_page(path)
    }  # fmt: skip
    return {path: targets for path, targets in held.items() if targets}


def _holds(ledger: Ledger, key: str) -> bool:
    """Whether a version is published, pending or dead at this key: something to take back."""
    record = ledger.published.get(key)
    return (record is not None and not record.unpublished) or any(
        entry is not None and entry.blob != ABSENT
        for entry in (ledger.pending.get(key), ledger.dead.get(key))
    )


def _unpublishes(pipeline: Pipeline, target: str) -> bool:
    spec = pipeline.config.targets.get(target)
    return spec is None or spec.unpublish
