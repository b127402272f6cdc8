"""Where each listing page of the built-in site is (a month's, a year's, a tag's year's, the
page of an older part of a crowded listing), and which listing a page is: names alone."""

from __future__ import annotations

import re

from steadypress.targets.site.index import month_file, tag_year_file

__all__ = [
    "ARCHIVE_INDEX",
    "LISTING_PAGE",
    "is_every_year",
    "listing_of_page",
    "month_path",
    "part_page",
    "period_of",
    "tag_of",
    "tag_year_path",
    "tag_years_path",
    "year_path",
]

ARCHIVE_INDEX = "archive/index.html"


def month_path(month: str) -> str:
    return f"archive/{month}/index.html"


def year_path(year: str) -> str:
    return f"archive/{year}/index.html"


def tag_year_path(tag_page: str, year: int) -> str:
    """The page of one year of a tag, beside the tag's own page (`tags/x/index.html`)."""
    return tag_page.removesuffix("index.html") + f"{year:04d}/index.html"


def part_page(page: str, number: int) -> str:
    """The page of part `number` of the listing shown on `page` (a month's or a tag's year's),
    when that part is not its newest (which `page` shows)."""
    return page.removesuffix("index.html") + f"p{number}/index.html"


def listing_of_page(page: str) -> str | None:
    """The index file of the listing a month's or a tag's year's page shows; None for another
    listing page."""
    if page.startswith("archive/"):
        year, month = period_of(page)
        return None if month is None else month_file(f"{year}/{month}")
    if not page.startswith("tags/") or is_every_year(page):
        return None
    tag, year_shown = tag_of(page)
    return None if year_shown is None else tag_year_file(tag, year_shown)


def tag_years_path(tag_page: str) -> str:
    """The page of every year of a tag, beside the tag's own page."""
    return tag_page.removesuffix("index.html") + "years/index.html"


def tag_of(page: str) -> tuple[str, int | None]:
    """A tag's page (`tags/x/index.html`), and the year for one of its year pages."""
    parts = page.split("/")
    year = int(parts[2]) if len(parts) == 4 and parts[2] != "years" else None
    return "/".join(parts[:2]) + "/index.html", year


def is_every_year(page: str) -> bool:
    """Whether `page` (a tag's listing page) is the page of every year of its tag."""
    return page.count("/") == 3 and page.endswith("/years/index.html")


def period_of(page: str) -> tuple[str, str | None]:
    """The year, and the month for a month's page, of an archive page."""
    parts = page.split("/")
    return parts[1], parts[2] if len(parts) == 4 else None


LISTING_PAGE = re.compile(
    r"(index|archive/index|tags/index|archive/\d{4}(/\d{2})?/index"
    r"|tags/(?!\.\.?/)[^/\\]+(/\d{4}|/years)?/index)\.html"
)
