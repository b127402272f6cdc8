"""The lease an executor works an article under, as a target that creates posts needs to know it.

The ledger's leases are UTC times, written by one machine and read by others: clocks that
disagree by more than a lease less a renewal interval let another executor take over a live
lease (docs/how-it-works.md, "Clocks"). Within one process, time is measured on the monotonic
clock, which no time service steps: the renewals are timed on it, and so is what a target
asks here before a create, where a duplicate post is the cost of a lease that ran out:
- `before_create` refuses (weather) a create under a lease that may have run out: not renewed
  for a whole lease, as after a process stopped past it;
- `stale` says a look at the platform (its list of our posts) must be taken again before a
  create: it is older than a lease, or the article was taken over from a lease that ran out,
  whose holder may have posted meanwhile.
"""

from __future__ import annotations

from datetime import timedelta

from steadypress.clock import Clock
from steadypress.errors import TransientError

__all__ = ["WorkLease"]


class WorkLease:
    def __init__(self, *, clock: Clock, ttl: timedelta) -> None:
        self._clock = clock
        self._ttl = ttl.total_seconds()
        self._renewed = clock.monotonic()
        self._taken_over = False

    @classmethod
    def unbounded(cls, clock: Clock) -> WorkLease:
        """The lease of a target no executor works (one built alone): it never runs out."""
        return cls(clock=clock, ttl=timedelta.max)

    def renewed(self) -> None:
        """The executor's leases were taken or renewed now."""
        self._renewed = self._clock.monotonic()

    def since_renewed(self) -> float:
        return self._clock.monotonic() - self._renewed

    def working_on(self, *, taken_over: bool) -> None:
        """The executor starts an article; `taken_over`: its lease ran out under another run."""
        self._taken_over = taken_over

    def looked(self) -> float:
        """The moment of a look at the platform, for `stale`."""
        return self._clock.monotonic()

    def stale(self, looked_at: float) -> bool:
        """Whether a look taken at `looked_at` must be taken again before a create."""
        return self._taken_over or self._clock.monotonic() - looked_at >= self._ttl

    def before_create(self) -> None:
        """Raise if the lease may have run out: a create now could duplicate another run's."""
        if self.since_renewed() >= self._ttl:
            raise TransientError(
                f"the lease may have run out ({self.since_renewed():.0f} s since it was last "
                "renewed): nothing is created under it"
            )
