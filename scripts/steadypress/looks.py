"""What a reconcile learns of the targets' looks (`StyledTarget`): which targets' pages look
different since the last reconcile (every article published to them again), which changed
only in parts they rewrite alone (written again now), and which lost what they published."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from steadypress.errors import PublishError
from steadypress.ledger import ALONE, Look, Reconciled
from steadypress.pipeline import Pipeline
from steadypress.targets.base import Refreshed, StyledTarget

__all__ = [
    "alone_changed",
    "keeping",
    "lost_targets",
    "recorded_looks",
    "refresh_alone",
    "restyled_targets",
    "styled_targets",
]


def styled_targets(pipeline: Pipeline) -> list[tuple[str, StyledTarget]]:
    return [(n, t) for n, t in pipeline.targets.items() if isinstance(t, StyledTarget)]


def lost_targets(pipeline: Pipeline) -> set[str]:
    """The styled targets whose output holds none of what they published (`StyledTarget.lost`)."""
    return {name for name, target in styled_targets(pipeline) if target.lost()}


def recorded_looks(last: Reconciled | None) -> dict[str, Look]:
    """Each target's look as `last` recorded it (none recorded: no marker yet)."""
    return dict(last.looks) if last is not None else {}


def restyled_targets(last: Reconciled | None, marker: Reconciled) -> set[str]:
    """The targets whose pages look different since `last`. One `last` has no look for (a
    state written before looks were recorded, a target new since) takes the look it has: every
    article published again to each site for an upgrade would cost a blog of 100,000 hours."""
    before = recorded_looks(last)
    return {name for name, look in marker.looks if before.get(name, look).pages != look.pages}


def alone_changed(last: Reconciled | None, marker: Reconciled) -> dict[str, list[str]]:
    """The targets whose look changed since `last` in parts they rewrite alone (`ALONE`), their
    pages' the same (a stylesheet or a listing's template edited, and nothing else), with those
    parts."""
    before = recorded_looks(last)
    return {
        name: parts
        for name, look in marker.looks
        if name in before and before[name].pages == look.pages
        if (parts := [p for p in ALONE if getattr(before[name], p) != getattr(look, p)])
    }


def refresh_alone(
    pipeline: Pipeline, last: Reconciled | None, marker: Reconciled, *, restyle: Collection[str]
) -> tuple[Reconciled, set[str]]:
    """What the parts of a look a target rewrites alone show, written again for each target
    whose look changed there alone and is not to be published again whole (`restyle`). Returns
    the marker to record, in which a target whose write failed keeps the parts it had (the next
    reconcile tries again), and so does one a later commit's run wrote meanwhile (its look is
    the one to keep), and the targets whose other pages show them too (every article is to be
    published again)."""
    styled = dict(styled_targets(pipeline))
    before = recorded_looks(last)
    kept: dict[str, list[str]] = {}
    shown: set[str] = set()
    for name, parts in sorted(alone_changed(last, marker).items()):
        if name in restyle:
            continue
        what = " and ".join(styled[name].showing(part) for part in parts)
        try:
            refreshed = styled[name].refresh(parts)
        except PublishError as error:
            why = pipeline.redact(f"{error}; the next run tries again")
            pipeline.log(f"{name}: its {what} could not be written: {why}")
            pipeline.unfinished.append((f"{name}: its {what}", why))
            kept[name] = parts
            continue
        if refreshed is Refreshed.WRITTEN:
            pipeline.log(f"the {what} of {name} changed: written again")
        elif refreshed is Refreshed.SHOWN:
            shown.add(name)
        else:
            pipeline.log(f"the {what} of {name} are a later commit's: left to a newer run")
            kept[name] = parts
    return keeping(marker, before, kept), shown


def keeping(
    marker: Reconciled, before: Mapping[str, Look], kept: Mapping[str, Collection[str]]
) -> Reconciled:
    """`marker`, each target of `kept` recording those parts of its look as `before` did."""
    parts = {name: {part: getattr(before[name], part) for part in which}
             for name, which in kept.items()}  # fmt: skip
    looks = tuple((name, replace(look, **parts.get(name, {}))) for name, look in marker.looks)
    return replace(marker, looks=looks)
