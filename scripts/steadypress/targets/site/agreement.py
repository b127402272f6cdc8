"""Whether the site's sitemaps and listing pages say what its index says, and what makes them
say it again.

They are written from the index by every publish, and a write that defers them leaves in the
index what it owes (`SitemapsBehind`, the stale listing pages), so they agree unless something
else wrote the site: a hand edit of the Pages branch, a site folder restored from a backup, a
defect. `steadypress status --site` makes them all again from the index, writing nothing, and
names every file that would change; `steadypress sweep --repair-site` writes those files.
That reads the whole index and every listing page's and sitemap's blob id: a command a person
runs, never part of a publish, which reads what its articles change and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable

from steadypress.feeds import sitemap_locations
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import INDEX_FOLDER
from steadypress.targets.site.sitemaps import SITEMAP, is_sitemap

__all__ = ["MENTIONED", "Comparing", "describe"]

# How many pages a sitemap's difference names before it only counts them.
MENTIONED = 3


class Comparing:
    """A `SiteWriter` over the site's own that notes each file a change would make differ from
    what the site holds (with what the sitemaps held before), and passes the change on only
    when `writing`: the same change then checks the site or repairs it."""

    def __init__(self, files: SiteWriter, *, writing: bool) -> None:
        self._files = files
        self._writing = writing
        self.differing: dict[str, bytes | None] = {}  # path -> its new bytes (None: removed)
        self.missing: set[str] = set()  # of `differing`, those the site does not hold
        self.sitemaps_before: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        if not self._writing and path in self.differing:
            return self.differing[path]
        return self._files.read(path)

    def at_hand(self, path: str) -> bool:
        return self._files.at_hand(path)

    def exists(self, path: str) -> bool:
        if not self._writing and path in self.differing:
            return self.differing[path] is not None
        return self._files.exists(path)

    def differs(self, path: str, data: bytes) -> bool:
        if not self._writing and path in self.differing:
            return self.differing[path] != data
        return self._files.differs(path, data)

    def put(self, path: str, data: bytes, *, unread: bool = False) -> None:
        if self._files.differs(path, data):
            self._note(path, data)
        elif not self._writing:
            self.differing.pop(path, None)  # put back as the site holds it
        if self._writing:
            self._files.put(path, data, unread=unread)

    def remove(self, path: str) -> None:
        if self._files.exists(path):
            self._note(path, None)
        if self._writing:
            self._files.remove(path)

    def _note(self, path: str, data: bytes | None) -> None:
        if path not in self.differing:
            if not self._files.exists(path):
                self.missing.add(path)
            elif is_sitemap(path) or path == SITEMAP:
                self.sitemaps_before[path] = self._files.read(path)
        self.differing[path] = data

    @property
    def may_change(self) -> bool:
        return self._files.may_change

    def want(self, *, texts: Iterable[str] = (), oids: Iterable[str] = ()) -> None:
        self._files.want(texts=texts, oids=oids)


def describe(comparing: Comparing, *, url: str) -> list[str]:
    """A line for each file of the site's pages that differs from what its index makes of it
    (what the index files themselves would record is bookkeeping, and left out): for a
    sitemap, the pages it lacks and those it lists that the site does not have (as relative
    addresses; `url`: the site's address, which its locations begin with)."""
    lines = []
    for path, data in sorted(comparing.differing.items()):
        if path.startswith(f"{INDEX_FOLDER}/"):
            continue
        if path in comparing.missing:
            lines.append(f"{path}: missing")
        elif path in comparing.sitemaps_before:
            lines.append(_sitemap_line(path, comparing.sitemaps_before[path], data, url))
        elif data is None:
            lines.append(f"{path}: the index lists nothing there; it should be gone")
        else:
            lines.append(f"{path}: not what the index lists")
    return lines


def _sitemap_line(path: str, before: bytes | None, after: bytes | None, url: str) -> str:
    if after is None:
        return f"{path}: lists no page of the site; it should be gone"
    if path == SITEMAP:
        return f"{path}: does not name the sitemaps the site has"
    was, now = _addresses(before or b"", url), _addresses(after, url)
    parts = []
    if lacking := sorted(now.keys() - was.keys()):
        parts.append(f"lacks {_pages(lacking)}")
    if extra := sorted(was.keys() - now.keys()):
        parts.append(f"lists {_pages(extra)} the site does not have there")
    if redated := sorted(a for a in now.keys() & was.keys() if now[a] != was[a]):
        parts.append(f"dates {_pages(redated)} otherwise")
    return f"{path}: {'; '.join(parts) or 'not as the index makes it'}"


def _addresses(data: bytes, url: str) -> dict[str, object]:
    """The sitemap's pages as addresses relative to the site (`/` for its front page)."""
    try:
        found = sitemap_locations(data)
    except ValueError:
        return {}
    return {"/" + location.removeprefix(url): changed for location, changed in found.items()}


def _pages(addresses: list[str]) -> str:
    shown = ", ".join(addresses[:MENTIONED])
    more = len(addresses) - MENTIONED
    count = f"{len(addresses)} page{'s' if len(addresses) != 1 else ''}"
    return f"{count} ({shown}{f' and {more} more' if more > 0 else ''})"
