"""Letters beside their dead items: opened after the items are recorded dead, their numbers
recorded once, closed when the last item naming them is done. The ledger always comes first: a
letter that cannot be opened now is opened by a later sweep.

Which letter an item goes to: the one its article already has (every target of an article
shares one letter, and a retried item keeps its number); else, when at least `SUMMARY_AT`
articles died of one cause at once (a target that refuses everything), or two or more of a
cause outside the articles (a broken template, the site's configuration), one summary letter
for them all, joined by later ones of that cause while it is open; else a new letter for its
article.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from steadypress.alerts.letter import Letter, cause_of, resolution_text
from steadypress.claiming import Resolution
from steadypress.ledger import DeadItem, Ledger, PublishedRecord
from steadypress.transitions import record_alert

if TYPE_CHECKING:
    from steadypress.pipeline import Pipeline

__all__ = ["SUMMARY_AT", "raise_alerts", "settle_alerts", "withdraw_alerts"]

# Articles dead of one cause in one run from which they share one summary letter.
SUMMARY_AT = 5


def _ledger(pipeline: Pipeline) -> Ledger:
    known = pipeline.store.last_known() or pipeline.store.load()
    return known.ledger


def _named(ledger: Ledger, alerts: Iterable[int]) -> dict[int, list[DeadItem]]:
    """The dead items naming each of `alerts`."""
    wanted = set(alerts)
    named: dict[int, list[DeadItem]] = {alert: [] for alert in wanted}
    for item in ledger.dead.values():
        if item.alert in wanted:
            named[item.alert].append(item)
    return named


def _assign(items: list[DeadItem], ledger: Ledger) -> list[tuple[int | None, list[DeadItem]]]:
    """Which letter each newly dead item goes to: (number, items) for letters that exist,
    (None, items) for letters to open."""
    of_article: dict[str, int] = {}
    of_cause: dict[str, int] = {}
    paths_of: dict[int, set[str]] = defaultdict(set)
    for dead in ledger.dead.values():
        if dead.alert is not None:
            of_article.setdefault(dead.path, dead.alert)
            paths_of[dead.alert].add(dead.path)
    for dead in ledger.dead.values():
        if dead.alert is not None and len(paths_of[dead.alert]) > 1:  # an open summary
            of_cause.setdefault(cause_of(dead), dead.alert)
    existing: dict[int, list[DeadItem]] = defaultdict(list)
    by_cause: dict[str, list[DeadItem]] = defaultdict(list)
    for item in items:
        number = item.alert or of_article.get(item.path) or of_cause.get(cause_of(item))
        if number is not None:
            existing[number].append(item)
        else:
            by_cause[cause_of(item)].append(item)
    letters: list[tuple[int | None, list[DeadItem]]] = list(existing.items())
    by_article: dict[str, list[DeadItem]] = defaultdict(list)
    for group in by_cause.values():
        articles = len({item.path for item in group})
        if articles >= SUMMARY_AT or (articles > 1 and all(map(_outside_its_article, group))):
            letters.append((None, group))
        else:
            for item in group:
                by_article[item.path].append(item)
    letters.extend((None, article) for article in by_article.values())
    return letters


def _outside_its_article(item: DeadItem) -> bool:
    """Whether what the item died of lies outside its article: the first file its death
    depends on (where the fault is: a template, the site's configuration, a shared image) is
    another. Articles dead of one such cause share a letter however few they are."""
    return bool(item.depends) and item.depends[0][0] != item.path


def raise_alerts(pipeline: Pipeline, items: list[DeadItem]) -> list[DeadItem]:
    """Post the letters of newly dead items, then record their numbers in one transaction;
    returns the items with the numbers they now have.

    The ledger already holds the dead items, so a letter that cannot be opened now is not lost:
    its items keep `issue: null` and every sweep tries again.
    """
    if not items:
        return items
    ledger = _ledger(pipeline)
    assigned = _assign(items, ledger)
    named = _named(ledger, [number for number, _ in assigned if number is not None])
    opened: dict[str, int] = {}
    for number, group in assigned:
        letter = Letter.of([*named.get(number, []), *group] if number is not None else group)
        try:
            posted = pipeline.alerts.open(letter, number)
        except Exception as error:  # any channel failure: the sweeper opens it later
            keys = ", ".join(item.key for item in group)
            pipeline.log(
                f"could not open a dead letter for {keys} (the sweeper will retry): {error}"
            )
            continue
        opened.update((item.key, posted) for item in group)
    if not opened:
        return items

    def remember(ledger: Ledger) -> tuple[Ledger, dict[str, int | None]]:
        for key, alert in opened.items():
            ledger = record_alert(ledger, key, alert)
        recorded = {key: ledger.dead[key].alert if key in ledger.dead else None for key in opened}
        return ledger, recorded

    recorded = pipeline.transact(remember, message="steadypress: record dead letters")
    winners = {alert for alert in recorded.values() if alert is not None}
    retired: set[int] = set()
    for key, alert in opened.items():
        winner = recorded[key]
        if winner is not None and alert not in winners and alert not in retired:
            pipeline.log(f"dead letter #{alert} of {key} duplicates #{winner}; retiring it")
            retired.add(alert)
            pipeline.alerts.close(
                alert,
                text=f"Duplicate of #{winner}: two executors opened this at once.",
                completed=False,
            )
    return [replace(item, alert=recorded.get(item.key) or item.alert) for item in items]


def settle_alerts(pipeline: Pipeline, resolutions: list[Resolution]) -> None:
    """After completions: a letter with nothing left naming it is closed with what was
    published; one whose other items are still dead is posted again with only those."""
    done: dict[int, list[tuple[str, PublishedRecord]]] = defaultdict(list)
    for resolution in resolutions:
        done[resolution.alert].append((resolution.key, resolution.record))
    _settle(pipeline, {alert: resolution_text(items) for alert, items in done.items()}, True)


def withdraw_alerts(pipeline: Pipeline, alerts: Mapping[int, str]) -> None:
    """Letters whose items were dropped (their target left the configuration), with why."""
    _settle(pipeline, {alert: f"Withdrawn: {reason}" for alert, reason in alerts.items()}, False)


def _settle(pipeline: Pipeline, texts: Mapping[int, str], completed: bool) -> None:
    if not texts:
        return
    ledger = _ledger(pipeline)
    still_dead = _named(ledger, texts)
    # A retried item on its way back still needs its letter; it closes it when it is done.
    in_flight = {item.alert for item in ledger.pending.values() if item.alert in texts}
    for alert, text in texts.items():
        try:
            if still_dead[alert]:
                pipeline.alerts.open(Letter.of(still_dead[alert]), alert)
            elif alert not in in_flight:
                pipeline.alerts.close(alert, text=text, completed=completed)
        except Exception as error:  # the ledger is settled; a stale letter is only noise
            pipeline.log(f"could not update dead letter #{alert}: {error}")
