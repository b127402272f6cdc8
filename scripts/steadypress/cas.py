"""The one compare-and-swap loop: try, and on a `Conflict` wait a jittered backoff and try again.

The state store's transactions and the Pages branch's writes both stand on it; what an attempt
re-reads and re-applies is theirs, how racing writers spread out is decided here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from steadypress.backoff import backoff_seconds
from steadypress.errors import Conflict

if TYPE_CHECKING:
    import random

__all__ = ["retry_conflicts"]

R = TypeVar("R")


def retry_conflicts(
    attempt: Callable[[int], R],
    *,
    tries: int,
    sleep: Callable[[float], None],
    rng: random.Random,
    wait_initial: float,
    wait_max: float,
    gave_up: Callable[[Conflict], Exception],
) -> R:
    """`attempt(n)` for n = 1, 2, ... until it returns without a `Conflict`; `gave_up(last)`
    is raised after `tries` conflicts."""
    last = Conflict(None, None)
    for number in range(1, tries + 1):
        try:
            return attempt(number)
        except Conflict as conflict:
            last = conflict
            sleep(
                backoff_seconds(
                    number, wait_initial=wait_initial, wait_max=wait_max, jitter=rng.random()
                )
            )
    raise gave_up(last)
