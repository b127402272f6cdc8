"""The embedded default's dead letters: one readable Markdown file per letter, a line on stderr."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TextIO

from steadypress.alerts.base import Identity, find_marker
from steadypress.alerts.letter import Letter
from steadypress.filelock import exclusive_lock
from steadypress.ledger import DeadItem

__all__ = ["LocalDeadLetters"]

_NUMBERED = re.compile(r"^(\d+)\.md$")
_OPEN = "Status: open\n\n"


class LocalDeadLetters:
    """Letters in `folder`, under the repository `root`: no symlink between them is followed
    (a committed `.steadypress -> /somewhere` must not be written through)."""

    def __init__(self, folder: Path, *, root: Path, stream: TextIO | None = None) -> None:
        self.folder = folder
        self._root = root
        self._stream = stream

    def _checked(self) -> None:
        place = self.folder
        while place not in (self._root, place.parent):
            if place.is_symlink():
                raise PermissionError(f"refusing to write letters through the symlink {place}")
            place = place.parent

    def _files(self) -> dict[int, Path]:
        return {
            int(match.group(1)): path
            for path in self.folder.glob("*.md")
            if (match := _NUMBERED.match(path.name))
        }

    def _find(self, identity: Identity) -> int | None:
        for number, path in sorted(self._files().items()):
            if find_marker(path.read_text(encoding="utf-8")) == identity:
                return number
        return None

    def path_of(self, alert: int) -> Path:
        return self.folder / f"{alert:04d}.md"

    def open(self, letter: Letter, number: int | None = None) -> int:
        self._checked()
        with exclusive_lock(self.folder / ".lock"):
            files = self._files()
            if number not in files:
                number = self._find(letter.identity)
            if number is None:
                number = max(files, default=0) + 1
            # A path that is not UTF-8 (git allows any bytes) is shown escaped, never lost.
            self.path_of(number).write_text(
                _describe(letter), encoding="utf-8", errors="backslashreplace"
            )
        cause = letter.items[0].last_error if letter.items else ""
        print(
            f"dead letter #{number}: {letter.subject()} ({self.path_of(number)}): {cause}",
            file=self._stream or sys.stderr,
        )
        return number

    def close(self, alert: int, *, text: str, completed: bool) -> None:
        """Put `Status: resolved` (or `withdrawn`) and why in place of `Status: open` at the
        top of an open letter; a closed letter keeps the first word said on it."""
        self._checked()
        status = "resolved" if completed else "withdrawn"
        with exclusive_lock(self.folder / ".lock"):
            path = self.path_of(alert)
            if not path.exists():
                return
            text_now = path.read_text(encoding="utf-8")
            if not text_now.startswith(_OPEN):
                return
            path.write_text(
                f"Status: {status}\n\n{text}\n\n" + text_now.removeprefix(_OPEN),
                encoding="utf-8",
                errors="backslashreplace",
            )

    def acknowledge_retry(self, alert: int) -> None:
        """A local letter carries no request to withdraw."""

    def where(self, alert: int) -> str:
        return str(self.path_of(alert))

    def retry_hint(self, item: DeadItem) -> str:
        return f"commit the fix: the next run retries it (by hand: `steadypress retry {item.path}`)"

    def article_of(self, alert: int) -> str | None:
        path = self.path_of(alert)
        found = find_marker(path.read_text(encoding="utf-8")) if path.exists() else None
        return None if found is None else found.get("path")


def _describe(letter: Letter) -> str:
    paths = " ".join(letter.paths) if len(letter.paths) <= 3 else "--all-dead"
    retry = (
        "Commit the fix and run steadypress again: a commit that changes what this depended "
        "on (the article, an image it shows, the theme, the configuration) retries it by "
        f"itself. To retry by hand: `steadypress retry {paths}`."
    )
    return f"{_OPEN}# {letter.title()}\n\n{letter.body(how_to_retry=retry)}"
