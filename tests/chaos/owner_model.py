"""The design steadypress replaces, as a model: work carries an owner label, and every other
executor respects the label until a hand-over is recorded.

It faces the very scenario the real pipeline faces (same pushes, same dropped events, same
kills, same faults, same leftover labels), and is given every benefit of the doubt:
- an executor that fails gracefully (an API error) or is asked to stop (SIGTERM) records a
  hand-over, so others may take over;
- the sweeper and live mode resume their own labelled work when they next run;
- an unlabelled article is taken by whoever runs first, with the sweeper's grace period.
What it cannot do is take work labelled by an executor that died: a push run is a one-shot
process, and a label left by a dead executor (any name) is respected forever. The model follows
new articles only; the scenario's edits and removals are the real pipeline's to get right.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.chaos.scenario import Kill, Push, Run, Scenario, StaleLease

__all__ = ["OwnerOutcome", "play_owner_model"]

GRACE = 5 * 60.0


@dataclass
class OwnerOutcome:
    articles: int
    published: dict[str, float]  # path -> seconds from push to published
    stranded: dict[str, float]  # path -> seconds stranded when the scenario ended
    routes: dict[str, str]  # path -> how it was meant to be published (Scenario.routes)


def play_owner_model(scenario: Scenario) -> OwnerOutcome:
    pushed_at = scenario.pushed_at
    paths_of_push = {push.index: push.paths for push in scenario.pushes}
    owner: dict[str, str | None] = {}
    done: dict[str, float] = {}
    events: list[tuple[float, int, object]] = []
    events += [(push.at, 0, push) for push in scenario.pushes]
    events += [(lease.at, 1, lease) for lease in scenario.stale_leases]
    events += [(run.at, 2, run) for run in scenario.runs]
    events.sort(key=lambda event: (event[0], event[1]))

    def open_work() -> list[str]:
        return [path for path in owner if path not in done]

    for at, _order, event in events:
        if isinstance(event, Push):
            for path in event.paths:
                owner[path] = None
        elif isinstance(event, StaleLease):  # a dead executor's label on the oldest unlabelled
            free = sorted((p for p in open_work() if owner[p] is None), key=pushed_at.__getitem__)
            for path in free[:3]:
                owner[path] = f"dead:{event.holder}"
        else:
            assert isinstance(event, Run)
            _run(event, at=at, owner=owner, done=done, pushed_at=pushed_at,
                 paths_of_push=paths_of_push, open_work=open_work())  # fmt: skip
    return OwnerOutcome(
        articles=len(pushed_at),
        published={path: done[path] - pushed_at[path] for path in done},
        # An article removed since it was pushed needs publishing no more: it is not stranded.
        stranded={
            path: scenario.end - pushed_at[path]
            for path in owner
            if path not in done and path not in scenario.removed
        },
        routes=scenario.routes(github=True),
    )


def _run(
    run: Run,
    *,
    at: float,
    owner: dict[str, str | None],
    done: dict[str, float],
    pushed_at: dict[str, float],
    paths_of_push: dict[int, tuple[str, ...]],
    open_work: list[str],
) -> None:
    if run.role == "push":
        assert run.push is not None
        me = f"{run.holder}@{run.at:.0f}"  # a push run is a process that never comes back
        mine = [
            p for p in paths_of_push[run.push] if p in owner and p not in done and owner[p] is None
        ]
    else:
        me = run.holder  # the sweeper and live mode come back under the same name
        grace = GRACE if run.role == "sweep" else 0.0
        mine = [
            p
            for p in open_work
            if owner[p] == me or (owner[p] is None and at - pushed_at[p] >= grace)
        ]
    if run.kill is Kill.BEFORE_CLAIM or not mine:
        return
    for path in mine:
        owner[path] = me
    if run.kill not in (Kill.NONE, Kill.SIGTERM):
        return  # dead with its labels on
    if run.api_fault is not None or run.kill is Kill.SIGTERM:
        for path in mine:  # a graceful failure: the hand-over is recorded
            owner[path] = None
        return
    for path in mine:
        done[path] = at
