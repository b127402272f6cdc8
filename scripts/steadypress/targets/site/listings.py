"""The pages that list articles, split the way blogs split them so that one article changes a
few small pages, never one that grows with the blog: the front page (the newest articles), an
archive of years (`archive/`), each year's months (`archive/YYYY/`) and each month's articles
(`archive/YYYY/MM/`), a page per tag (its newest articles and its newest years) with a page per
tag and year and, for a tag of many years, a page of them all, and the tags index. A tag whose
articles all fit on its page (`listed_whole`) has that page alone: its years' pages would
repeat it.

A crowded month or tag's year (its rows kept in parts by the index, each a range of dates) is
paged by those parts: its page lists the newest part, and each older part has a page of its own
(`archive/YYYY/MM/pN/`, N the part's number, which it keeps), linked to the pages before and
after it. A new article changes the page of its part, and a part that splits or empties the
pages beside it: never a page that grows with the month.

`ListingPages` renders them through the theme from the site's index (`index.py`), which
keeps each month's and each tag's year's articles in a file of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from itertools import chain
from typing import Any

from markupsafe import escape

from steadypress.errors import TransientError
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import (
    NEWEST,
    SUMMARY,
    YEARS,
    SiteIndex,
    month_file,
    month_of,
    tag_year_file,
    tag_years_file,
    year_file,
)
from steadypress.targets.site.indexfiles import listed_whole
from steadypress.targets.site.listingpaths import (
    ARCHIVE_INDEX,
    LISTING_PAGE,
    is_every_year,
    listing_of_page,
    month_path,
    part_page,
    period_of,
    tag_of,
    tag_year_path,
    tag_years_path,
    year_path,
)
from steadypress.targets.site.manifest import (
    INDEX,
    TAGS_INDEX,
    Entry,
    Listed,
    page_path,
)
from steadypress.targets.site.termfeeds import TermFeeds
from steadypress.theme import Theme
from steadypress.timefmt import format_time

__all__ = [
    "ListingPages",
    "every_listing_page",
    "human_date",
    "listing_exists",
    "listing_pages",
    "listing_reads",
    "listings_existing",
    "part_pages",
    "stale_pages",
    "tag_pages_listed_whole",
    "turning_tag_pages",
]

# How many of its years a tag's page links, the newest: with more, it links a page of them all,
# which changes only when a year appears or goes, so the tag's page stays small however long
# the blog has been written.
TAG_YEARS_SHOWN = 10

# Spelled out rather than strftime("%B"), which follows the process locale: same input, same bytes.
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def human_date(moment: datetime) -> str:
    return f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}"


def part_pages(index: SiteIndex, pages: Iterable[str]) -> list[str]:
    """The pages of the older parts of the crowded listings `pages` show that the write read
    (where its changes fall, and beside them): the pages laying the listings out may rewrite
    or remove, whose blob ids a write asks for with its other reads rather than in a read of
    their own once the parts are laid out (a push into a crowded month: one request fewer)."""
    found = []
    for page in pages:
        listing = listing_of_page(page)
        numbers = [] if listing is None else index.rows.older_parts_read(listing)
        found += [part_page(page, number) for number in numbers]
    return found


def _shown_at(page: str, number: int | None) -> str:
    """Where a listing page shows: `page`, or the page of its part `number`."""
    return page if number is None else part_page(page, number)


def listing_pages(entries: Iterable[Entry], tag_pages: Callable[[str], Iterable[str]]) -> set[str]:
    """The listing pages whose content depends on `entries` (old versions and new), each tag
    on the pages `tag_pages` gives (`IndexTags.pages_of`: where its rows are too)."""
    pages = {INDEX, ARCHIVE_INDEX, TAGS_INDEX}
    for entry in entries:
        if entry.is_page:  # listed nowhere
            continue
        pages |= {month_path(month_of(entry)), year_path(f"{entry.date.year:04d}")}
        for page in {page for tag in entry.tags for page in tag_pages(tag)}:
            pages.update((page, tag_year_path(page, entry.date.year), tag_years_path(page)))
    return pages


def stale_pages(index: SiteIndex) -> set[str]:
    """The listing pages an earlier batch left to be rendered. The index lives on a branch
    anyone with push access can edit, and a page listed there is written or removed, so each
    must be a listing page: anything else is an error, never a file deleted."""
    stale = index.stale
    for page in stale:
        if not LISTING_PAGE.fullmatch(page):
            raise TransientError(f"{SUMMARY}: {page!r} is not a listing page; fix the file")
    return stale


def listings_existing(index: SiteIndex, pages: Iterable[str]) -> dict[str, bool]:
    """Whether each listing page of `pages` has anything to list (`listing_exists`), the index
    files that tells read together first: a write that touches many tags (a site published
    again whole) reads their counts in one request, not one each."""
    pages = sorted(pages)
    index.want((), texts=_existence_reads(pages))
    return {page: listing_exists(index, page) for page in pages}


def _existence_reads(pages: Iterable[str]) -> list[str]:
    """The index files that tell whether each of `pages` has anything to list."""
    reads = []
    for page in pages:
        if page in (INDEX, ARCHIVE_INDEX, TAGS_INDEX):
            continue
        if page.startswith("archive/"):
            year, month = period_of(page)
            reads += [YEARS] if month is None else [YEARS, year_file(year)]
        else:
            reads.append(tag_years_file(tag_of(page)[0]))
    return reads


def every_listing_page(index: SiteIndex) -> list[str]:
    """Every listing page the site has (one that lists something), in path order: the index
    files that name them (each year's months, each tag's years) read together first."""
    years, tags = index.dates.years, index.tags.pages
    index.want((), texts=[*map(year_file, years), *map(tag_years_file, tags)])
    pages = [INDEX, ARCHIVE_INDEX, TAGS_INDEX]
    for year in years:
        pages += [year_path(year), *map(month_path, index.dates.months(year))]
    for tag in tags:
        pages += [tag, tag_years_path(tag), *(tag_year_path(tag, y) for y in index.tags.years(tag))]
    return [page for page, there in listings_existing(index, pages).items() if there]


def listing_exists(index: SiteIndex, page: str) -> bool:
    """Whether the listing page `page` has anything to list."""
    if page == INDEX:
        return True  # the front page stays when the last article goes: the site is still there
    if page == ARCHIVE_INDEX:
        return index.total > 0
    if page == TAGS_INDEX:
        return index.total > 0  # the header links it from every page: there, tags or not
    if page.startswith("archive/"):
        year, month = period_of(page)
        return year in index.dates.years and (
            month is None or f"{year}/{month}" in index.dates.months(year)
        )
    return _tag_listing_exists(index, page)


def _tag_listing_exists(index: SiteIndex, page: str) -> bool:
    """Whether a tag's own page, one of its years' or that of every year lists anything."""
    tag, tag_year = tag_of(page)
    years = index.tags.years(tag)
    if tag_year is None and not is_every_year(page):
        return bool(years)
    if listed_whole(sum(years.values())):
        return False
    return tag_year in years if tag_year is not None else len(years) > TAG_YEARS_SHOWN


def _pages_of_years(tag: str, years: Iterable[int]) -> set[str]:
    """The pages of a tag's `years` and of them all."""
    return {tag_years_path(tag), *(tag_year_path(tag, year) for year in years)}


def turning_tag_pages(index: SiteIndex, entries: Iterable[Entry]) -> set[str]:
    """The pages of every year of each tag that `entries` (versions gone and new) may carry
    across the articles its page lists (`listed_whole`), where its years' pages appear or go
    together: those of years no entry is of as well (`listing_pages` has the entries' own).
    The tags' counts are read together first."""
    touching: dict[str, int] = {}
    for entry in entries:
        if not entry.is_page:
            for page in {page for tag in entry.tags for page in index.tags.pages_of(tag)}:
                touching[page] = touching.get(page, 0) + 1
    index.want((), texts=[tag_years_file(page) for page in touching if index.tags.has(page)])
    pages = set()
    for tag, moved in touching.items():
        years = index.tags.years(tag)
        count = sum(years.values())
        if listed_whole(count - moved) != listed_whole(count + moved):
            pages |= _pages_of_years(tag, years)
    return pages


def tag_pages_listed_whole(index: SiteIndex) -> set[str]:
    """The pages of each tag whose own page lists every article it has, which listings laid
    out before `LISTINGS_LAYOUT` 2 wrote otherwise: its own, which linked pages of its years,
    and those (each tag's counts read together)."""
    tags = index.tags.pages
    index.want((), texts=[tag_years_file(tag) for tag in tags])
    pages = set()
    for tag in tags:
        years = index.tags.years(tag)
        if listed_whole(sum(years.values())):
            pages |= {tag, *_pages_of_years(tag, years)}
    return pages


def _newest_years(index: SiteIndex, tag: str) -> list[int]:
    """The years of a tag whose articles its page shows: the newest, up to `NEWEST` articles."""
    shown, years = 0, []
    for year, count in sorted(index.tags.years(tag).items(), reverse=True):
        if shown >= NEWEST:
            break
        years.append(year)
        shown += count
    return years


def listing_reads(index: SiteIndex, pages: Iterable[str]) -> list[str]:
    """The index files that rendering `pages` reads, to be fetched together (those that tell
    whether each lists anything among them)."""
    pages = list(pages)
    reads = _existence_reads(pages)
    for page, there in listings_existing(index, pages).items():
        if page in (INDEX, ARCHIVE_INDEX, TAGS_INDEX) or not there:
            continue
        if page.startswith("archive/"):
            year, month = period_of(page)
            reads.append(year_file(year) if month is None else month_file(f"{year}/{month}"))
            continue
        if is_every_year(page):
            continue  # the tag's years, read by `listing_exists`
        tag, tag_year = tag_of(page)
        for listed in [tag_year] if tag_year is not None else _newest_years(index, tag):
            reads.append(tag_year_file(tag, listed))
    return reads


def _tag_newest(index: SiteIndex, tag: str) -> list[Listed]:
    """A tag's newest `NEWEST` articles, newest first, from its newest years."""
    newest = [
        row
        for y in _newest_years(index, tag)
        for row in index.rows.newest_of(tag_year_file(tag, y), NEWEST)
    ]
    return [entry for _path, entry in newest[:NEWEST]]


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
        term_feeds: Sequence[str] = (),
    ) -> None:
        """`term_feeds`: Hugo's taxonomies (`SiteSettings.old_term_feeds`) whose feeds the
        tags' pages have beside them (`TermFeeds`)."""
        self._theme = theme
        self._site = site
        self._href = href
        self._absolute = absolute
        self._term_feeds = TermFeeds(
            term_feeds, site["title"], absolute=absolute, tag_newest=_tag_newest
        )

    def write(
        self,
        files: SiteWriter,
        index: SiteIndex,
        pages: Collection[str],
        *,
        whole: Collection[str] = (),
    ) -> None:
        """Rewrite `pages` from `index`, as it laid out its crowded listings' parts
        (`SiteIndex.lay_out`); a page that lists nothing any more is removed. The pages of a
        crowded listing's older parts are rewritten as laying them out changed them
        (`repaged`), or every one of them for a page in `whole` (changed by another write)."""
        # The pages of parts to write or remove, by listing page: the listing's parts, those
        # whose pages change, and those that had no page (`SiteIndex.unpaged`).
        work: dict[str, tuple[list[int], list[int], set[int]]] = {}
        every_part: list[str] = []  # the rows of each part of a listing rendered whole
        for page in pages:
            if (listing := listing_of_page(page)) is not None:
                parts = index.rows.listing_parts(listing) or []
                changed = set(parts[:-1]) if page in whole else index.rows.repaged(listing)
                work[page] = (parts, sorted(changed), index.rows.unpaged(listing))
                every_part += index.rows.part_files(listing) if page in whole else []
        # A tag gone has its term feeds go with its page; with the tags' page, the feed of
        # each taxonomy's terms (`/tags/index.xml`) is written.
        gone_feeds = self._term_feeds.gone(index, pages)
        term_lists = self._term_feeds.lists(pages)
        # Announced together: a part's page is read only when its part splits or empties.
        files.want(texts=every_part, oids=[*pages, *term_lists, *chain(*gone_feeds.values()), *(
            part_page(page, n) for page, (_p, numbers, unpaged) in work.items()
            for n in numbers if n not in unpaged
        )])  # fmt: skip
        for page in sorted(pages):
            if listing_exists(index, page):
                files.put(page, self._render(index, page))
                for path, feed in self._term_feeds_of(index, page).items():
                    files.put(path, feed, unread=True)  # a new row every time it is written
            else:
                files.remove(page)
                for path in gone_feeds.get(page, ()):
                    files.remove(path)
            for path in term_lists if page == TAGS_INDEX else ():
                files.put(path, self._term_feeds.of_terms(index, path))
            parts, numbers, unpaged = work.get(page, ([], [], set()))
            for number in numbers:
                if number in parts[:-1]:
                    rendered = self._render_part(index, page, number)
                    files.put(part_page(page, number), rendered, unread=number in unpaged)
                elif number not in unpaged:  # gone, or now the newest, which `page` shows
                    files.remove(part_page(page, number))

    def _term_feeds_of(self, index: SiteIndex, page: str) -> dict[str, bytes]:
        """For a tag's own page, its feeds at Hugo's addresses (`TermFeeds.of_tag`); none for
        another."""
        tag, year = tag_of(page) if page.startswith("tags/") else (None, None)
        if tag != page or year is not None:
            return {}
        return self._term_feeds.of_tag(index, tag)

    def _render_part(self, index: SiteIndex, page: str, number: int) -> bytes:
        """The page of one of the older parts of the listing shown on `page`."""
        if page.startswith("archive/"):
            return self._month_page(index, page, number=number)
        return self._tag_page(index, page, number=number)

    def _render(self, index: SiteIndex, page: str) -> bytes:
        site = self._site
        if page == INDEX:
            return self._theme.render(
                "index.html", site=site, entries=self._rows(e for _p, e in index.newest),
                archive={"href": self._href(ARCHIVE_INDEX), "count": index.total},
            )  # fmt: skip
        if page == ARCHIVE_INDEX:
            return self._theme.render(
                "archive.html", site=site, url=self._absolute(page), years=self._years(index)
            )
        if page == TAGS_INDEX:
            tags = sorted(index.tags.pages, key=lambda tag: index.tags.name(tag).lower())
            return self._theme.render(
                "tags.html", site=site, url=self._absolute(page),
                tags=[{"name": index.tags.name(tag), "href": self._href(tag)} for tag in tags],
            )  # fmt: skip
        if page.startswith("archive/"):
            year, month = period_of(page)
            if month is None:
                return self._theme.render(
                    "year.html", site=site, url=self._absolute(page), year=year,
                    months=self._months(index, year), archive={"href": self._href(ARCHIVE_INDEX)},
                )  # fmt: skip
            return self._month_page(index, page)
        return self._tag_page(index, page)

    def _month_page(self, index: SiteIndex, page: str, *, number: int | None = None) -> bytes:
        """A month's page (`archive/YYYY/MM/index.html`), or the page of one of its older
        parts (`number`)."""
        _archive, year, month, _file = page.split("/")
        listed, pager = self._paged(index, page, number)
        return self._with_pager(
            "month.html", pager, site=self._site, url=self._absolute(_shown_at(page, number)),
            period=f"{_MONTHS[int(month) - 1]} {year}", entries=self._rows(listed),
            archive={"href": self._href(ARCHIVE_INDEX)},
            year={"href": self._href(year_path(year)), "name": year},
        )  # fmt: skip

    def _with_pager(
        self, template: str, pager: Mapping[str, str | None] | None, **context: Any
    ) -> bytes:
        """`template` rendered with `pager`, the links to the other pages of a listing in
        parts, shown whether the template shows them or not: a theme's `month.html` or
        `tag.html` made before listings had parts (without `pager.html`) would leave a crowded
        month's older articles on pages nothing links, so the theme's `pager.html` is then
        added before `</body>`."""
        page = self._theme.render(template, pager=pager, **context)
        hrefs = [href for href in (pager or {}).values() if href]
        if all(f'href="{escape(href)}"'.encode() in page for href in hrefs):
            return page
        links = self._theme.render("pager.html", pager=pager, **context).strip() + b"\n"
        end = page.rfind(b"</body>")
        return page[:end] + links + page[end:] if end >= 0 else page + links

    def _paged(
        self, index: SiteIndex, page: str, number: int | None
    ) -> tuple[list[Listed], dict[str, str | None] | None]:
        """The rows a month's or a tag's year's `page` shows, newest first, and the links to
        the pages beside it when its listing is in parts (else None): all its rows, or its
        newest part's; for `number`, the rows of that older part."""
        listing = listing_of_page(page)
        if listing is None:
            raise ValueError(f"{page} is not a month's or a tag's year's page")
        numbers = index.rows.listing_parts(listing)
        if numbers is None:
            return [entry for _path, entry in index.rows.listing(listing)], None
        at = numbers.index(number) if number is not None else len(numbers) - 1
        older = part_page(page, numbers[at - 1]) if at > 0 else None
        newer = None
        if at + 1 < len(numbers):
            newer = page if at + 1 == len(numbers) - 1 else part_page(page, numbers[at + 1])
        rows = index.rows.part_rows(listing, numbers[at])
        return [entry for _path, entry in rows], {
            "older": self._href(older) if older else None,
            "newer": self._href(newer) if newer else None,
        }

    def _tag_page(self, index: SiteIndex, page: str, *, number: int | None = None) -> bytes:
        """A tag's own page (its newest articles and years), one year of it (its articles, and
        a link to the tag's page) or of one of that year's older parts (`number`), or the page
        of every year of it."""
        tag, year = tag_of(page)
        if is_every_year(page):
            # The years alone, as in the archive's index: it changes when a year appears or goes.
            return self._theme.render(
                "tag_years.html", site=self._site, tag=index.tags.name(tag),
                url=self._absolute(page), tag_href=self._href(tag),
                years=[{"year": y, "href": self._href(tag_year_path(tag, y))}
                       for y in sorted(index.tags.years(tag), reverse=True)],
            )  # fmt: skip
        pager = None
        if year is not None:
            listed, pager = self._paged(index, page, number)
        else:
            listed = _tag_newest(index, tag)
        # A year's page links to the tag's page, not to the other years: their counts change
        # with articles this page does not list, and would leave it stale.
        counts = index.tags.years(tag)
        shown = year is None and not listed_whole(sum(counts.values()))
        years = sorted(counts.items(), reverse=True) if shown else []
        every_year = tag_years_path(tag) if len(years) > TAG_YEARS_SHOWN else None
        return self._with_pager(
            "tag.html", pager, site=self._site, tag=index.tags.name(tag),
            url=self._absolute(_shown_at(page, number)), year=year, entries=self._rows(listed),
            tag_href=self._href(tag), count=index.tags.count(tag),
            years=[{"year": y, "href": self._href(tag_year_path(tag, y)), "count": n}
                   for y, n in years[:TAG_YEARS_SHOWN]],
            every_year=self._href(every_year) if every_year else None,
        )  # fmt: skip

    def _years(self, index: SiteIndex) -> list[dict[str, Any]]:
        # The years alone, without their counts: then a publish changes the archive's index
        # only when a year appears or goes, not every time (each year's page counts its months).
        return [
            {"year": year, "href": self._href(year_path(year))}
            for year in sorted(index.dates.years, reverse=True)
        ]

    def _months(self, index: SiteIndex, year: str) -> list[dict[str, Any]]:
        return [
            {"name": _MONTHS[int(month[-2:]) - 1], "href": self._href(month_path(month)),
             "count": count}
            for month, count in sorted(index.dates.months(year).items(), reverse=True)
        ]  # fmt: skip

    def _rows(self, entries: Iterable[Listed]) -> list[dict[str, Any]]:
        return [
            {
                "title": entry.title,
                "href": self._href(page_path(entry.slug)),
                "date_iso": format_time(entry.date),
                "date_human": human_date(entry.date),
                "description": entry.description,
            }
            for entry in entries
        ]
