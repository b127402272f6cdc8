"""Files of one branch wanted soon, read by a request made to the repository for another reason.

A publish on GitHub reads the state branch, claims its articles (a commit on the state
branch), then reads the Pages branch's files it will change, twice (what the articles' paths
name, then what the site's index says). The state's requests can carry those reads: a query
may select any ref of the repository, and a mutation's commit names its repository, whose refs
and files GraphQL selects in the same request. A request is saved each time, at the risk of a
read gone stale before it is used; a write based on it is a compare-and-swap on the head it was
read at, which fails and reads again.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Asked", "ReadAhead"]


@dataclass(frozen=True)
class Asked:
    """Files of a branch asked ahead: their texts, or only their blob ids."""

    texts: tuple[str, ...]
    oids: tuple[str, ...]


class ReadAhead:
    """What branches want read ahead, and the answers, kept until their branch is written."""

    def __init__(self) -> None:
        self._wanted: dict[str, Asked] = {}
        self._answered: dict[str, list[tuple[Asked, Mapping[str, Any] | None]]] = {}

    def ask(self, branch: str, texts: Collection[str], oids: Collection[str]) -> None:
        """`branch` will read these files: the next request to another branch reads them."""
        self._wanted[branch] = Asked(tuple(texts), tuple(oids))

    def wanted(self, *, besides: str) -> dict[str, Asked]:
        """What the other branches asked, handed to one request (and forgotten: a request that
        fails is not retried with them, since the asking is done again before a retry)."""
        taken = {name: asked for name, asked in self._wanted.items() if name != besides}
        for name in taken:
            del self._wanted[name]
        return taken

    def answer(self, branch: str, asked: Asked, ref: Mapping[str, Any] | None) -> None:
        """GraphQL's `ref` of `branch`, as read for `asked` (None: the branch does not exist)."""
        self._answered.setdefault(branch, []).append((asked, ref))

    def answers(self, branch: str) -> list[tuple[Asked, Mapping[str, Any] | None]]:
        """What was read ahead for `branch` since its last write, oldest first."""
        return list(self._answered.get(branch, ()))

    def forget(self, branch: str) -> None:
        """`branch` wrote: what was read ahead for it is no longer worth keeping."""
        self._answered.pop(branch, None)
        self._wanted.pop(branch, None)
