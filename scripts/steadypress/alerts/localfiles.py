"""The embedded default's dead letters: one readable Markdown file per item, a line on stderr."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TextIO

from steadypress.alerts.base import find_marker
from steadypress.alerts.letter import letter_body, letter_title, resolution_text
from steadypress.filelock import exclusive_lock
from steadypress.ledger import DeadItem, PublishedRecord

__all__ = ["LocalDeadLetters"]

_NUMBERED = re.compile(r"^(\d+)\.md$")


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

    def _find(self, key: str) -> int | None:
        for number, path in sorted(self._files().items()):
            if find_marker(path.read_text(encoding="utf-8")) == key:
                return number
        return None

    def path_of(self, alert: int) -> Path:
        return self.folder / f"{alert:04d}.md"

    def open(self, item: DeadItem) -> int:
        self._checked()
        with exclusive_lock(self.folder / ".lock"):
            number = item.alert if item.alert in self._files() else self._find(item.key)
            if number is None:
                number = max(self._files(), default=0) + 1
            # A path that is not UTF-8 (git allows any bytes) is shown escaped, never lost.
            self.path_of(number).write_text(
                _describe(item), encoding="utf-8", errors="backslashreplace"
            )
        stream = self._stream or sys.stderr
        print(
            f"dead letter #{number}: {item.key} ({self.path_of(number)}): {item.last_error}",
            file=stream,
        )
        return number

    def resolve(self, alert: int, key: str, record: PublishedRecord) -> None:
        self._close(alert, f"resolved: {resolution_text(key, record)}")

    def withdraw(self, alert: int, *, reason: str) -> None:
        self._close(alert, f"withdrawn: {reason}")

    def _close(self, alert: int, status: str) -> None:
        """Put `Status: STATUS` in place of `Status: open` at the top of an open letter."""
        self._checked()
        with exclusive_lock(self.folder / ".lock"):
            path = self.path_of(alert)
            if not path.exists():
                return
            text = path.read_text(encoding="utf-8")
            if not text.startswith("Status: open\n\n"):
                return  # closed already: the first word on it stands
            path.write_text(
                f"Status: {status}\n\n" + text.removeprefix("Status: open\n\n"),
                encoding="utf-8",
                errors="backslashreplace",
            )

    def discard(self, alert: int, *, duplicate_of: int) -> None:
        with exclusive_lock(self.folder / ".lock"):
            self.path_of(alert).unlink(missing_ok=True)

    def acknowledge_retry(self, alert: int) -> None:
        """A local letter carries no request to withdraw."""

    def where(self, alert: int) -> str:
        return str(self.path_of(alert))

    def retry_hint(self, item: DeadItem) -> str:
        return f"commit the fix, then `steadypress retry {item.path}`"

    def key_of(self, alert: int) -> str | None:
        path = self.path_of(alert)
        return find_marker(path.read_text(encoding="utf-8")) if path.exists() else None


def _describe(item: DeadItem) -> str:
    retry = (
        f"Fix the cause (or the article), then run `steadypress retry {item.path}`; pushing a new "
        "version of the article retries it too."
    )
    return f"Status: open\n\n# {letter_title(item)}\n\n{letter_body(item, how_to_retry=retry)}"
