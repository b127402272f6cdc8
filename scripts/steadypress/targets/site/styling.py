"""Which look a site keeps when runs of different commits overlap (each push has its own run,
and the one that writes last is not always the newest).

The site records the look it was last written with (`Styled`, `.steadypress/look.json`): the
digests of `Look`, the content commit whose theme and settings they are, that commit's time and
when the site was first written with them. A run whose look is another writes nothing when the
record's commit is later than its own (`History.later`) and the record was written within
`OVERTAKEN_WITHIN` of now: it raises `Superseded`, and so for every later write of its head.
Otherwise its stylesheet and pages would undo the later look's for good, since the reconcile's
marker already records that one and nothing would write them again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol

from steadypress.errors import Superseded
from steadypress.ledger import Look
from steadypress.targets.site.index import SiteIndex
from steadypress.targets.site.summary import Styled
from steadypress.timefmt import utc_now

__all__ = ["OVERTAKEN_WITHIN", "History", "LookKeeper"]

# How long a site written with another look of a later commit stops a run's writes: a run
# overtaken by a later push's meets the later look within a batch, and keeps away from then on.
# A record older than that is not such a run's but a commit's gone from the branch (a theme
# edit reset away), and must not stop the site.
OVERTAKEN_WITHIN = timedelta(minutes=30)


class History(Protocol):
    """The content branch, as far as ordering the site's writers by their commits asks
    (`ContentSource`): a run's theme is that of its content head."""

    def head(self) -> str: ...

    def commit_time(self, commit: str) -> datetime: ...

    def later(self, commit: str, time: datetime, *, than: str) -> bool: ...


class LookKeeper:
    """A run's side of it: the look of its content head (`look_of` a commit), recorded in the
    site's index by each write, or refused when a later one is there."""

    def __init__(self, history: History, look_of: Callable[[str], Look]) -> None:
        self._history = history
        self._look_of = look_of
        self._look_at: tuple[str, tuple[str, ...], datetime] | None = None  # of one commit
        self._overtaken: str | None = None  # the head whose look a later one overtook

    def hold(self, index: SiteIndex) -> None:
        """This run's look recorded in `index`, unless the site was written with a later one
        (`overtakes`): then `Superseded`, before anything is written."""
        head, found = self._history.head(), index.styled
        if self._overtaken == head or self.overtakes(found, head):
            self._overtaken = head
            later = f" ({found.commit[:12]})" if found is not None else ""
            raise Superseded(
                f"the site was written with the look of a later commit{later} than this "
                f"run's ({head[:12]}): left to a run of that commit or a later one"
            )
        digests, time = self._look_at_commit(head)
        if found is None or found.look != digests:
            index.styled = Styled(digests, head, time, utc_now())

    def overtakes(self, found: Styled | None, commit: str) -> bool:
        """Whether `found`, the look the site records, is another than `commit`'s, of a later
        commit, recorded within `OVERTAKEN_WITHIN` of now (either side: one far ahead is a
        clock gone wrong)."""
        if found is None:
            return False
        digests, _time = self._look_at_commit(commit)
        return (
            found.look != digests
            and abs(utc_now() - found.written) < OVERTAKEN_WITHIN
            and self._history.later(found.commit, found.time, than=commit)
        )

    def _look_at_commit(self, commit: str) -> tuple[tuple[str, ...], datetime]:
        """The digests of the look at `commit` (made once a commit) and its commit time."""
        if self._look_at is None or self._look_at[0] != commit:
            digests = self._look_of(commit).digests()
            self._look_at = (commit, digests, self._history.commit_time(commit))
        return self._look_at[1], self._look_at[2]
