"""The site index's files: where each is (`month_file`, `tag_year_file`, the shards of
articles and URLs), what a row holds, and the JSON they are written in. Names and bytes
alone: `index.py` reads and writes them, `rows.py` keeps a listing's rows in them."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from steadypress import shardtree
from steadypress.targets.site.manifest import ENTRY_ONLY, Entry, Listed
from steadypress.targets.site.parts import Part
from steadypress.targets.site.summary import (
    INDEX_VERSION,
    SUMMARY_VERSION,
    UNFILED_VERSION,
    decoded,
)
from steadypress.timefmt import parse_time

__all__ = [
    "AFTER_ALL", "ARTICLES", "INDEX_FOLDER", "LISTING", "NAMES", "NEWEST", "NEWEST_FILE",
    "NEWEST_PARTS", "NOT_LISTED", "PAGE", "PARTS", "READABLE_VERSIONS", "ROWS", "SPLIT",
    "STYLED", "SUMMARY", "URLS", "YEARS",
    "article_files", "date_order", "dumps", "in_order", "is_listing", "is_tag_years",
    "listed_order", "listed_whole", "listing_row", "listings_of", "month_file", "month_of",
    "newest_parts", "packed_rows", "part_at", "rows_only", "section_key", "shard_layouts",
    "shard_of_file", "split_marker", "tag_year_beside", "tag_year_file", "tag_years_file",
    "tag_years_of", "url_files", "year_file",
]  # fmt: skip

INDEX_FOLDER = ".steadypress"
# The other files are the same in version 3 and 4; a summary of version 5 began the shallower
# files of articles and URLs (`shard_layouts`), one of version 6 left its count and newest
# articles to `newest.json`, one of version 7 has tags' rows in their years files
# (`summary.py`), one of version 8 names unfiled files (`unfiled.py`).
READABLE_VERSIONS = (3, INDEX_VERSION, 5, 6, SUMMARY_VERSION, UNFILED_VERSION)
SUMMARY = f"{INDEX_FOLDER}/summary.json"
NEWEST_FILE = f"{INDEX_FOLDER}/newest.json"
YEARS = f"{INDEX_FOLDER}/years.json"
STYLED = f"{INDEX_FOLDER}/look.json"
# How many articles the front page and the feed show: the newest, as blogs do.
NEWEST = 20


def listed_whole(count: int) -> bool:
    """Whether a tag of `count` articles has them all on its own page (its `NEWEST`): then it
    has no pages of its years, and its `years.json` holds their rows (`ROWS`)."""
    return count <= NEWEST


ARTICLES, URLS = f"{INDEX_FOLDER}/articles", f"{INDEX_FOLDER}/urls"
# A date order after every row's: the rows before it are all of them, newest first.
AFTER_ALL = (float("inf"), "")


# The files of articles and of URLs (`shardtree.py`): 256 to begin with, split above 64
# articles (some 35 KB) or 256 URLs (some 15 KB): a first build of 10^4 articles writes 512 of
# them, where 4,096 files to begin with, split above 4, made 11,577; a push rewrites one of
# each.
ARTICLE_SHARDS = shardtree.Layout(base=2, split_above=64)
URL_SHARDS = shardtree.Layout(base=2, split_above=256)
# Both, in an index begun before (its summary of version 4: `Summary.first_shards`).
FIRST_SHARDS = shardtree.Layout(base=3, split_above=4)


def shard_layouts(*, first: bool) -> dict[str, shardtree.Layout]:
    """The layout of each folder of files of articles and URLs, of an index begun before
    (`first`) or since the shallower layout."""
    return {ARTICLES: FIRST_SHARDS, URLS: FIRST_SHARDS} if first else {
        ARTICLES: ARTICLE_SHARDS, URLS: URL_SHARDS
    }  # fmt: skip


def shard_of_file(path: str) -> tuple[str, str] | None:
    """(folder, name) of a file of articles or URLs, in either layout; None for another file
    of the index."""
    for folder, layout in shard_layouts(first=False).items():
        if (name := layout.name_of(folder, path)) is not None:
            return folder, name
    return None


def article_files(path: str) -> list[str]:
    """The files that may hold an article's entry, in either layout: a read asks for them
    all."""
    return _files_of(ARTICLES, path)


def url_files(site_path: str) -> list[str]:
    """The files that may name the articles using a site path, in either layout."""
    return _files_of(URLS, site_path)


def _files_of(folder: str, key: str) -> list[str]:
    layouts = [shard_layouts(first=first)[folder] for first in (False, True)]
    shallowest = min(layouts, key=lambda layout: layout.base)
    return [shardtree.file_of(folder, name) for name in shallowest.names(key)]


def month_of(entry: Listed) -> str:
    return f"{entry.date.year:04d}/{entry.date.month:02d}"


def month_file(month: str) -> str:
    return f"{INDEX_FOLDER}/months/{month.replace('/', '-')}.json"


def year_file(year: str) -> str:
    return f"{INDEX_FOLDER}/years/{year}.json"


def tag_year_file(tag_page: str, year: int) -> str:
    return f"{_tag_folder(tag_page)}/{year:04d}.json"


def tag_years_file(tag_page: str) -> str:
    return f"{_tag_folder(tag_page)}/years.json"


def _tag_folder(tag_page: str) -> str:
    """Where the index keeps a tag's files, by the tag's page (`tags/x/index.html`)."""
    return f"{INDEX_FOLDER}/tags/{tag_page.split('/')[1]}"


# What each kind of file holds, by the key of its section.
def section_key(name: str) -> str:
    # By the folder from the index's root: a tag may be called `urls` or `years`.
    if name.startswith(f"{URLS}/"):
        return "urls"
    if name.startswith(f"{INDEX_FOLDER}/years/"):
        return "months"
    if name.endswith("/years.json"):
        return "years"
    return "articles"


def date_order(entry: Listed) -> tuple[float, str]:
    """Date order, the slug breaking a tie: how neighbours and lists are ranked."""
    return (entry.date.timestamp(), entry.slug)


def part_at(parts: list[Part], key: tuple[float, str]) -> int:
    """Which of a listing's parts (in date order) a row of date order `key` falls in. Searched
    in place: a tag on every article of a blog of 10^5 has some 700 parts a year, and a first
    build asks for each of its articles."""
    return bisect.bisect_right(parts, key, lo=1, key=lambda part: part.begins) - 1


def listings_of(entry: Entry, tag_page: Callable[[str], str]) -> list[str]:
    """The listings an entry is a row of: its month's, and each of its tags' year's (each tag
    on the page `tag_page` gives: the index's, for rows written when it was another)."""
    pages = dict.fromkeys(map(tag_page, entry.tags))
    return [month_file(month_of(entry)), *(tag_year_file(page, entry.date.year) for page in pages)]


def is_listing(name: str) -> bool:
    """Whether a file of the index is a month's or a tag's year's: rows, not entries."""
    months, tags = f"{INDEX_FOLDER}/months/", f"{INDEX_FOLDER}/tags/"
    return name.startswith(months) or (name.startswith(tags) and not is_tag_years(name))


def is_tag_years(name: str) -> bool:
    """Whether a file of the index is a tag's `years.json` (its count of each year)."""
    return name.startswith(f"{INDEX_FOLDER}/tags/") and name.endswith("/years.json")


def tag_year_beside(tag_years: str, year: str) -> str:
    """The file of a tag's year (`tag_year_file`), named from the tag's `years.json`."""
    return f"{tag_years.removesuffix('years.json')}{year}.json"


# What a month's and a tag's year's rows leave out: what only an article's own file needs, and
# the summary made of its text, which only the feed shows, of the newest (the summary's rows
# keep it): two thirds of a row, which a publish reads and writes some thirty of.
NOT_LISTED = ENTRY_ONLY | {"summary"}


def listing_row(listed: Listed) -> dict[str, Any]:
    """An article's row in a month's and a tag's year's files."""
    return {key: value for key, value in listed.to_json().items() if key not in NOT_LISTED}


def rows_only(section: dict[str, Any]) -> dict[str, Any]:
    """A listing's rows as written, what a listing written before rows were slimmed holds
    beyond them left out (once: the next write finds none)."""
    if not any(NOT_LISTED & row.keys() for row in section.values()):
        return section
    return {path: {k: v for k, v in row.items() if k not in NOT_LISTED}
            for path, row in section.items()}  # fmt: skip


# A month's row's digest of the article's page: where its neighbours' pages are made again
# rather than read (`SiteTarget._relink`). A tag's rows have none: no page links by tags.
PAGE = "page"


SPLIT = "split"


PARTS = "parts"


NEWEST_PARTS = "newest_parts"
# In a tag's `years.json`, where its tag is spelt more ways than one: how many articles spell
# it each way (`summary.spelling_counts`).
NAMES = "names"


# In a tag's `years.json`, while the tag has no more articles than its page lists (`NEWEST`):
# the rows of each of its years, whose files it then does without (`IndexDocuments.flush`).
ROWS = "rows"

_TAG_YEAR = re.compile(rf"({re.escape(INDEX_FOLDER)}/tags/[^/]+/)\d{{4}}\.json")


def tag_years_of(name: str) -> str | None:
    """The `years.json` of the tag of a tag's year's own file (None: another file)."""
    found = _TAG_YEAR.fullmatch(name)
    return None if found is None else f"{found.group(1)}years.json"


def packed_rows(document: Any) -> dict[str, dict[str, Any]]:
    """A tag's years file's rows of each year (`ROWS`): year -> path -> row, each row read
    here, so that one that does not parse is reported in the file that holds it."""
    if not isinstance(document, Mapping) or not all(
        isinstance(rows, Mapping) for rows in document.values()
    ):
        raise TypeError(f"{ROWS} is not an object of each year's rows")
    for rows in document.values():
        for row in rows.values():
            Listed.from_json(row)
    return {f"{int(year):04d}": dict(rows) for year, rows in document.items()}


# A listing's own file: a month's or a tag's year's (their parts are in a folder beside it).
LISTING = re.compile(
    rf"{re.escape(INDEX_FOLDER)}/(months/\d{{4}}-\d{{2}}|tags/[^/]+/\d{{4}})\.json"
)


def listed_order(name: str, row: Mapping[str, Any]) -> tuple[float, str]:
    """A row's `date_order`, read from its date and slug alone: rows are put in order where a
    listing's part changes (each row of it, at 10^5 some 700,000 a first build), and making
    each whole row to do it was the most of that (its fields are checked where it is listed)."""
    return decoded(name, _row_order, row)


def _row_order(row: Mapping[str, Any]) -> tuple[float, str]:
    return (parse_time(row["date"]).timestamp(), str(row["slug"]))


def in_order(name: str, rows: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A file's rows as written, in date order."""
    return sorted(rows_only(dict(rows)).items(), key=lambda row: listed_order(name, row[1]))


def newest_parts(document: Any) -> dict[str, list[int]]:
    """A tag's years file's hint: year -> the numbers of its newest parts."""
    if not isinstance(document, Mapping):
        raise TypeError(f"{NEWEST_PARTS} is not an object")
    if not all(isinstance(numbers, list) for numbers in document.values()):
        raise TypeError(f"{NEWEST_PARTS} names a year's parts by other than a list")
    return {f"{int(year):04d}": [int(n) for n in numbers] for year, numbers in document.items()}


def split_marker() -> dict[str, Any]:
    """What a file of articles or URLs holds once it has split (`shardtree.py`)."""
    return {"version": INDEX_VERSION, SPLIT: True}


def dumps(document: Mapping[str, Any]) -> bytes:
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


# One encoder for every row: `json.dumps` with options builds one a call, a third of its cost
# for the thousands of small rows a first build writes.
_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


def _json(value: Any) -> str:
    return _ENCODER.encode(value)
