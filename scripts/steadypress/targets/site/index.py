"""What the site keeps of its articles, in files that stay small however large the blog grows
(under `.steadypress/` in the site, beside the pages, since they must change in the same write):

- `articles/XYZ.json`: each article's entry (its URL, images, redirects, page digest), in 4,096
  files by a hash of its path;
- `urls/XYZ.json`: which articles use each page, image and redirect page, in 4,096 files by a
  hash of the site path (a URL has one owner; an image may serve several articles);
- `months/YYYY-MM.json`: the entries of a month's articles, which its archive page lists;
- `tags/TAG/YYYY.json`: the entries of a tag's articles in a year;
- `summary.json`: how many articles each month has, each tag's years and spellings, and the
  newest articles (the front page, the feed).

A publish reads the files of the articles it changes, of their months and tags and of their
neighbours, and writes back those it changed: never a file that grows with the number of
articles. `SiteIndex` reads each file once, when first wanted, and `flush` writes the changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from steadypress.errors import TransientError
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.manifest import Entry, page_path, tag_path

__all__ = [
    "INDEX_FOLDER",
    "INDEX_VERSION",
    "NEWEST",
    "SUMMARY",
    "Nav",
    "SiteIndex",
    "article_file",
    "index_files",
    "month_file",
    "month_of",
    "tag_year_file",
    "url_file",
    "uses",
]

INDEX_FOLDER = ".steadypress"
INDEX_VERSION = 3
SUMMARY = f"{INDEX_FOLDER}/summary.json"
# How many articles the front page and the feed show: the newest, as blogs do.
NEWEST = 20
_SHARD_DIGITS = 3  # 4,096 files: at 10^5 articles, about 15 KB each

# An article's older and newer neighbour, by date: (slug, title) of each, or (None, None).
Nav = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]


def _shard(key: str) -> str:
    data = key.encode("utf-8", "surrogateescape")
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()[:_SHARD_DIGITS]


def article_file(path: str) -> str:
    return f"{INDEX_FOLDER}/articles/{_shard(path)}.json"


def url_file(site_path: str) -> str:
    return f"{INDEX_FOLDER}/urls/{_shard(site_path)}.json"


def month_of(entry: Entry) -> str:
    return f"{entry.date.year:04d}/{entry.date.month:02d}"


def month_file(month: str) -> str:
    return f"{INDEX_FOLDER}/months/{month.replace('/', '-')}.json"


def tag_year_file(tag_page: str, year: int) -> str:
    tag = tag_page.split("/")[1]
    return f"{INDEX_FOLDER}/tags/{tag}/{year:04d}.json"


def index_files(entries: Iterable[tuple[str, Entry]]) -> set[str]:
    """The index's files that recording or removing these (path, entry) pairs reads."""
    files = set()
    for path, entry in entries:
        files |= {article_file(path), month_file(month_of(entry))}
        files |= {url_file(used) for used in uses(entry)}
        files |= {tag_year_file(tag_path(tag), entry.date.year) for tag in entry.tags}
    return files


def _order(entry: Entry) -> tuple[float, str]:
    """Date order, the slug breaking a tie: how neighbours and lists are ranked."""
    return (entry.date.timestamp(), entry.slug)


def uses(entry: Entry) -> tuple[str, ...]:
    """The site paths an article's version uses: its page, its images, its redirect pages."""
    return (page_path(entry.slug), *entry.assets, *entry.aliases)


_TAG_PARTS = ("years", "names")


@dataclass
class _Summary:
    months: dict[str, int] = field(default_factory=dict)
    # tag page -> {"years": {year: count}, "names": {spelling: count}}
    tags: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    newest: list[tuple[str, Entry]] = field(default_factory=list)  # (path, entry), newest first

    def to_json(self) -> dict[str, Any]:
        return {
            "version": INDEX_VERSION,
            "months": dict(sorted(self.months.items())),
            "tags": {page: self.tags[page] for page in sorted(self.tags)},
            "newest": [[path, entry.to_json()] for path, entry in self.newest],
        }

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> _Summary:
        tags = {
            str(page): {part: {str(k): int(n) for k, n in tag[part].items()} for part in _TAG_PARTS}
            for page, tag in document["tags"].items()
        }
        return cls(
            months={str(k): int(v) for k, v in document["months"].items()},
            tags=tags,
            newest=[(str(path), Entry.from_json(fields)) for path, fields in document["newest"]],
        )


class SiteIndex:
    """The site's record of its articles, read from and written to `files` a file at a time."""

    def __init__(self, files: SiteWriter) -> None:
        self._files = files
        self._documents: dict[str, dict[str, Any]] = {}  # file -> its section, as read
        self._dirty: set[str] = set()
        self._read_summary: _Summary | None = None  # read when first wanted (`verify` never)

    @property
    def exists(self) -> bool:
        """Whether the site has an index (an earlier layout, or a new site, has none)."""
        return self._files.exists(SUMMARY)

    @property
    def _summary(self) -> _Summary:
        if self._read_summary is None:
            raw = self._files.read(SUMMARY)
            self._read_summary = (
                _Summary()
                if raw is None
                else _Summary.from_json(self._parse(SUMMARY, raw, "months"))
            )
        return self._read_summary

    # -- reading ------------------------------------------------------------------------------

    def want(
        self,
        entries: Iterable[tuple[str, Entry]],
        *,
        texts: Iterable[str] = (),
        oids: Iterable[str] = (),
    ) -> None:
        """Fetch together the files that changing these (path, entry) pairs reads, `texts`,
        and the ids of `oids` (files about to be replaced or removed)."""
        wanted = {*index_files(entries), *texts}
        self._files.want(
            texts=sorted(name for name in wanted if name not in self._documents), oids=oids
        )

    def _section(self, name: str, key: str) -> dict[str, Any]:
        if name not in self._documents:
            raw = self._files.read(name)
            self._documents[name] = {} if raw is None else self._parse(name, raw, key)[key]
        return self._documents[name]

    @staticmethod
    def _parse(name: str, raw: bytes, key: str) -> dict[str, Any]:
        try:
            document = json.loads(raw)
            if document.get("version") != INDEX_VERSION or not isinstance(document[key], dict):
                raise ValueError(f"not a version {INDEX_VERSION} file with {key!r}")
            return document  # type: ignore[no-any-return]
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            # The site is left as it is: rewriting a file we could not read would forget pages.
            raise TransientError(f"{name} in the site cannot be read ({error}); fix it") from None

    def entry(self, path: str) -> Entry | None:
        fields = self._section(article_file(path), "articles").get(path)
        return None if fields is None else self._entry(article_file(path), fields)

    @staticmethod
    def _entry(name: str, fields: Any) -> Entry:
        try:
            return Entry.from_json(fields)
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise TransientError(f"{name} in the site cannot be read ({error!r}); fix it") from None

    def owners(self, site_path: str) -> list[str]:
        """The articles that use `site_path` (a page has one; an image may have several)."""
        return list(self._section(url_file(site_path), "urls").get(site_path, []))

    def month(self, month: str) -> list[tuple[str, Entry]]:
        """The month's articles, newest first."""
        name = month_file(month)
        rows = [(path, self._entry(name, f)) for path, f in self._section(name, "articles").items()]
        return sorted(rows, key=lambda row: _order(row[1]), reverse=True)

    def tag_year(self, tag_page: str, year: int) -> list[tuple[str, Entry]]:
        name = tag_year_file(tag_page, year)
        rows = [(path, self._entry(name, f)) for path, f in self._section(name, "articles").items()]
        return sorted(rows, key=lambda row: _order(row[1]), reverse=True)

    @property
    def months(self) -> Mapping[str, int]:
        return self._summary.months

    @property
    def newest(self) -> list[tuple[str, Entry]]:
        return list(self._summary.newest)

    @property
    def total(self) -> int:
        return sum(self._summary.months.values())

    @property
    def tag_pages(self) -> list[str]:
        return list(self._summary.tags)

    def tag_years(self, tag_page: str) -> dict[int, int]:
        tag = self._summary.tags.get(tag_page)
        return {} if tag is None else {int(year): n for year, n in tag["years"].items()}

    def tag_name(self, tag_page: str) -> str:
        """A tag page is named by the smallest spelling of its tag among its articles."""
        return min(self._summary.tags[tag_page]["names"])

    def tag_count(self, tag_page: str) -> int:
        return sum(self.tag_years(tag_page).values())

    def nav(self, path: str, entry: Entry) -> Nav:
        """The older and the newer article of `path` (at `entry`) as the index stands."""
        older = self._beside(path, entry, newer=False)
        newer = self._beside(path, entry, newer=True)
        return (
            (older.slug, older.title) if older else (None, None),
            (newer.slug, newer.title) if newer else (None, None),
        )

    def beside(self, path: str, entry: Entry) -> list[tuple[str, Entry]]:
        """The older and the newer article of `path` (at `entry`), as (path, entry) pairs."""
        found = []
        for newer in (False, True):
            row = self._beside_row(path, entry, newer=newer)
            if row is not None:
                found.append(row)
        return found

    def _beside(self, path: str, entry: Entry, *, newer: bool) -> Entry | None:
        row = self._beside_row(path, entry, newer=newer)
        return None if row is None else row[1]

    def _beside_row(self, path: str, entry: Entry, *, newer: bool) -> tuple[str, Entry] | None:
        """The next article of the index in date order after (`newer`) or before `entry`, an
        article of the index: among the newest when it is one of them (every newer one is
        too), else in its month, else in the nearest month that has any."""
        key = _order(entry)
        pick = min if newer else max
        newest = self._summary.newest
        if any(row[0] == path for row in newest):
            side = [row for row in newest if row[0] != path and (_order(row[1]) > key) == newer]
            if side or newer or len(newest) == self.total:
                return pick(side, key=lambda row: _order(row[1])) if side else None
        month = month_of(entry)
        months = sorted(self._summary.months, reverse=not newer)
        for candidate in [month, *(m for m in months if (m > month) == newer and m != month)]:
            side = [
                row
                for row in self.month(candidate)
                if row[0] != path and (_order(row[1]) > key) == newer
            ]
            if side:
                return pick(side, key=lambda row: _order(row[1]))
        return None

    def every_entry(self) -> Iterator[tuple[str, Entry]]:
        """Every article, month by month (reads every month file: a migration's or a test's)."""
        for month in sorted(self._summary.months):
            yield from self.month(month)

    # -- changing -----------------------------------------------------------------------------

    def put(self, path: str, entry: Entry | None) -> list[str]:
        """Record `entry` as the article at `path` (None: the article is gone); returns the
        site paths nobody uses any more (the old version's images and redirects, its page)."""
        old = self.entry(path)
        if old is not None:
            self._drop(path, old)
        if entry is not None:
            self._add(path, entry)
        unused = [p for p in (uses(old) if old else ()) if not self.owners(p)]
        return unused

    def _edit(self, name: str, key: str) -> dict[str, Any]:
        self._dirty.add(name)
        return self._section(name, key)

    def _drop(self, path: str, entry: Entry) -> None:
        del self._edit(article_file(path), "articles")[path]
        for used in uses(entry):
            urls = self._edit(url_file(used), "urls")
            owners = [owner for owner in urls.get(used, []) if owner != path]
            if owners:
                urls[used] = owners
            else:
                urls.pop(used, None)
        month = month_of(entry)
        self._edit(month_file(month), "articles").pop(path, None)
        _count(self._summary.months, month, -1)
        for page in dict.fromkeys(map(tag_path, entry.tags)):
            self._edit(tag_year_file(page, entry.date.year), "articles").pop(path, None)
            tag = self._summary.tags[page]
            _count(tag["years"], f"{entry.date.year:04d}", -1)
            for spelling in entry.tags:
                if tag_path(spelling) == page:
                    _count(tag["names"], spelling, -1)
            if not tag["years"]:
                del self._summary.tags[page]
        self._summary.newest = [row for row in self._summary.newest if row[0] != path]
        self._dirty.add(SUMMARY)

    def _add(self, path: str, entry: Entry) -> None:
        fields = entry.to_json()
        self._edit(article_file(path), "articles")[path] = fields
        for used in uses(entry):
            urls = self._edit(url_file(used), "urls")
            urls[used] = sorted({*urls.get(used, []), path})
        month = month_of(entry)
        self._edit(month_file(month), "articles")[path] = fields
        _count(self._summary.months, month, 1)
        for page in dict.fromkeys(map(tag_path, entry.tags)):
            self._edit(tag_year_file(page, entry.date.year), "articles")[path] = fields
            tag = self._summary.tags.setdefault(page, {"years": {}, "names": {}})
            _count(tag["years"], f"{entry.date.year:04d}", 1)
            for spelling in entry.tags:
                if tag_path(spelling) == page:
                    _count(tag["names"], spelling, 1)
        newest = sorted([*self._summary.newest, (path, entry)], key=lambda r: _order(r[1]))
        self._summary.newest = newest[::-1][:NEWEST]
        self._dirty.add(SUMMARY)

    def refill_newest(self) -> None:
        """After a removal from the newest: the next ones, from the months (newest first)."""
        have = {path for path, _entry in self._summary.newest}
        wanted = min(NEWEST, self.total)
        for month in sorted(self._summary.months, reverse=True):
            if len(have) >= wanted:
                break
            for path, entry in self.month(month):
                if path not in have:
                    self._summary.newest.append((path, entry))
                    have.add(path)
        self._summary.newest = sorted(
            self._summary.newest, key=lambda row: _order(row[1]), reverse=True
        )[:NEWEST]

    def flush(self) -> None:
        """Write every file a change touched (a file left empty is removed)."""
        for name in sorted(self._dirty):
            if name == SUMMARY:
                self._files.put(name, _dumps(self._summary.to_json()))
                continue
            key = "urls" if "/urls/" in name else "articles"
            section = self._documents[name]
            if section:
                self._files.put(name, _dumps({"version": INDEX_VERSION, key: section}))
            else:
                self._files.remove(name)
        self._dirty.clear()


def _count(counts: dict[str, int], key: str, step: int) -> None:
    counts[key] = counts.get(key, 0) + step
    if counts[key] <= 0:
        del counts[key]


def _dumps(document: Mapping[str, Any]) -> bytes:
    """Keys sorted, and each article, URL or month on a line of its own: the Pages branch's
    diffs read well."""
    parts = []
    for key, value in sorted(document.items()):
        if isinstance(value, Mapping) and value:
            rows = ",\n".join(f"  {_json(k)}: {_json(v)}" for k, v in sorted(value.items()))
            parts.append(f"{_json(key)}: {{\n{rows}\n }}")
        elif isinstance(value, list) and value:
            rows = ",\n".join(f"  {_json(item)}" for item in value)
            parts.append(f"{_json(key)}: [\n{rows}\n ]")
        else:
            parts.append(f"{_json(key)}: {_json(value)}")
    return ("{" + ",\n ".join(parts) + "}\n").encode()


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
