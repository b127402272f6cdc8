"""The site index's summary, which every write reads: what changes with the site's shape
(`summary.json`: its tags and their spellings, how its sitemaps are laid out and what they
lack, its pages beside the articles, its feed's id), rewritten only when that changes, and
what changes with nearly every article (`newest.json`: how many articles there are, and the
newest); and the record of the look the site was last written with (`look.json`). Their JSON
both ways, a file that does not parse stopping the write rather than being overwritten."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from steadypress.gitio import OBJECT_ID
from steadypress.targets.site.files import unreadable
from steadypress.targets.site.manifest import INDEXED_DIGITS, Listed, is_site_path
from steadypress.targets.site.old_layout import TAXONOMY
from steadypress.targets.site.sitemaps import SITEMAPS_LAYOUT, is_sitemap
from steadypress.timefmt import format_time, parse_time

__all__ = [
    "INDEX_VERSION",
    "LISTINGS_LAYOUT",
    "NEWEST_FILE_SINCE",
    "SUMMARY_VERSION",
    "UNFILED_VERSION",
    "SitemapsBehind",
    "Styled",
    "Summary",
    "decoded",
    "spelling_counts",
    "styled_from_json",
    "styled_json",
]

# 4: the summary counts the articles, and `years.json` lists the years (a version 3 summary
# counted each year's articles, which made it grow with the years; moved by the next write).
INDEX_VERSION = 4
# The summary's own: 5, the index's files of articles and URLs begin shallower
# (`indexfiles.shard_layouts`), where a summary of version 4 or 3 has the first layout; 6, the
# count and the newest articles are in `newest.json`, and a tag's count in its own files (a
# summary before counted each tag, so that every article rewrote it whole, its size growing
# with the tags: moved by the next write); 7, a tag's `years.json` may hold its years' rows
# (`indexfiles.ROWS`), which a version that reads 6 would pass over and drop as it wrote the
# file: it refuses the index instead.
SUMMARY_VERSION = 7
# A summary that names unfiled files (`unfiled.py`) is of version 8, which a version that reads
# 7 refuses: it would not look in them, and would lose their entries. One naming none is
# written as of version 7.
UNFILED_VERSION = 8
# Since version 6 the count and the newest are in `newest.json`.
NEWEST_FILE_SINCE = 6
# How the listing pages are laid out, recorded in the summary: 2, a tag whose articles all fit on
# its page has no pages of its years (a summary that says nothing is of layout 1, which wrote
# them: the next write removes them, `SiteOpener.open`).
LISTINGS_LAYOUT = 2
T = TypeVar("T")


@dataclass(frozen=True)
class SitemapsBehind:
    """The sitemaps are behind the index: laid out for `articles` articles, and missing
    pages of the articles of `months` (`YYYY/MM`) and of the stale listing pages. A first build
    in many batches writes the sitemaps once, at its end, instead of every sitemap once a batch
    (a batch of 500 new articles touches them all, and their number grows with the blog); a run
    that dies first leaves this for the next write, which lists those months' pages again.
    `writer` is the run that wrote it: the changes that run carries are the ones missing only
    while it is the last to have written (another run's batch between its writes has changes
    of its own missing too, so that run lists the months' pages again)."""

    articles: int
    months: frozenset[str]
    writer: str | None = None


@dataclass(frozen=True)
class Styled:
    """The look the site was last written with (`Look`'s three digests), the content commit
    whose theme and settings it is, with that commit's time, and when it was first written: a
    run of an older commit, which a run of the newer one overtook, writes nothing (its
    stylesheet and pages would undo the newer ones, for good: nothing would write them
    again)."""

    look: tuple[str, ...]
    commit: str
    time: datetime
    written: datetime


@dataclass
class Summary:
    # In `newest.json`: how many articles, and the newest.
    total: int = 0
    newest: list[tuple[str, Listed]] = field(default_factory=list)  # (path, row), newest first
    # Of the newest, by path, a digest of the text the feed shows of each, where known (the
    # target's `_body_digest`): a publish renders the others' text again from the content and
    # keeps it where it matches, instead of reading the feed back (30 KB a push, or more).
    bodies: dict[str, str] = field(default_factory=dict)
    # How the sitemaps are laid out (`sitemaps.py`) and the site address they name; None:
    # none written yet, so none to move.
    sitemaps: tuple[int, str] | None = None
    # Of the sitemaps laid out, those not there (they would list no page): the index of the
    # sitemaps names the others, and is written from this, not read. None: not known (a summary
    # written by an older version).
    sitemaps_absent: frozenset[str] | None = None
    # Listing pages a batch left to a later one of its run (the run's last renders them): kept
    # here, so that a run that dies first leaves them to the next publish, never forgotten.
    stale: set[str] = field(default_factory=set)
    # The years of a version 3 summary, which counted them: moved to `years.json` when written.
    legacy_years: list[str] | None = None
    # Sitemaps a batch left to a later one of its run (`SitemapsBehind`); None: up to date.
    sitemaps_behind: SitemapsBehind | None = None
    # The pages beside the articles (`Entry.is_page`), by path: their address and last change,
    # which the sitemaps list; a blog has a handful.
    pages: dict[str, tuple[str, datetime]] = field(default_factory=dict)
    # The feed's id, and the start of each entry's: the site's address when its feed was first
    # written, kept when the domain changes (None: not written yet, or by an earlier version).
    feed_id: str | None = None
    # The files written because a setting asks for them (a redirect page of `redirects`, the
    # feed at Hugo's address): those a setting no longer asks for are removed.
    extras: frozenset[str] = frozenset()
    # Whether the index's files of articles and URLs have the first layout, 4,096 files to
    # begin with (an index begun before the summary's version 5), kept as it is.
    first_shards: bool = False
    # The taxonomies whose term feeds each tag has beside its page (`old_term_feeds`): those
    # the setting no longer names have their feeds removed.
    term_feeds: tuple[str, ...] = ()
    # How the listing pages were laid out when last written (`LISTINGS_LAYOUT`).
    listings: int = LISTINGS_LAYOUT
    # The version `summary.json` was read at (this one's for a new index).
    read_version: int = SUMMARY_VERSION
    # Each tag page, with the spellings of its tag among its articles, sorted (the page is
    # named by the first). How many articles each has is in the tag's `years.json`: the sum
    # of its years, or, where the tag is spelt more ways than one, its `names`.
    tags: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Read from a summary before version 6, which counted each spelling of each tag: the
    # counts, which the next write moves to the tags' files. None: a summary of version 6.
    legacy_names: dict[str, dict[str, int]] | None = None
    # The unfiled files (`unfiled.py`) by name, oldest first: entries of articles and URLs that
    # the files of articles and URLs do not hold yet.
    unfiled: tuple[str, ...] = ()

    def newest_json(self) -> dict[str, Any]:
        """`newest.json`: what nearly every article changes. Its rows keep no summary of their
        text: the feed renders the text again (`body` is its digest) and makes the summary
        from it, and every push wrote the 20 summaries again, 60% of the file."""
        return {
            "version": SUMMARY_VERSION,
            "total": self.total,
            "newest": [
                [
                    path,
                    {
                        **{k: v for k, v in entry.to_json().items() if k != "summary"},
                        **({"body": self.bodies[path]} if path in self.bodies else {}),
                    },
                ]
                for path, entry in self.newest
            ],
        }

    def to_json(self) -> dict[str, Any]:
        """`summary.json`: what changes with the site's shape (`newest_json` is the rest)."""
        return {
            "version": UNFILED_VERSION if self.unfiled else SUMMARY_VERSION,
            **({"first_shards": True} if self.first_shards else {}),
            **({"unfiled": list(self.unfiled)} if self.unfiled else {}),
            "sitemaps": None
            if self.sitemaps is None
            else {
                "layout": self.sitemaps[0],
                "url": self.sitemaps[1],
                **(
                    {} if self.sitemaps_absent is None else {"absent": sorted(self.sitemaps_absent)}
                ),
            },
            "tags": {page: list(spellings) for page, spellings in self.tags.items()},
            "listings": self.listings,
            **({"stale": sorted(self.stale)} if self.stale else {}),
            **({"feed_id": self.feed_id} if self.feed_id is not None else {}),
            **({"extras": sorted(self.extras)} if self.extras else {}),
            **({"term_feeds": list(self.term_feeds)} if self.term_feeds else {}),
            **(
                {
                    "pages": {
                        path: {"slug": slug, "updated": format_time(updated)}
                        for path, (slug, updated) in sorted(self.pages.items())
                    }
                }
                if self.pages
                else {}
            ),
            **(
                {}
                if self.sitemaps_behind is None
                else {
                    "sitemaps_behind": {
                        "articles": self.sitemaps_behind.articles,
                        "months": sorted(self.sitemaps_behind.months),
                        **(
                            {"writer": self.sitemaps_behind.writer}
                            if self.sitemaps_behind.writer is not None
                            else {}
                        ),
                    }
                }
            ),
        }

    @classmethod
    def from_json(
        cls, document: Mapping[str, Any], newest: Mapping[str, Any] | None, *, file: str
    ) -> Summary:
        """The summary of `document` (`summary.json`) and `newest` (`newest.json`, which a
        summary before version 6 held itself: None)."""
        version = document["version"]
        legacy = None if version >= INDEX_VERSION else document["years"]
        if version >= NEWEST_FILE_SINCE:
            if newest is None:
                raise ValueError("newest.json is missing")
            tags = {str(page): tuple(map(str, names)) for page, names in document["tags"].items()}
            legacy_names = None
        else:
            newest = document
            legacy_names = {
                str(page): {str(k): int(n) for k, n in tag["names"].items()}
                for page, tag in document["tags"].items()
            }
            tags = {page: tuple(sorted(names)) for page, names in legacy_names.items()}
        return cls(
            total=int(newest["total"]) if legacy is None else sum(map(int, legacy.values())),
            legacy_years=None if legacy is None else sorted(map(str, legacy)),
            tags=decoded(file, _tag_pages, tags),
            legacy_names=legacy_names,
            newest=[(str(path), Listed.from_json(fields)) for path, fields in newest["newest"]],
            bodies={
                # 128 bits as an earlier steadypress kept them: known by their first 64.
                str(path): fields["body"][:INDEXED_DIGITS]
                for path, fields in newest["newest"]
                if isinstance(fields.get("body"), str)
            },
            sitemaps=_sitemaps_mark(document.get("sitemaps", {"layout": 1, "url": ""})),
            sitemaps_absent=decoded(file, _sitemaps_absent, document.get("sitemaps")),
            stale={str(page) for page in document.get("stale", ())},
            sitemaps_behind=_sitemaps_behind(document.get("sitemaps_behind")),
            pages=decoded(file, _pages, document.get("pages", {})),
            feed_id=None if document.get("feed_id") is None else str(document["feed_id"]),
            extras=decoded(file, _site_paths, document.get("extras", [])),
            term_feeds=decoded(file, _taxonomies, document.get("term_feeds", [])),
            first_shards=version < 5 or document.get("first_shards") is True,
            listings=decoded(file, _listings_layout, document.get("listings", 1)),
            read_version=version,
            unfiled=decoded(file, _unfiled_names, document.get("unfiled", [])),
        )


def _listings_layout(document: Any) -> int:
    # A layout this version does not know (a newer one's) is not taken for an older one, whose
    # pages the next write would remove.
    if type(document) is not int or not 1 <= document <= LISTINGS_LAYOUT:
        raise ValueError(f"listings: {document!r} is not a layout this version knows")
    return document


def _unfiled_names(document: Any) -> tuple[str, ...]:
    # A name here is a file a later write deletes: a digest, never a path.
    names = tuple(map(str, document))
    if not all(map(_UNFILED_NAME.fullmatch, names)):
        raise ValueError(f"unfiled: not names of unfiled files: {list(names)}")
    return names


def _site_paths(document: Any) -> frozenset[str]:
    # A path here is one a later write may delete: each must name a file of the site, no more.
    paths = frozenset(map(str, document))
    if not all(map(is_site_path, paths)):
        raise ValueError(f"not paths inside the site: {sorted(paths)}")
    return paths


def _taxonomies(document: Any) -> tuple[str, ...]:
    # A folder here is one whose feeds a later write may delete: a name, never a path.
    folders = tuple(map(str, document))
    if not all(map(TAXONOMY.fullmatch, folders)):
        raise ValueError(f"not taxonomies: {list(folders)}")
    return folders


def spelling_counts(document: Any) -> dict[str, int]:
    """A tag's `names` in its `years.json`: how many articles spell it each way."""
    if not isinstance(document, Mapping):
        raise TypeError("names is not an object")
    counts = {str(spelling): int(n) for spelling, n in document.items()}
    if len(counts) < 2 or min(counts.values()) < 1:
        raise ValueError(f"names counts fewer than two spellings, or none of one: {counts}")
    return counts


def _tag_pages(tags: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    # A tag page names the files a later write rewrites or removes (its pages, its files in
    # the index): each must be one of `tags/`, spelt at least one way.
    for page, spellings in tags.items():
        if not _TAG_PAGE.fullmatch(page) or not spellings or not all(spellings):
            raise ValueError(f"{page!r} is not a tag page with its spellings: {list(spellings)}")
    return dict(tags)


def _sitemaps_mark(document: Any) -> tuple[int, str] | None:
    return None if document is None else (int(document["layout"]), str(document["url"]))


def _sitemaps_absent(document: Any) -> frozenset[str] | None:
    if not isinstance(document, Mapping) or "absent" not in document:
        return None
    if document.get("layout") != SITEMAPS_LAYOUT:
        return None  # which of another layout's sitemaps were absent: moved whole anyway
    absent = frozenset(map(str, document["absent"]))
    if not all(map(is_sitemap, absent)):
        raise ValueError(f"absent names a file that is not a sitemap: {sorted(absent)}")
    return absent


def decoded(name: str, decode: Callable[[Any], T], document: Any) -> T:
    """`decode(document)`, read from the file `name`; what it cannot decode stops the publish."""
    try:
        return decode(document)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise unreadable(name, repr(error)) from None


def _pages(document: Any) -> dict[str, tuple[str, datetime]]:
    pages = {}
    for path, fields in document.items():
        slug = str(fields["slug"])
        # A page's address is a file a later publish may delete: one inside the site, no more.
        if not is_site_path(slug):
            raise ValueError(f"page {path!r} at {slug!r}, not a path inside the site")
        pages[str(path)] = (slug, parse_time(str(fields["updated"])))
    return pages


def _sitemaps_behind(document: Any) -> SitemapsBehind | None:
    if document is None:
        return None
    months = frozenset(map(str, document["months"]))
    # Named months become file names: anything but YYYY/MM is refused, never read.
    if any(not _MONTH.fullmatch(month) for month in months):
        raise ValueError(f"sitemaps_behind names a month that is not YYYY/MM: {sorted(months)}")
    writer = document.get("writer")
    return SitemapsBehind(
        articles=int(document["articles"]),
        months=months,
        writer=None if writer is None else str(writer),
    )


def styled_from_json(document: Any) -> Styled:
    commit = str(document["commit"])
    if not OBJECT_ID.fullmatch(commit):
        raise ValueError(f"look.json names no commit id: {commit!r}")
    look = tuple(map(str, document["look"]))
    time, written = (parse_time(str(document[key])) for key in ("time", "written"))
    return Styled(look=look, commit=commit, time=time, written=written)


def styled_json(styled: Styled) -> dict[str, Any]:
    return {
        "version": INDEX_VERSION,
        "look": list(styled.look),
        "commit": styled.commit,
        "time": format_time(styled.time),
        "written": format_time(styled.written),
    }


_MONTH = re.compile(r"\d{4}/\d{2}")
_UNFILED_NAME = re.compile(r"[0-9a-f]{16}")
_TAG_PAGE = re.compile(r"tags/(?!\.\.?/)[^/\\]+/index\.html")
