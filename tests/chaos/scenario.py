"""A chaos scenario as plain data, drawn from a seed: what happens and when, decided before
anything runs, so the real pipeline and the owner-based model face exactly the same faults.

Times are seconds of simulated time from the start. Executors (holders) play the design's roles:
two push runners take turns on push events, a sweeper runs on a schedule that GitHub delays and
sometimes drops, and a live-mode executor comes and goes.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field, replace

__all__ = [
    "API_FAULTS",
    "EXECUTORS",
    "ROUTES",
    "Kill",
    "Push",
    "Run",
    "Scenario",
    "Settings",
    "StaleLease",
    "draw",
]

EXECUTORS = ("push-a", "push-b", "sweeper", "live")
# Holder names left on leases by executors that died with them: information, never a veto.
STALE_HOLDERS = ("owner: alice", "workers", "backup-runner", "push-a", "sweeper")
# Faults one executor run meets at the API. The state-branch and Pages kinds need the GitHub
# backend; on the local backend they are absent and the run meets none.
API_FAULTS = (
    "state write 502",  # createCommitOnBranch answered 502, not applied
    "state write 502 after the write",  # applied, then 502: the client cannot know
    "state write timeout after the write",  # applied, then no answer at all
    "state read 500",
    "secondary rate limit 429",
    "primary rate limit 403",
    "pages write 502 after the write",
    "dev.to 500",
    "dev.to 429",
    "dev.to create answer lost",
    "Mastodon create answer lost",
    "Mastodon 429",
    "Bluesky create answer lost",
    "Hashnode create answer lost",
)
_PLATFORMS = ("dev.to", "Mastodon", "Bluesky", "Hashnode")
GITHUB_ONLY = frozenset(fault for fault in API_FAULTS if not fault.startswith(_PLATFORMS))
ROUTES = ("event", "sweep after a dropped event", "retry after a fault or a stop")


class Kill(enum.Enum):
    """Where an executor dies (SIGKILL: nothing after it runs), or is asked to stop."""

    NONE = "survives"
    BEFORE_CLAIM = "before its claim"
    AFTER_CLAIM = "after its claim"
    AFTER_PUBLISH = "after the target accepted, before complete"
    MID_WRITE = "inside its site write"  # a few of the write's files in place, the rest not
    # Not a death: asked to stop (SIGTERM, a cancelled job) as its first publication begins.
    SIGTERM = "stopped by SIGTERM mid-batch"


@dataclass(frozen=True)
class Settings:
    articles: int = 1000
    poison: int = 5  # articles dev.to always answers 500 for
    hours: float = 24.0  # pushes are spread over this much simulated time
    seed: int = 1
    event_dropped: float = 0.08  # a push event GitHub never delivers
    kill: float = 0.04  # for each of the four kill points, per run
    api_fault: float = 0.12  # a run meets one API fault
    race: float = 0.05  # another executor writes between a run's read and its write
    stale_leases: int = 20  # claims left by executors that died with odd holder names
    edit: float = 0.15  # a push also changes an article pushed before
    remove: float = 0.04  # a push also deletes one (never a poison article: it stays dead)
    tick_dropped: float = 0.15  # a scheduled sweep that never runs
    tick_delay_max: float = 15 * 60  # GitHub starts scheduled runs late, up to this
    live_up_hours: float = 3.0  # mean length of a live-mode session
    live_down_hours: float = 3.0  # mean gap between sessions
    live_interval: float = 120.0  # live mode's poll
    tail_hours: float = 6.0  # fault-free schedule after the last push, to let everything settle
    # Each run's UTC clock is off by up to this many seconds either way (its monotonic clock is
    # true): the stated bound is the lease less a renewal interval, 580 s for the world's leases
    # (docs/how-it-works.md, "Clocks").
    clock_skew: float = 0.0


@dataclass(frozen=True)
class Run:
    """One executor run: who, when, how it dies, which API fault it meets."""

    at: float
    role: str  # "push", "sweep" or "live"
    holder: str
    kill: Kill = Kill.NONE
    api_fault: str | None = None
    push: int | None = None  # the push this run was started by
    skew: float = 0.0  # seconds its UTC clock is off by


@dataclass(frozen=True)
class Push:
    index: int
    at: float
    paths: tuple[str, ...]  # new articles
    delivered: bool
    edits: tuple[str, ...] = ()  # new versions of articles pushed before
    removals: tuple[str, ...] = ()  # articles deleted from content/


@dataclass(frozen=True)
class StaleLease:
    at: float
    holder: str


@dataclass(frozen=True)
class Scenario:
    settings: Settings
    pushes: list[Push]
    runs: list[Run]  # by time
    stale_leases: list[StaleLease]
    live_sessions: list[tuple[float, float]]
    poison: frozenset[str]
    end: float
    titles: dict[str, str] = field(default_factory=dict)

    @property
    def pushed_at(self) -> dict[str, float]:
        """When each article was first pushed."""
        return {path: push.at for push in self.pushes for path in push.paths}

    @property
    def removed(self) -> frozenset[str]:
        return frozenset(path for push in self.pushes for path in push.removals)

    def routes(self, *, github: bool) -> dict[str, str]:
        """How each article is meant to reach its targets: by the push event's own run, by a
        sweep because the event never came (or its run died before claiming), or by a retry
        because its run died later or met a fault (GitHub faults need the GitHub backend)."""
        run_of_push = {run.push: run for run in self.runs if run.push is not None}
        routes = {}
        for push in self.pushes:
            run = run_of_push.get(push.index)
            if run is None or run.kill is Kill.BEFORE_CLAIM:
                route = ROUTES[1]
            elif run.kill is Kill.NONE and (
                run.api_fault is None or (run.api_fault in GITHUB_ONLY and not github)
            ):
                route = ROUTES[0]
            else:
                route = ROUTES[2]
            routes.update(dict.fromkeys(push.paths, route))
        return routes


def _kill(rng: random.Random, settings: Settings) -> Kill:
    roll = rng.random()
    # SIGTERM last: the roll that drew the other points draws them as it did before it existed.
    for point in (Kill.BEFORE_CLAIM, Kill.AFTER_CLAIM, Kill.AFTER_PUBLISH, Kill.MID_WRITE,
                  Kill.SIGTERM):  # fmt: skip
        if roll < settings.kill:
            return point
        roll -= settings.kill
    return Kill.NONE


def _fault(rng: random.Random, settings: Settings) -> str | None:
    return rng.choice(API_FAULTS) if rng.random() < settings.api_fault else None


def draw(settings: Settings) -> Scenario:
    """The whole scenario from `settings.seed`: the same seed, the same story."""
    rng = random.Random(settings.seed)
    span = settings.hours * 3600
    paths = [f"content/post-{n:04d}.md" for n in range(settings.articles)]
    poison = frozenset(rng.sample(paths, settings.poison))
    titles = {path: ("Poison" if path in poison else "Post") + f" {n}" for n, path in
              enumerate(paths)}  # fmt: skip

    pushes: list[Push] = []
    runs: list[Run] = []
    remaining = list(paths)
    present: list[str] = []
    # Edits and removals draw from their own generator, so the rest of a seed's story (pushes,
    # runs, faults) is the same with or without them.
    changes = random.Random(settings.seed + 1)
    mean_gap = span / max(1, settings.articles / 3.5)
    at = 0.0
    while remaining:
        at += rng.expovariate(1 / mean_gap)
        size = min(len(remaining), rng.randint(1, 6))
        batch, remaining = tuple(remaining[:size]), remaining[size:]
        delivered = rng.random() >= settings.event_dropped
        edits = (changes.choice(present),) if present and changes.random() < settings.edit else ()
        removable = [path for path in present if path not in poison and path not in edits]
        removals: tuple[str, ...] = ()
        if removable and changes.random() < settings.remove:
            removals = (changes.choice(removable),)
            present.remove(removals[0])
        present.extend(batch)
        push = Push(index=len(pushes), at=at, paths=batch, delivered=delivered, edits=edits,
                    removals=removals)  # fmt: skip
        pushes.append(push)
        if delivered:  # a runner picks the job up within a minute or so
            runs.append(
                Run(
                    at=at + rng.uniform(10, 60),
                    role="push",
                    holder=EXECUTORS[push.index % 2],
                    kill=_kill(rng, settings),
                    api_fault=_fault(rng, settings),
                    push=push.index,
                )
            )
    last_push = at
    end = last_push + settings.tail_hours * 3600
    chaos_until = last_push + 3600  # the last hour of pushes' faults, then a calm tail

    tick = 7 * 60.0  # cron "7-59/10 * * * *"
    while tick < end:
        calm = tick > chaos_until
        if calm or rng.random() >= settings.tick_dropped:
            delay = (
                rng.uniform(0, 90)
                if rng.random() < 0.8
                else rng.uniform(0, settings.tick_delay_max)
            )
            runs.append(
                Run(
                    at=tick + delay,
                    role="sweep",
                    holder="sweeper",
                    kill=Kill.NONE if calm else _kill(rng, settings),
                    api_fault=None if calm else _fault(rng, settings),
                )
            )
        tick += 600

    sessions: list[tuple[float, float]] = []
    moment = rng.expovariate(1 / (settings.live_down_hours * 3600))
    while moment < chaos_until:
        length = rng.expovariate(1 / (settings.live_up_hours * 3600))
        sessions.append((moment, min(moment + length, chaos_until)))
        poll = moment
        while poll < moment + length and poll < chaos_until:
            runs.append(Run(at=poll, role="live", holder="live", api_fault=_fault(rng, settings)))
            poll += settings.live_interval
        # The session ends as a process ends when its machine goes away: at any point of its
        # last poll (or between polls).
        if runs[-1].role == "live":
            last = runs.pop()
            kill = rng.choice(list(Kill))
            runs.append(Run(at=last.at, role="live", holder="live", kill=kill,
                            api_fault=last.api_fault))  # fmt: skip
        moment += length + rng.expovariate(1 / (settings.live_down_hours * 3600))

    stale = [
        StaleLease(at=rng.uniform(0, last_push), holder=rng.choice(STALE_HOLDERS))
        for _ in range(settings.stale_leases)
    ]
    runs.sort(key=lambda run: run.at)
    if settings.clock_skew:  # drawn apart: the rest of the story is the same with or without
        skews = random.Random(settings.seed + 2)
        runs = [
            replace(run, skew=skews.uniform(-settings.clock_skew, settings.clock_skew))
            for run in runs
        ]
    stale.sort(key=lambda lease: lease.at)
    return Scenario(
        settings=settings,
        pushes=pushes,
        runs=runs,
        stale_leases=stale,
        live_sessions=sessions,
        poison=poison,
        end=end,
        titles=titles,
    )
