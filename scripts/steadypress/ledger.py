"""The pending ledger: the record of unfinished work, as pure data (its transitions, and the
sightings and outcomes they take, are `claiming.py`'s and `transitions.py`'s).

Nothing here reads a clock, a file or the network. The state-branch format is described in
DESIGN.md and `state/schema/`; `codec.py` writes it and `statedecode.py` reads it.

The rules that make the ledger "what is unfinished", never "who owns it":
- a lease is information with an expiry; an expired lease is no lease, whatever its holder says;
- a completion is recorded even if its lease was lost meanwhile (the result is the truth);
- a newer version of an article replaces the pending older one but keeps its lease, so two
  executors never publish two versions of one article at the same moment;
- a dead item stays dead for its blob until retried; a new blob of the article replaces it;
- a lease found run out when its item is claimed again is a lapse: the run that held it stopped
  before it could say how its work went (killed, out of memory, out of time). One article that
  kills whatever publishes it must not take its batch down with it forever, so an item that
  lapsed is claimed in a small batch, then alone, and buried once it lapses alone twice;
- an article that leaves content/ (deleted, or now a draft) has a newest version too: `ABSENT`,
  and finishing that version means unpublishing the article.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from steadypress.published import ABSENT, PublishedRecord, PublishedRecords

__all__ = [
    "ABSENT",
    "ALONE",
    "HISTORY_LIMIT",
    "LAPSED_BATCH",
    "LAPSES_ALONE",
    "LAPSES_FATAL",
    "LOOK_PARTS",
    "Attempt",
    "Backlog",
    "DeadItem",
    "Depends",
    "Lease",
    "Ledger",
    "Look",
    "PendingItem",
    "PublishedRecord",
    "Reconciled",
    "RetryPolicy",
    "item_key",
    "look_digest",
    "split_key",
]

# A dead letter tells the story of the last attempts; older ones add length, not insight.
HISTORY_LIMIT = 10
# A claim holding an item that lapsed once takes at most this many (a claim may take 500: one
# article killing its run would otherwise take 499 others with it at every try); an item that
# lapsed twice is claimed alone, and one that lapses twice more, alone, is buried. Once alone
# is not enough: a runner lost at the wrong moment would bury a healthy article.
LAPSED_BATCH = 25
LAPSES_ALONE = 2
LAPSES_FATAL = 4
# What an attempt depended on besides its article version: each repository path (an image, the
# theme folder, the configuration) with the git object id it had then, ABSENT when it did not
# exist. A change to any of them is a reason to try a dead item again.
Depends = tuple[tuple[str, str], ...]


def item_key(target: str, path: str) -> str:
    return f"{target}:{path}"


def split_key(key: str) -> tuple[str, str]:
    """(target, path) of a key; target names never contain ':'."""
    target, path = key.split(":", 1)
    return target, path


@dataclass(frozen=True, slots=True)
class Lease:
    """Who is working on an item, until when: information with an expiry, never a veto. The
    token tells the holder's own lease from a later one of the same name."""

    holder: str
    token: str
    expires_at: datetime

    def is_live(self, now: datetime) -> bool:
        return now < self.expires_at


@dataclass(frozen=True, slots=True)
class Attempt:
    """One failed attempt, kept so that a dead letter can say what went wrong and when."""

    at: datetime
    error: str


@dataclass(frozen=True, slots=True)
class PendingItem:
    """An article version still to be published to one target (or, at `ABSENT`, taken off
    it): when it may be tried, how its attempts went, and who holds it now, if anyone."""

    target: str
    path: str
    blob: str
    commit: str
    enqueued_at: datetime
    not_before: datetime | None = None
    attempts: int = 0
    next_attempt_at: datetime | None = None
    last_error: str | None = None
    history: tuple[Attempt, ...] = ()
    lease: Lease | None = None
    alert: int | None = None
    lapses: int = 0  # leases that ran out on this version with its run gone (see `claim`)

    @property
    def key(self) -> str:
        return item_key(self.target, self.path)

    @property
    def claimed_with_at_most(self) -> int | None:
        """The largest claim this item may be in (None: any), by how often it lapsed."""
        if self.lapses >= LAPSES_ALONE:
            return 1
        return LAPSED_BATCH if self.lapses else None

    def is_leased(self, now: datetime) -> bool:
        return self.lease is not None and self.lease.is_live(now)

    def is_due(self, now: datetime) -> bool:
        return (self.next_attempt_at is None or self.next_attempt_at <= now) and (
            self.not_before is None or self.not_before <= now
        )

    def is_claimable(self, now: datetime) -> bool:
        return self.is_due(now) and not self.is_leased(now)

    @property
    def unpublishes(self) -> bool:
        return self.blob == ABSENT


@dataclass(frozen=True, slots=True)
class DeadItem:
    """An article version that kept failing on one target, held until retried or replaced by
    a newer version; `depends` names what its last attempt read besides the article (a change
    to any of them is a reason to try it again)."""

    target: str
    path: str
    blob: str
    commit: str
    died_at: datetime
    attempts: int
    history: tuple[Attempt, ...]
    permanent: bool
    alert: int | None = None
    depends: Depends = ()

    @property
    def key(self) -> str:
        return item_key(self.target, self.path)

    @property
    def last_error(self) -> str:
        return self.history[-1].error if self.history else ""

    @property
    def unpublishes(self) -> bool:
        return self.blob == ABSENT


@dataclass(frozen=True, slots=True)
class Backlog:
    """The articles a reconcile found but has not enqueued yet: those changed between `since`
    and the reconcile's commit (every article of that commit when `since` is None) that come
    after `after`, the last one enqueued. A large import enters the ledger a window at a time,
    so pending.json stays small whatever the size of the blog. They come `newest_first`, in the
    order of their dates at the reconcile's commit (`importorder`); a backlog recorded before
    that order existed goes on in path order."""

    since: str | None
    after: str
    newest_first: bool = False
    # Targets whose look changed (`Reconciled.looks`): every article is published to them
    # again, the versions they hold too.
    restyle: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Look:
    """What a styled target's output depends on besides the articles, as three digests: what
    every page shows (`pages`: another one publishes every article to it again), what only its
    listing pages show (`listings`: another one rewrites every listing page, and the files of
    `singles`, alone), and what only the files the target has one of show (`singles`: the
    site's stylesheet, 404 page, front page, archive and tags page; another one rewrites those
    files alone). The parts but `pages` are those a target rewrites alone (`ALONE`)."""

    pages: str
    listings: str
    singles: str

    def digests(self) -> tuple[str, ...]:
        """The digests of its parts, in `LOOK_PARTS` order."""
        return tuple(getattr(self, part) for part in LOOK_PARTS)


def look_digest(document: Mapping[str, object]) -> str:
    """A part of a `Look`: the digest of what it is made of, as JSON."""
    import hashlib  # noqa: PLC0415 - OpenSSL's library, loaded once a look is taken

    return hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()


# The parts of a look a styled target rewrites alone when they change (`StyledTarget.refresh`).
ALONE = ("listings", "singles")
LOOK_PARTS = ("pages", *ALONE)


@dataclass(frozen=True, slots=True)
class Reconciled:
    """The content commit the last reconcile compared with the ledger, and what it was compared
    under: the next reconcile reads only the diff from it, unless the history was rewritten,
    the targets changed, or the configuration (its blob id) did. With a `backlog`, part of that
    comparison is still to come."""

    commit: str
    targets: tuple[str, ...]
    config: str
    backlog: Backlog | None = None
    # (target, look) of each target whose pages depend on more than the article (the site: its
    # settings and theme), sorted.
    looks: tuple[tuple[str, Look], ...] = ()


@dataclass(frozen=True, slots=True)
class Ledger:
    """The whole record of unfinished work: what is pending, what is published (each target's
    version of each article), what is dead, and the content commit last reconciled."""

    pending: Mapping[str, PendingItem] = field(default_factory=dict)
    # Plain mappings are taken too (tests, the memory store); they are kept in shards.
    published: PublishedRecords = field(default_factory=PublishedRecords)
    dead: Mapping[str, DeadItem] = field(default_factory=dict)
    reconciled: Reconciled | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.published, PublishedRecords):
            object.__setattr__(self, "published", PublishedRecords.of(self.published))


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often a failing version is tried, and how long it waits between tries (seconds)."""

    max_attempts: int
    backoff_initial: float
    backoff_max: float
