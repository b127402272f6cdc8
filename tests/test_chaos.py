"""The chaos suite, short: the promises of benchmarks/chaos.py, asserted on a smaller scenario
on both backends (`pytest -m chaos` runs just this; the full-size run is the benchmark)."""

from pathlib import Path

import pytest

from steadypress import planning
from tests.chaos.owner_model import play_owner_model
from tests.chaos.scenario import ROUTES, Kill, Settings, draw
from tests.chaos.summary import problems, table
from tests.chaos.world import run_scenario

pytestmark = pytest.mark.chaos

# Denser faults than the full run, so that 80 articles meet every kind (checked below).
SHORT = Settings(
    articles=80, poison=3, hours=2.5, stale_leases=6, seed=7, kill=0.06, api_fault=0.2,
    race=0.1, edit=0.3, remove=0.1,
)  # fmt: skip


# The same with every run's UTC clock off by up to the stated bound (the lease less a renewal
# interval: docs/how-it-works.md, "Clocks"); another seed, whose story meets every kill point
# and fault kind with the skews.
SKEWED = Settings(**{**SHORT.__dict__, "seed": 8, "clock_skew": 580})

# GitHub's backend is a fake three times slower to drive: half the articles, with kills and
# faults denser still, and a seed whose story meets every kill point and five kinds of fault
# with and without the skews.
SHORT_GITHUB = Settings(**{**SHORT.__dict__, "articles": 40, "hours": 1.25, "seed": 5,
                           "kill": 0.1, "api_fault": 0.35})  # fmt: skip
SKEWED_GITHUB = Settings(**{**SHORT_GITHUB.__dict__, "clock_skew": 580})


def test_a_scenario_is_the_same_story_for_the_same_seed() -> None:
    assert draw(SHORT) == draw(SHORT)
    assert draw(SHORT) != draw(Settings(**{**SHORT.__dict__, "seed": 4}))


# Every story on the local backend; on GitHub's, the small windows and the skewed clocks (the
# skewed story runs that backend with windows of 500 too).
@pytest.mark.parametrize(
    ("backend", "window", "settings"),
    [
        ("local", None, SHORT),
        ("local", 3, SHORT),
        ("local", None, SKEWED),
        ("github", 3, SHORT_GITHUB),
        ("github", None, SKEWED_GITHUB),
    ],
    ids=[
        "windows of 500-local",
        "windows of 3-local",
        "clocks skewed-local",
        "windows of 3-github",
        "clocks skewed-github",
    ],
)
def test_nothing_lost_nothing_twice_no_stall_on_a_dead_owner(
    backend: str,
    window: int | None,
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With windows of 3 items, every push and sweep of the story is a large import: its
    backlog, the poison articles' dead letters and the kills meet all along the way. With
    clocks skewed, each executor's UTC time is off by up to 580 s either way."""
    if window is not None:
        monkeypatch.setattr(planning, "ADMISSION", window)
    scenario = draw(settings)
    outcome = run_scenario(scenario, tmp_path, backend=backend)
    owner = play_owner_model(scenario)
    print(table([outcome], owner, scenario))  # shown with -s, or when the test fails
    # The scenario really was chaotic: every kill point, API faults, rivals, every route.
    assert set(outcome.kills) == {kill.value for kill in Kill if kill is not Kill.NONE}
    assert len(outcome.api_faults) >= (5 if backend == "github" else 2), "kinds of fault met"
    assert outcome.races > 0
    assert all(outcome.latency[route] for route in ROUTES)
    # ...and every promise held.
    edited = {path for push in scenario.pushes for path in push.edits}
    assert edited and scenario.removed, "articles were edited and removed along the way"
    assert problems(outcome, scenario.poison) == []
    untouched = set(scenario.pushed_at) - edited - scenario.removed
    assert sum(len(values) for values in outcome.latency.values()) == len(untouched)
    # The design it replaces, under the same story, strands articles behind dead owners.
    assert owner.stranded
