"""The site's sitemaps (sitemaps.org): an index, `sitemap.xml`, over 256 sitemaps of the
articles' pages by a hash of their path, and one of the pages that list them. Each file is its
own record: a publish reads the index and the sitemaps of the pages it adds, changes or
removes, and rewrites those alone, so none grows with a publish and no file comes near the
protocol's 50,000 URLs (256 of them hold 12.8 million)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from datetime import datetime

from steadypress.errors import TransientError
from steadypress.feeds import sitemap, sitemap_index, sitemap_locations
from steadypress.targets.site.files import SiteWriter

__all__ = ["LISTINGS_SITEMAP", "OLD_SITEMAP_PAGES", "SITEMAP", "Sitemaps", "sitemap_of"]

SITEMAP = "sitemap.xml"
# The front page, the archive and the tags index; month and tag pages hash like articles.
LISTINGS_SITEMAP = "sitemaps/home.xml"
# Where an earlier layout listed the front page and the tag pages: its sitemaps are made again.
OLD_SITEMAP_PAGES = "sitemaps/site.xml"
_HOME_PAGES = frozenset({"index.html", "archive/index.html", "tags/index.html"})


def sitemap_of(page: str) -> str:
    """The sitemap that lists the page at site path `page`: the same one while it is there."""
    if page in _HOME_PAGES:
        return LISTINGS_SITEMAP
    digest = hashlib.sha1(page.encode(), usedforsecurity=False).hexdigest()
    return f"sitemaps/{digest[:2]}.xml"


class Sitemaps:
    """Changes to the sitemaps, applied by `flush` in one pass over the files they touch;
    `absolute` makes a site path the URL a sitemap lists."""

    def __init__(self, files: SiteWriter, absolute: Callable[[str], str]) -> None:
        self._files = files
        self._absolute = absolute
        # sitemap -> URL -> its last change, or None to take it out
        self._changes: dict[str, dict[str, tuple[datetime | None] | None]] = {}
        self._rebuild = False

    def set(self, page: str, changed: datetime | None) -> None:
        """List `page`, last changed at `changed` (None: no date given)."""
        self._changes.setdefault(sitemap_of(page), {})[self._absolute(page)] = (changed,)

    def drop(self, page: str) -> None:
        self._changes.setdefault(sitemap_of(page), {})[self._absolute(page)] = None

    def rebuild(self, pages: Mapping[str, datetime | None]) -> None:
        """Every sitemap made again from `pages`, the whole site (after an earlier layout)."""
        self._rebuild = True
        self._changes = {}
        for page, changed in pages.items():
            self.set(page, changed)

    def flush(self) -> None:
        files = self._files
        if self._rebuild:
            # Every sitemap there may be is rewritten or removed: none is read.
            touched = sorted({f"sitemaps/{n:02x}.xml" for n in range(256)} | {LISTINGS_SITEMAP})
            files.want(oids=[*touched, SITEMAP, OLD_SITEMAP_PAGES])
            files.remove(OLD_SITEMAP_PAGES)
        else:
            touched = sorted(self._changes)
            files.want(texts=[SITEMAP, *touched])
        index = {} if self._rebuild else self._read(SITEMAP)
        for path in touched:
            listed = {} if self._rebuild else self._read(path)
            for url, change in self._changes.get(path, {}).items():
                if change is None:
                    listed.pop(url, None)
                else:
                    listed[url] = change[0]
            if listed:
                files.put(path, sitemap(list(listed.items())))
                index[self._absolute(path)] = max(filter(None, listed.values()), default=None)
            else:
                files.remove(path)
                index.pop(self._absolute(path), None)
        files.put(SITEMAP, sitemap_index(list(index.items())))
        self._changes = {}
        self._rebuild = False

    def _read(self, path: str) -> dict[str, datetime | None]:
        try:
            return sitemap_locations(self._files.read(path))
        except ValueError as error:
            raise TransientError(f"{path} in the site cannot be read ({error}); fix it") from None
