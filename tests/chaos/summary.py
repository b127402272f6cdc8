"""The figures a chaos run is judged by, and the table that prints them."""

from __future__ import annotations

import math
from collections.abc import Sequence

from tests.chaos.owner_model import OwnerOutcome
from tests.chaos.scenario import ROUTES, Kill, Scenario
from tests.chaos.world import Outcome

__all__ = ["percentile", "problems", "table"]


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _span(seconds: float) -> str:
    if math.isnan(seconds):
        return "-"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def problems(outcome: Outcome, poison: frozenset[str]) -> list[str]:
    """Every broken promise in `outcome`; empty when the run kept them all."""
    found = []
    if outcome.lost:
        found.append(f"lost articles: {outcome.lost[:10]}")
    if outcome.still_up:
        found.append(f"removed articles still shown: {outcome.still_up[:10]}")
    if outcome.unlisted:
        found.append(f"published, yet not listed once on the site: {outcome.unlisted[:10]}")
    if outcome.undelivered:
        found.append(f"never delivered to the webhook: {outcome.undelivered[:10]}")
    if outcome.duplicate_posts:
        found.append(f"duplicate posts: {outcome.duplicate_posts}")
    expected_dead = {f"devto:{path}" for path in poison}
    if outcome.dead != expected_dead:
        found.append(f"dead letters {sorted(outcome.dead)} instead of {sorted(expected_dead)}")
    if set(outcome.alerts) != expected_dead or any(n != 1 for n in outcome.alerts.values()):
        found.append(f"dead-letter alerts by item: {dict(outcome.alerts)}")
    if outcome.leases_at_end or outcome.pending_at_end:
        found.append(
            f"at the end: {outcome.pending_at_end} pending, {outcome.leases_at_end} leased"
        )
    if outcome.invalid_state_commits:
        found.append(f"state commits invalid against state/schema: {outcome.invalid_state_commits}")
    return found


def table(outcomes: Sequence[Outcome], owner: OwnerOutcome, scenario: Scenario) -> str:
    """A Markdown table: one column per backend, then the owner-based model."""
    columns = [f"steadypress ({outcome.backend})" for outcome in outcomes] + ["owner-label model"]
    rows: list[tuple[str, list[str]]] = []

    def row(name: str, values: list[str], model: str) -> None:
        rows.append((name, [*values, model]))

    poison = scenario.poison
    edits = sum(len(push.edits) for push in scenario.pushes)
    row("articles", [str(o.articles) for o in outcomes], str(owner.articles))
    row("edits / removals along the way", [f"{edits} / {len(scenario.removed)}"] * len(outcomes),
        "not modelled")  # fmt: skip
    row(
        "lost (newest version not published)",
        [str(len(o.lost)) for o in outcomes],
        str(len(owner.stranded)),
    )
    stranded = list(owner.stranded.values())
    row(
        "stranded for (p50 / max)",
        ["-" for _ in outcomes],
        f"{_span(percentile(stranded, 0.5))} / {_span(max(stranded, default=math.nan))}",
    )
    row("removed, yet still shown somewhere", [str(len(o.still_up)) for o in outcomes], "-")
    row(
        "on the site, yet not once in its month's pages and sitemaps",
        [str(len(o.unlisted)) for o in outcomes],
        "-",
    )
    for platform, name in (("devto", "dev.to"), ("mastodon", "Mastodon"),
                           ("bluesky", "Bluesky"), ("hashnode", "Hashnode")):  # fmt: skip
        row(
            f"duplicate posts on {name} (creates the fake saw, before any deduplication)",
            [
                str(sum(n - 1 for key, n in o.duplicate_posts.items() if key.startswith(platform)))
                for o in outcomes
            ],
            "-",
        )
    row(
        "webhook: newest version never delivered (at least once, counted at the receiver)",
        [str(len(o.undelivered)) for o in outcomes],
        "-",
    )
    row(
        "webhook deliveries made again (same Idempotency-Key: the receiver keeps one)",
        [str(sum(n - 1 for n in o.redelivered.values())) for o in outcomes],
        "-",
    )
    row(
        "poison articles: dead-letter alerts",
        [f"{sum(o.alerts.values())} for {len(poison)}" for o in outcomes],
        "-",
    )
    row("other items dead-lettered", [str(len(o.dead - {f"devto:{p}" for p in poison}))
                                      for o in outcomes], "-")  # fmt: skip
    row("leases outstanding at the end", [str(o.leases_at_end) for o in outcomes], "-")
    row(
        "state commits valid against state/schema",
        [
            f"{o.state_commits - len(o.invalid_state_commits)} of {o.state_commits}"
            for o in outcomes
        ],
        "-",
    )
    # published_at is each executor's UTC time: off by up to the skew when clocks disagree.
    skew = scenario.settings.clock_skew
    by = f", by clocks off by up to {skew:g} s" if skew else ""
    for route in ROUTES:
        row(
            f"push → published, {route} (p50 / p95 / max{by})",
            [_latency(o.latency[route]) for o in outcomes],
            _latency([s for p, s in owner.published.items() if owner.routes[p] == route]),
        )
    row(
        f"push → published, all (p50 / p95 / max{by})",
        [_latency([v for values in o.latency.values() for v in values]) for o in outcomes],
        _latency(list(owner.published.values())),
    )
    row(
        "GitHub API requests per article",
        [f"{o.github_requests / o.articles:.1f}" if o.github_requests else "-" for o in outcomes],
        "-",
    )
    stop = Kill.SIGTERM.value
    row("executor kills", [str(sum(n for k, n in o.kills.items() if k != stop)) for o in outcomes],
        "same")  # fmt: skip
    row(
        "executors stopped by SIGTERM mid-batch (finished the call in hand, gave back the rest)",
        [str(o.kills[stop]) for o in outcomes],
        "same (hands its labels over)",
    )
    row("API faults met", [str(sum(o.api_faults.values())) for o in outcomes], "same")
    row("rival writes between read and write", [str(o.races) for o in outcomes], "-")
    row("simulated time", [_span(o.seconds_simulated) for o in outcomes], "same")
    lines = [
        "| | " + " | ".join(columns) + " |",
        "| --- |" + " --- |" * len(columns),
    ]
    lines += [f"| {name} | " + " | ".join(values) + " |" for name, values in rows]
    return "\n".join(lines)


def _latency(values: list[float]) -> str:
    if not values:
        return "-"
    return " / ".join(_span(percentile(values, q)) for q in (0.5, 0.95, 1.0)) + f" ({len(values)})"
