"""The dates article versions write for themselves, and the order a large import takes them in
(`importorder.py`): each version's front matter read once a run, in batches, the bytes of a
first build's versions kept for the read that publishes them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from steadypress.contenthistory import ContentHistory
from steadypress.gitio import OBJECT_ID, Git
from steadypress.importorder import filename_date, front_matter_date, newest_first

__all__ = ["WrittenDates"]

# Article versions read at once to learn their dates: a blog of 100,000 is never in memory whole.
_DATE_READS = 1000
# Bytes of versions read for their dates kept for the read that publishes them (a first build of
# a thousand articles read each twice); beyond this, they are read again when published.
_KEEP_READ = 16 * 1024 * 1024


class WrittenDates:
    """The dates of article versions read from `git`, and dated by `history` where they write
    none."""

    def __init__(self, git: Git, history: ContentHistory) -> None:
        self._git = git
        self._history = history
        self._dates: dict[str, str | None] = {}  # blob -> the date its front matter writes
        self._read: dict[str, bytes] = {}  # blob -> its bytes, up to _KEEP_READ
        self._kept = 0  # bytes ever kept there: what is taken out does not make room again
        # The last import order made, by what it was made of (100,000 to sort at 10^5): a
        # reconcile's first window and the backlog after it (`import_order`) ask for one order.
        self._last_order: tuple[tuple[str, frozenset[tuple[str, str]]], list[str]] | None = None

    def written(self, path: str, blob: str, data: bytes | None = None) -> str | None:
        """The date a version writes for itself (`importorder`): its front matter's, looked
        at once a version (`data`, its bytes, where it was not looked at yet), else its file
        name's, Jekyll's way; None where it writes none."""
        if blob not in self._dates:
            self._dates[blob] = front_matter_date(data) if data is not None else None
        return self._dates[blob] or filename_date(path)

    def take_bytes(self, blob: str) -> bytes | None:
        """A version's bytes, where they were kept when read for its date: given once."""
        return self._read.pop(blob, None)

    def newest_first(self, commit: str, articles: Mapping[str, str]) -> list[str]:
        """These article versions (path -> blob, at `commit`) in the order a large import
        takes them (`importorder`): by the date their front matter writes, or their file
        name's (Jekyll's way), else the one `commit`'s history added them on, newest first.
        Each version is read once a run."""
        made_of = (commit, frozenset(articles.items()))
        if self._last_order is not None and self._last_order[0] == made_of:
            return list(self._last_order[1])
        order = self._newest_first(commit, articles)
        self._last_order = (made_of, order)
        return list(order)

    def _newest_first(self, commit: str, articles: Mapping[str, str]) -> list[str]:
        unread = sorted(set(articles.values()) - self._dates.keys())
        for start in range(0, len(unread), _DATE_READS):
            part = unread[start : start + _DATE_READS]
            for blob, found in zip(part, self._git.read_objects(part), strict=True):
                self._dates[blob] = front_matter_date(found[1]) if found is not None else None
                if found is not None and self._kept + len(found[1]) <= _KEEP_READ:
                    self._read[blob] = found[1]
                    self._kept += len(found[1])
        dates = {path: self.written(path, blob) for path, blob in articles.items()}
        undated = [path for path, written in dates.items() if written is None]
        added: Mapping[str, datetime] = {}
        if undated and OBJECT_ID.match(commit):
            added = self._history.walk(commit, (), undated).added
        return newest_first({
            path: written or (
                added[path].strftime("%Y-%m-%dT%H:%M:%S") if path in added else ""
            )
            for path, written in dates.items()
        })  # fmt: skip
