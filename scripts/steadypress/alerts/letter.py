"""What a dead letter says, whatever channel carries it.

A letter is about one article (every target that failed it, each with its error and attempts),
or, when one cause killed many articles in one run, about that cause (a summary listing the
items), so that a broken theme makes one letter, not a thousand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from steadypress.alerts.marker import Identity, marker_for
from steadypress.ledger import DeadItem, PublishedRecord
from steadypress.timefmt import format_time

__all__ = ["Letter", "cause_of", "resolution_text"]

# A GitHub issue body holds at most 65,536 characters; a summary lists this many items and
# says how many more there are.
LISTED_AT_MOST = 200


def cause_of(item: DeadItem) -> str:
    """The item's error without the article's own name: what many articles can share."""
    return item.last_error.removeprefix(f"{item.path}: ")


@dataclass(frozen=True)
class Letter:
    """The dead items one alert is about, in key order."""

    items: tuple[DeadItem, ...]

    @classmethod
    def of(cls, items: Iterable[DeadItem]) -> Letter:
        unique = {item.key: item for item in items}
        return cls(tuple(unique[key] for key in sorted(unique)))

    @property
    def paths(self) -> list[str]:
        return sorted({item.path for item in self.items})

    @property
    def is_summary(self) -> bool:
        return len(self.paths) > 1

    @property
    def identity(self) -> Identity:
        """What the letter's marker names, so that posting it twice finds the first."""
        if not self.is_summary:
            return {"path": self.paths[0]}
        import hashlib  # noqa: PLC0415 - OpenSSL's library, loaded once a letter is sent

        digest = hashlib.sha256(cause_of(self.items[0]).encode()).hexdigest()[:16]
        return {"cause": digest}

    def subject(self) -> str:
        """What the letter is about, in a line: `content/a.md on devto, site`."""
        if not self.is_summary:
            targets = ", ".join(sorted({item.target for item in self.items}))
            return f"{self.paths[0]} on {targets}"
        cause = _one_line(cause_of(self.items[0]), 80)
        return f"{len(self.paths)} articles failed: {cause}"

    def title(self) -> str:
        return f"Dead letter{'s' if self.is_summary else ''}: {self.subject()}"

    def body(self, *, how_to_retry: str, run_url: str | None = None) -> str:
        run = f"The last attempt ran in {run_url}.\n\n" if run_url else ""
        if self.is_summary:
            story = self._summary()
        else:
            story = "\n".join(_item_story(item) for item in self.items)
        return f"{marker_for(self.identity)}\n\n{run}{story}\n## Retry\n\n{how_to_retry}\n"

    def _summary(self) -> str:
        cause = cause_of(self.items[0])
        shown = self.items[:LISTED_AT_MOST]
        rows = "\n".join(
            f"- `{item.target}` `{item.path}`: {_one_line(cause_of(item), 300)}" for item in shown
        )
        more = len(self.items) - len(shown)
        rest = f"\n- ... and {more} more (`steadypress status` lists them all)" if more else ""
        return (
            f"{len(self.items)} items of {len(self.paths)} articles stopped, all for one cause, "
            f"so they share this letter instead of one each:\n\n> {_one_line(cause, 1000)}\n\n"
            f"## Items\n\n{rows}{rest}\n"
        )


def _item_story(item: DeadItem) -> str:
    plural = "" if item.attempts == 1 else "s"
    why = "a permanent error" if item.permanent else f"{item.attempts} failed attempt{plural}"
    attempts = "\n".join(f"- {format_time(a.at)}: {a.error}" for a in item.history)
    work = (
        f"Unpublishing `{item.path}` (removed from content/ by commit `{item.commit}`) from"
        if item.unpublishes
        else f"Publishing `{item.path}` (blob `{item.blob}`, commit `{item.commit}`) to"
    )
    return (
        f"## Target `{item.target}`\n\n{work} `{item.target}` stopped after {why}, "
        f"on {format_time(item.died_at)}.\n\n### Attempts\n\n{attempts}\n"
    )


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def resolution_text(done: Sequence[tuple[str, PublishedRecord]]) -> str:
    """Why the letter is over: the work it was about is done (or made moot by a removal)."""
    lines = []
    for key, record in done[:LISTED_AT_MOST]:
        if record.unpublished:
            lines.append(
                f"`{key}` was unpublished on {record.published_at}: the article left content/."
            )
        else:
            where = f" at {record.url}" if record.url else ""
            lines.append(f"`{key}` was published{where} on {record.published_at}.")
    if len(done) > LISTED_AT_MOST:
        lines.append(f"... and {len(done) - LISTED_AT_MOST} more.")
    return "\n".join(f"- {line}" for line in lines) if len(lines) > 1 else lines[0]
