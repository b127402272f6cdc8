"""The pages that list articles, split the way blogs split them so that one article changes a
few small pages, never one that grows with the blog: the front page (the newest articles), an
archive page per month under an archive index, a page per tag (its newest articles) with a page
per tag and year, and the tags index.

`Listing` groups entries onto those pages; `ListingPages` renders them through the theme.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.manifest import INDEX, TAGS_INDEX, Entry, tag_path
from steadypress.theme import Theme
from steadypress.timefmt import format_time

__all__ = [
    "ARCHIVE_INDEX",
    "NEWEST",
    "Listing",
    "ListingPages",
    "human_date",
    "listing_pages",
    "month_path",
    "newest_first",
    "tag_year_path",
]

# How many articles the front page, the feed and a tag's page show: the newest, as blogs do.
NEWEST = 20
ARCHIVE_INDEX = "archive/index.html"

# Spelled out rather than strftime("%B"), which follows the process locale: same input, same bytes.
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def human_date(moment: datetime) -> str:
    return f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}"


def _month_of(entry: Entry) -> str:
    return f"{entry.date.year:04d}/{entry.date.month:02d}"


def month_path(month: str) -> str:
    return f"archive/{month}/index.html"


def tag_year_path(tag_page: str, year: int) -> str:
    """The page of one year of a tag, beside the tag's own page (`tags/x/index.html`)."""
    return tag_page.removesuffix("index.html") + f"{year:04d}/index.html"


def newest_first(entries: Iterable[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda entry: (-entry.date.timestamp(), entry.slug))


@dataclass
class Listing:
    """Every entry of the site on the pages that list it."""

    months: dict[str, list[Entry]] = field(default_factory=dict)
    tags: dict[str, list[Entry]] = field(default_factory=dict)  # by tag page
    tag_years: dict[tuple[str, int], list[Entry]] = field(default_factory=dict)
    newest: list[Entry] = field(default_factory=list)

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Listing:
        listing = cls()
        everything = newest_first(entries)
        listing.newest = everything[:NEWEST]
        for entry in everything:
            listing.months.setdefault(_month_of(entry), []).append(entry)
            for page in dict.fromkeys(map(tag_path, entry.tags)):
                listing.tags.setdefault(page, []).append(entry)
                listing.tag_years.setdefault((page, entry.date.year), []).append(entry)
        return listing

    def tag_name(self, page: str) -> str:
        """A tag page is named by the smallest spelling of its tag among its articles."""
        return min(tag for entry in self.tags[page] for tag in entry.tags if tag_path(tag) == page)

    def last_changes(self) -> dict[str, datetime | None]:
        """Every listing page there is, with when what it lists last changed (the archive and
        tags indexes list counts: no date)."""
        # The front page stays when the last article goes: the site is still there.
        pages: dict[str, datetime | None] = {
            INDEX: max((entry.updated for entry in self.newest), default=None)
        }
        if self.newest:
            pages[ARCHIVE_INDEX] = None
        if self.tags:
            pages[TAGS_INDEX] = None
        for month, listed in self.months.items():
            pages[month_path(month)] = max(entry.updated for entry in listed)
        for page, listed in self.tags.items():
            pages[page] = max(entry.updated for entry in listed[:NEWEST])
        for (page, year), listed in self.tag_years.items():
            pages[tag_year_path(page, year)] = max(entry.updated for entry in listed)
        return pages


def listing_pages(entries: Iterable[Entry]) -> set[str]:
    """The listing pages whose content depends on `entries` (old versions and new)."""
    pages = {INDEX, ARCHIVE_INDEX, TAGS_INDEX}
    for entry in entries:
        pages.add(month_path(_month_of(entry)))
        for page in map(tag_path, entry.tags):
            pages.update((page, tag_year_path(page, entry.date.year)))
    return pages


class ListingPages:
    """Renders listing pages through the theme; `href` makes a site path a link, `absolute`
    an absolute URL."""

    def __init__(
        self,
        theme: Theme,
        site: Mapping[str, str],
        *,
        href: Callable[[str], str],
        absolute: Callable[[str], str],
        page_of: Callable[[Entry], str],
    ) -> None:
        self._theme = theme
        self._site = site
        self._href = href
        self._absolute = absolute
        self._page_of = page_of

    def write(self, files: SiteWriter, listing: Listing, pages: Iterable[str]) -> None:
        """Rewrite `pages` from `listing`; a page that lists nothing any more is removed."""
        wanted = listing.last_changes()
        for page in sorted(pages):
            if page not in wanted:
                files.remove(page)
            else:
                files.put(page, self._render(listing, page))

    def _render(self, listing: Listing, page: str) -> bytes:
        site = self._site
        if page == INDEX:
            return self._theme.render(
                "index.html", site=site, entries=self._rows(listing.newest),
                archive={"href": self._href(ARCHIVE_INDEX),
                         "count": sum(map(len, listing.months.values()))},
            )  # fmt: skip
        if page == ARCHIVE_INDEX:
            return self._theme.render(
                "archive.html", site=site, url=self._absolute(page), years=self._years(listing)
            )
        if page == TAGS_INDEX:
            tags = sorted(listing.tags, key=lambda tag: listing.tag_name(tag).lower())
            return self._theme.render(
                "tags.html", site=site, url=self._absolute(page),
                tags=[{"name": listing.tag_name(tag), "href": self._href(tag),
                       "count": len(listing.tags[tag])} for tag in tags],
            )  # fmt: skip
        if page.startswith("archive/"):
            year, month = page.split("/")[1:3]
            listed = listing.months[f"{year}/{month}"]
            return self._theme.render(
                "month.html", site=site, url=self._absolute(page),
                period=f"{_MONTHS[int(month) - 1]} {year}", entries=self._rows(listed),
                archive={"href": self._href(ARCHIVE_INDEX)},
            )  # fmt: skip
        return self._tag_page(listing, page)

    def _tag_page(self, listing: Listing, page: str) -> bytes:
        """A tag's own page (its newest articles and its years) or one year of it."""
        parts = page.split("/")
        year = int(parts[2]) if len(parts) == 4 else None
        tag = "/".join(parts[:2]) + "/index.html"
        listed = listing.tags[tag][:NEWEST] if year is None else listing.tag_years[(tag, year)]
        years = sorted({y for t, y in listing.tag_years if t == tag}, reverse=True)
        return self._theme.render(
            "tag.html", site=self._site, tag=listing.tag_name(tag), url=self._absolute(page),
            year=year, entries=self._rows(listed), tag_href=self._href(tag),
            count=len(listing.tags[tag]),
            years=[{"year": y, "href": self._href(tag_year_path(tag, y)),
                    "count": len(listing.tag_years[(tag, y)])} for y in years],
        )  # fmt: skip

    def _years(self, listing: Listing) -> list[dict[str, Any]]:
        years: dict[str, list[dict[str, Any]]] = {}
        for month in sorted(listing.months, reverse=True):
            year, number = month.split("/")
            years.setdefault(year, []).append({
                "name": _MONTHS[int(number) - 1], "href": self._href(month_path(month)),
                "count": len(listing.months[month]),
            })  # fmt: skip
        return [{"year": year, "months": months} for year, months in years.items()]

    def _rows(self, entries: Sequence[Entry]) -> list[dict[str, Any]]:
        return [
            {
                "title": entry.title,
                "href": self._href(self._page_of(entry)),
                "date_iso": format_time(entry.date),
                "date_human": human_date(entry.date),
                "description": entry.description,
            }
            for entry in entries
        ]
