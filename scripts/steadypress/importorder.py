"""The order in which a large import enters the ledger: newest article first.

A blog imported whole (or any change too large for one window of `pending.json`) is published a
window at a time. Taken in path order, every window holds articles of every month, so each one
rewrites every month's and tag year's index file and relinks the neighbours earlier windows
wrote: a first build grew with the square of the blog. Taken by date, a window touches a few
months and meets the one before it at a single article. Newest first, because the front page
and the feed are then right from the first window, and a reader finds the latest articles while
the archive fills in behind them.

The date is only looked at, never parsed: a guess that is wrong costs speed, never an article,
since the order changes which window an article enters, not whether it does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date

__all__ = ["filename_date", "front_matter_date", "newest_first"]

# Only the front matter's first lines are looked at; its own parser bounds it (MAX_FRONT_MATTER).
_HEAD = 4096
# `date: 2024-05-01`, `date = 2024-05-01T10:00:00` (TOML), quoted or not; time zones ignored.
_DATE = re.compile(
    rb"^date[ \t]*[:=][ \t]*[\"']?(\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)", re.MULTILINE
)


def front_matter_date(text: bytes) -> str | None:
    """The `date` an article's front matter (YAML between `---` lines, or TOML between `+++`)
    writes, as an ISO 8601 string; None when it writes none this can read."""
    head = text[:_HEAD]
    fence = head[:3]
    if fence not in (b"---", b"+++"):
        return None
    end = head.find(b"\n" + fence, 3)
    found = _DATE.search(head, 3, end if end != -1 else len(head))
    return found.group(1).decode().replace(" ", "T") if found else None


# Jekyll's post names: `2019-05-01-title.md` (its `_posts/` folder, and a habit beyond it).
_NAMED_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})-.")


def filename_date(path: str) -> str | None:
    """The day an article's file name begins with, Jekyll's way (`2019-05-01-title.md`), as
    an ISO 8601 string: its date where the front matter writes none. None for any other name,
    and for a day that does not exist (`2019-13-45-notes.md` names no date)."""
    found = _NAMED_DAY.match(path.rsplit("/", 1)[-1])
    if found is None:
        return None
    try:
        date.fromisoformat(found.group(1))
    except ValueError:
        return None
    return found.group(1)


def newest_first(dates: Mapping[str, str]) -> list[str]:
    """Paths by their date (ISO 8601 strings; "" when unknown, last), newest first, and paths
    of the same date in path order."""
    # Python's sort keeps equal keys in their order, reversed or not.
    return sorted(sorted(dates), key=dates.__getitem__, reverse=True)
