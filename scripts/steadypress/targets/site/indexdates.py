"""The site's articles in the order of their dates, as its index records them: the years and
months that have any (`years.json`, `years/YYYY.json`), counted as articles come and go, and
each article's older and newer neighbour, found reading no more than the months between."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.indexdocuments import IndexDocuments
from steadypress.targets.site.indexfiles import (
    YEARS,
    date_order,
    month_file,
    month_of,
    year_file,
)
from steadypress.targets.site.indextags import add_count
from steadypress.targets.site.manifest import Listed
from steadypress.targets.site.rows import ListingRows

__all__ = ["IndexDates", "Nav"]

# The articles a side of a change reads ahead (`want_beside`): its neighbour, and the one beside
# that, which the neighbour's page, relinked, links to.
_BESIDE = 2
# Years whose month counts are read together where the newest articles are looked for.
_YEARS_AT_ONCE = 4

# An article's older and newer neighbour, each as (slug, title), or (None, None) at an end.
Nav = tuple[tuple[str | None, str | None], tuple[str | None, str | None]]


class IndexDates:
    """The index's calendar and neighbours, over its documents (`IndexDocuments`)."""

    def __init__(self, store: IndexDocuments, files: SiteWriter, rows: ListingRows) -> None:
        self._store = store
        self._files = files
        self._rows = rows
        self._years: list[str] | None = None  # sorted; read when first wanted

    @property
    def years(self) -> list[str]:
        """The years that have articles, oldest first."""
        if self._years is None:
            listed = self._store.summary.legacy_years  # a version 3 summary names them itself
            if listed is None:
                raw = self._files.read(YEARS)
                document = None if raw is None else self._store.parse(YEARS, raw, "years", list)
                listed = [] if document is None else document["years"]
            self._years = sorted(map(str, listed))
        return self._years

    def months(self, year: str) -> dict[str, int]:
        """How many articles each month (`YYYY/MM`) of `year` has."""
        counts = self._store.section(year_file(year), "months")
        return {f"{year}/{month}": int(n) for month, n in counts.items()}

    def count(self, entry: Listed, step: int) -> None:
        """The counts of the entry's month moved by `step`, the years with it."""
        year, month = month_of(entry).split("/")
        months = self._store.edit(year_file(year), "months")
        add_count(months, month, step)
        if (year in self.years) != bool(months):
            self._years = sorted({*self.years} ^ {year})
            self._store.dirty.add(YEARS)

    def months_from(self, month: str, *, newer: bool) -> Iterator[str]:
        """The months that have articles, from `month` (included) on, towards the newer or the
        older; a year's month counts are read only when the search reaches it."""
        year = month.split("/", maxsplit=1)[0]
        years = sorted((y for y in self.years if (y > year) == newer or y == year),
                       reverse=not newer)  # fmt: skip
        for candidate in years:
            for found in sorted(self.months(candidate), reverse=not newer):
                if found == month or (found > month) == newer:
                    yield found

    def want_beside(self, entries: Iterable[tuple[str, Listed]]) -> None:
        """Fetch together, for each of these (path, entry) pairs, the months nearest its own
        on either side that hold as many articles as its neighbours and theirs are found in
        (`_BESIDE` a side), where its own month holds fewer: in a blog of a few articles a
        year, neighbours are months apart, and a month read a search at a time cost a request
        each on GitHub. Only the months of the years beside the entry's are looked at, whose
        files the first read fetched (`index_files`)."""
        wanted: set[str] = set()
        for path, entry in entries:
            key, month = date_order(entry), month_of(entry)
            year = int(month[:4])
            near = [f"{y:04d}" for y in range(year - 1, year + 2) if f"{y:04d}" in self.years]
            counts = {found: n for y in near for found, n in self.months(y).items() if n}
            for newer in (False, True):
                own = self._rows.beside(month_file(month), key, newer=newer)
                missing = _BESIDE - sum(1 for _ in itertools.islice(
                    (row for row in own if row[0] != path), _BESIDE))  # fmt: skip
                for candidate in sorted(counts, reverse=not newer):
                    if missing <= 0:
                        break
                    if (candidate > month) if newer else (candidate < month):
                        wanted.add(month_file(candidate))
                        missing -= counts[candidate]
        if wanted:
            self._store.want(wanted, ())

    def want_newest(self, count: int) -> None:
        """Fetch together the months that hold the `count` newest articles, newest first, the
        month counts of their years read a few years at a time: refilling the front page's
        newest after a removal walked them a month, a request, at a time."""
        years = sorted(self.years, reverse=True)
        months: list[str] = []
        found = 0
        for start in range(0, len(years), _YEARS_AT_ONCE):
            batch = years[start : start + _YEARS_AT_ONCE]
            self._store.want(map(year_file, batch), ())
            for year in batch:
                for month, held in sorted(self.months(year).items(), reverse=True):
                    if found >= count:
                        break
                    months.append(month)
                    found += held
            if found >= count:
                break
        self._store.want(map(month_file, months), ())

    def nav(self, path: str, entry: Listed) -> Nav:
        """The older and the newer article of `path` (at `entry`) as the index stands."""
        older, newer = (self._beside_row(path, entry, newer=side) for side in (False, True))
        return (
            (older[1].slug, older[1].title) if older else (None, None),
            (newer[1].slug, newer[1].title) if newer else (None, None),
        )

    def beside(self, path: str, entry: Listed) -> list[tuple[str, Listed]]:
        """The older and the newer article of `path` (at `entry`), as (path, entry) pairs."""
        found = []
        for newer in (False, True):
            row = self._beside_row(path, entry, newer=newer)
            if row is not None:
                found.append(row)
        return found

    def _beside_row(self, path: str, entry: Listed, *, newer: bool) -> tuple[str, Listed] | None:
        """The next article of the index in date order after (`newer`) or before `entry` (an
        article of the index, or a version just taken out of it): among the newest when it
        ranks among them (every newer one is there too), else in its month, else in the
        nearest month that has any."""
        key = date_order(entry)
        pick = min if newer else max
        summary = self._store.summary
        newest = summary.newest
        if newest and key >= date_order(newest[-1][1]):
            side = [row for row in newest if row[0] != path and (date_order(row[1]) > key) == newer]
            if side or newer or len(newest) == summary.total:
                return pick(side, key=lambda row: date_order(row[1])) if side else None
        for candidate in self.months_from(month_of(entry), newer=newer):
            for row in self._rows.beside(month_file(candidate), key, newer=newer):
                if row[0] != path:
                    return row
        return None
