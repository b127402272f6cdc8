"""What live mode polls to learn that there is work: the heads of the content branch and the
state branch. Locally that is reading two refs (free). On GitHub it is one conditional request
per branch (`github/watch.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from steadypress.content import ContentSource
from steadypress.gitio import Git

__all__ = ["Heads", "LocalWatch", "Watch"]


@dataclass(frozen=True)
class Heads:
    content: str | None  # the content branch's head commit
    state: str | None  # the state branch's head commit; None before the first write
    poll_interval: float | None = None  # the least interval the server asked for, if any


class Watch(Protocol):
    def heads(self) -> Heads: ...


class LocalWatch:
    def __init__(self, git: Git, content: ContentSource, *, state_branch: str) -> None:
        self._git = git
        self._content = content
        self._state_ref = f"refs/heads/{state_branch}^{{commit}}"

    def heads(self) -> Heads:
        return Heads(content=self._content.head(), state=self._git.resolve(self._state_ref))
