"""The site's sitemaps (sitemaps.org): `sitemap.xml`, an index, over sitemaps of the pages by
a hash of their address (`sitemap-pages-N.xml`), and `sitemap-home.xml` of the front page, the
archive and the tags index, all at the site's root: the protocol lets a sitemap list only the
URLs under its own folder (unless `robots.txt` names it, which a project site at
`OWNER.github.io/REPO/` does not own), and every page of the site is under its root, as
WordPress lays its own sitemaps out.

Their number grows with the blog by linear hashing (W. Litwin, "Linear hashing: a new tool for
file and table addressing", VLDB 1980): a blog of N articles has S = ceil(N / 50) sitemaps, and
a page whose address hashes to h is in sitemap h mod 2^(i+1), or h mod 2^i when that is S or
more (2^i <= S < 2^(i+1)). One sitemap more splits one in two, one fewer merges two, and no
other page moves. So a publish reads and rewrites the sitemaps of the pages it adds, changes or
removes, each of some 50 articles' pages at any size, and no file comes near the protocol's
50,000 URLs. The index names the sitemaps without dates (as WordPress's own sitemaps do), so it
changes only when a sitemap appears or goes. It is written from what the site's index says of
the sitemaps (their number, and those of them that hold no page, which are not there), never
read: it names N/50 sitemaps (170 KB at 10^5), and a publish read it whenever it may have
changed, even where it then had not.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Iterable, Mapping
from datetime import datetime
from urllib.parse import quote

from steadypress.feeds import sitemap, sitemap_index, sitemap_locations
from steadypress.targets.site.files import SiteWriter, unreadable

__all__ = [
    "LISTINGS_SITEMAP",
    "OLD_SITEMAP_PAGES",
    "SITEMAP",
    "SITEMAPS_LAYOUT",
    "URL_SAFE",
    "Changes",
    "Sitemaps",
    "address_of",
    "is_sitemap",
    "sitemap_count",
    "sitemap_file",
]

SITEMAP = "sitemap.xml"
# The front page, the archive and the tags index; month and tag pages hash like articles.
LISTINGS_SITEMAP = "sitemap-home.xml"
# Where the layout before the site's index listed the front page and the tag pages.
OLD_SITEMAP_PAGES = "sitemaps/site.xml"
# 3: linear hashing, an index without dates, the sitemaps at the site's root. 2: the same under
# `sitemaps/`, out of the location rule. 1 (a site index without the mark): 256 sitemaps by a
# hash of the page's path, under an index dated by their newest page. An earlier layout's
# sitemaps are moved by the next publish, found through the index that names them.
SITEMAPS_LAYOUT = 3
# A sitemap of some 50 articles' pages is 6 to 12 KB, which each publish reads and writes; the
# index names N/50 of them and is read and written once in 50 publishes (170 KB at 10^5).
ARTICLES_PER_SITEMAP = 50
_HOME_ADDRESSES = frozenset({"", "archive/", "tags/"})
# What a site path keeps as it is in a URL (RFC 3986's unreserved and sub-delims, and `/`):
# every page steadypress names in ASCII stays the same, byte for byte.
URL_SAFE = "/-._~!$&'()*+,;=:@"

Changes = dict[str, tuple[datetime | None] | None]  # address -> (last change,), None: taken out


def sitemap_count(articles: int) -> int:
    """How many sitemaps list the pages of a blog of `articles` articles."""
    return max(1, -(-articles // ARTICLES_PER_SITEMAP))


def address_of(page: str) -> str:
    """A page's address relative to the site: what its URL adds to the site's, its letters
    outside ASCII (a tag's page in its own script) percent-encoded as a URL carries them."""
    return quote(page.removesuffix("index.html"), safe=URL_SAFE)


def sitemap_file(address: str, count: int) -> str:
    """The sitemap that lists `address` (relative) when there are `count` of them."""
    if address in _HOME_ADDRESSES:
        return LISTINGS_SITEMAP
    return _numbered(_bucket(address, count))


def _numbered(bucket: int) -> str:
    return f"{_NUMBERED_PREFIX}{bucket}.xml"


_NUMBERED_PREFIX = "sitemap-pages-"
_NUMBERED = re.compile(rf"{_NUMBERED_PREFIX}\d+\.xml")


def is_sitemap(path: str) -> bool:
    """Whether `path` names one of the site's sitemaps (not the index)."""
    return path == LISTINGS_SITEMAP or _NUMBERED.fullmatch(path) is not None


def _bucket(address: str, count: int) -> int:
    digest = hashlib.sha1(address.encode(), usedforsecurity=False).digest()
    hashed = int.from_bytes(digest[:8], "big")
    low = 1 << (count.bit_length() - 1)  # 2^i <= count < 2^(i+1)
    bucket = hashed % (2 * low)
    return bucket if bucket < count else hashed % low


def _moving(before: int, after: int) -> set[int]:
    """The sitemaps (as numbered among `before`) whose pages move when their number goes from
    `before` to `after`: each one split to make a new one, or merged with one that goes."""
    moving: set[int] = set()
    for number in range(min(before, after), max(before, after)):
        moving.add(number - (1 << (number.bit_length() - 1)))
        if after < before:
            moving.add(number)
    return moving


class Sitemaps:
    """Changes to the sitemaps of the site at `url`, applied by `flush` in one pass over the
    files they touch; `articles`: how many articles the site had when it was read."""

    def __init__(
        self, files: SiteWriter, url: str, *, articles: int, absent: frozenset[str] | None
    ) -> None:
        """`absent`: of the sitemaps there are for `articles` articles, those not there (they
        would list no page); None: not known, and the index is read to learn it when a
        sitemap appears or goes."""
        self._files = files
        self._url = url
        self.laid_out_for = articles  # the articles the sitemaps there are laid out for
        self._before = sitemap_count(articles)
        self.absent = absent  # as the sitemaps stand after `flush`
        self._changes: Changes = {}
        self._rebuild: dict[str, datetime | None] | None = None
        self._moved: list[str] = []  # the sitemaps `migrate` moved the pages out of

    def put(self, page: str, changed: datetime | None) -> None:
        """List `page` (a site path), last changed at `changed` (None: no date given)."""
        self._changes[address_of(page)] = (changed,)

    def drop(self, page: str) -> None:
        self._changes[address_of(page)] = None

    def carry(self, changes: Changes) -> None:
        """Take on the changes an earlier write of this run left unwritten; this one's win."""
        self._changes = {**changes, **self._changes}

    @property
    def changes(self) -> Changes:
        """The changes not written yet: for a later write to `carry` when this one defers."""
        return dict(self._changes)

    @property
    def only_listings(self) -> bool:
        """Whether every change lists a page (none takes one out): a write that defers such
        changes and dies can have them made again from the index, which still lists those
        pages; a page taken out is no longer there to be found."""
        return self._rebuild is None and None not in self._changes.values()

    def rebuild(self, pages: Mapping[str, datetime | None]) -> None:
        """Every sitemap made again from `pages`, the whole site (after an earlier layout),
        with the changes made after this."""
        self._rebuild = {address_of(page): changed for page, changed in pages.items()}
        self._changes = {}

    def migrate(self) -> None:
        """Every sitemap made again from those the index lists: of an earlier layout (1: 256
        by a hash of the page's path), or naming the site at an earlier address."""
        self._files.want(texts=[SITEMAP])
        named = list(self._read(SITEMAP, site=""))
        # The site's address then: what the index's URLs add to their sitemaps' own path (each
        # layout's names begin `sitemap`, at the root or under `sitemaps/`).
        earlier = {url[: url.rfind("sitemap")] for url in named if "sitemap" in url}
        site = earlier.pop() if len(earlier) == 1 else self._url
        paths = [url.removeprefix(site) for url in named if url.startswith(site)]
        self._files.want(texts=paths)
        every: dict[str, datetime | None] = {}
        for path in paths:
            every |= self._read(path, site=site)
        self._rebuild, self._moved = every, paths
        self._changes = {}

    def reads(self, pages: Iterable[str], *, articles: int) -> tuple[list[str], list[str]]:
        """The sitemaps `flush` will read to change `pages` when the site then has `articles`
        articles, and those it will replace unread (texts, oids): for the caller to fetch with
        other files. A sitemap appearing or going rewrites the index, whose text is read only
        where the summary does not say which sitemaps are there."""
        after = sitemap_count(articles)
        addresses = {*map(address_of, pages), *self._changes}
        reads = self._old_files(addresses, after) | self._created(after)
        index = [SITEMAP] if after != self._before else []
        if self.absent is None:
            return sorted({*reads, *index}), []
        return sorted(reads), index

    def flush(self, *, articles: int) -> None:
        """Write the changes, the site now having `articles` articles."""
        after = sitemap_count(articles)
        if self._rebuild is not None:
            self._write_all(self._changed(self._rebuild), after)
        else:
            self._write_changes(after)
        self._changes, self._rebuild = {}, None

    def _changed(self, listed: Mapping[str, datetime | None]) -> dict[str, datetime | None]:
        """`listed` with the changes made."""
        now = dict(listed)
        for address, change in self._changes.items():
            if change is None:
                now.pop(address, None)
            else:
                now[address] = change[0]
        return now

    def _old_files(self, addresses: Iterable[str], after: int) -> set[str]:
        """The sitemaps now there that changing `addresses` rewrites when their number goes
        to `after`: those that list them before and after, and those split or merged."""
        before = self._before
        files = {_numbered(number) for number in _moving(before, after)}
        for address in addresses:
            files.add(sitemap_file(address, before))
            if not _is_new(now := sitemap_file(address, after), before):
                files.add(now)
        return files

    def _created(self, after: int) -> set[str]:
        return {_numbered(number) for number in range(self._before, after)}

    def _write_changes(self, after: int) -> None:
        old, created = self._old_files(self._changes, after), self._created(after)
        self._files.want(texts=sorted(old | created))
        listed: dict[str, datetime | None] = {}
        existing = set()
        for path in old:
            data = self._files.read(path)
            if data is not None:
                existing.add(path)
            listed |= self._locations(path, data)
        self._write(old | created, self._changed(listed), after, existing)

    def _write_all(self, every: Mapping[str, datetime | None], after: int) -> None:
        stale = {*self._listed(), *self._moved, OLD_SITEMAP_PAGES}
        written = {LISTINGS_SITEMAP} | {_numbered(n) for n in range(after)}
        self._files.want(oids=sorted(stale | written))
        existing = {path for path in stale | written if self._files.exists(path)}
        self._write(written | stale, every, after, existing, reindex=True)

    def _write(
        self,
        paths: Iterable[str],
        listed: Mapping[str, datetime | None],
        count: int,
        existing: Collection[str],
        *,
        reindex: bool = False,
    ) -> None:
        """Each of `paths` made to hold the pages of `listed` that are its now (`count`
        sitemaps), or removed when it holds none; the index rewritten when a file appears or
        goes (`reindex`: whatever it named)."""
        held: dict[str, dict[str, datetime | None]] = {path: {} for path in paths}
        for address, changed in listed.items():
            path = sitemap_file(address, count)
            if path not in held:
                raise AssertionError(f"{address} moves to {path}, which was not read")
            held[path][self._url + address] = changed
        appeared, gone = set(), set()
        for path, pages in held.items():
            if pages:
                self._files.put(path, sitemap(list(pages.items())))
                if path not in existing:
                    appeared.add(path)
            elif path in existing:
                self._files.remove(path)
                gone.add(path)
        if self.absent is None and not (reindex or appeared or gone):
            return  # the index stays as it is, and what it names unknown
        there_before = set() if reindex else self._there(self._before)
        there = {path for path in _laid_out(count)
                 if (bool(held[path]) if path in held else path in there_before)}  # fmt: skip
        self.absent = frozenset(_laid_out(count) - there)
        if reindex or there != there_before:
            self._files.put(SITEMAP, sitemap_index([(self._url + p, None) for p in there]))

    def _there(self, count: int) -> set[str]:
        """Of the sitemaps laid out for `count`, those there: all but the absent, where that is
        known; else those the index names (a site written before its index said which)."""
        if self.absent is not None:
            return _laid_out(count) - self.absent
        return set(self._listed()) & _laid_out(count)

    def _listed(self) -> list[str]:
        """The site paths of the sitemaps the index lists."""
        self._files.want(texts=[SITEMAP])
        return list(self._read(SITEMAP))

    def _read(self, path: str, *, site: str | None = None) -> dict[str, datetime | None]:
        return self._locations(path, self._files.read(path), site=site)

    def _locations(
        self, path: str, data: bytes | None, *, site: str | None = None
    ) -> dict[str, datetime | None]:
        """The locations the sitemap `path` (`data`) lists under `site` (the site's address
        unless said), relative to it; a URL elsewhere is not a page of this site, and goes."""
        try:
            found = sitemap_locations(data)
        except ValueError as error:
            raise unreadable(path, error) from None
        site = self._url if site is None else site
        return {
            location.removeprefix(site): changed
            for location, changed in found.items()
            if location.startswith(site)
        }


def _laid_out(count: int) -> set[str]:
    """The sitemaps there are when there are `count` numbered ones (one may list no page, and
    not be there)."""
    return {LISTINGS_SITEMAP, *map(_numbered, range(count))}


def _is_new(path: str, before: int) -> bool:
    """Whether `path` is a numbered sitemap beyond the `before` there were."""
    return (
        _NUMBERED.fullmatch(path) is not None
        and int(path[len(_NUMBERED_PREFIX) : -len(".xml")]) >= before
    )
