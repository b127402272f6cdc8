"""The site index's tags: the page of each, the ways its articles spell it and how many articles
it has, kept in the summary (which pages, spelt which ways: it changes when a tag or a
spelling comes or goes) and in each tag's `years.json` (how many a year, and how many a
spelling where there are more ways than one: it changes with the tag's articles)."""

from __future__ import annotations

from collections.abc import Mapping

from steadypress.targets.site.files import SiteWriter, unreadable
from steadypress.targets.site.indexdocuments import IndexDocuments
from steadypress.targets.site.indexfiles import SUMMARY, tag_year_file, tag_years_file
from steadypress.targets.site.manifest import Entry, tag_path
from steadypress.targets.site.summary import Summary

__all__ = ["IndexTags", "add_count"]


class IndexTags:
    """The tags of the index whose files are `store` (read from `files`); `latin`: a tag is on
    the page that names it in Latin letters (`tag_path`)."""

    def __init__(self, store: IndexDocuments, files: SiteWriter, *, latin: bool) -> None:
        self._store = store
        self._files = files
        self._latin = latin
        # The name of each tag whose last article went in this index's changes, by its page:
        # its files named after it (Hugo's term feeds) go with the page.
        self._gone_names: dict[str, str] = {}
        # The pages the summary names each spelling on, for the summary they were read from:
        # asked for every tag of every article written, and a scan of all the tags each time
        # grew with the blog's tags (200 of them took 1 s of a first build of 10^4).
        self._spelt: tuple[Summary, dict[str, list[str]]] | None = None

    @property
    def _summary(self) -> Summary:
        return self._store.summary

    @property
    def pages(self) -> list[str]:
        return list(self._summary.tags)

    def has(self, tag_page: str) -> bool:
        """Whether `tag_page` is the page of a tag some article has."""
        return tag_page in self._summary.tags

    def years(self, tag_page: str) -> dict[int, int]:
        """How many articles of the tag each year has."""
        if tag_page not in self._summary.tags:
            return {}
        counts = self._store.section(tag_years_file(tag_page), "years")
        return {int(year): int(n) for year, n in counts.items()}

    def count(self, tag_page: str) -> int:
        """How many articles the tag of `tag_page` has (a read of its `years.json`)."""
        return sum(self.years(tag_page).values())

    def page(self, spelling: str) -> str:
        """The page of the tag `spelling` now (`tag_path`, as the site's settings spell it)."""
        return tag_path(spelling, latin=self._latin)

    def pages_of(self, spelling: str) -> set[str]:
        """The pages of the tag `spelling`: its page now (`tag_path`), and any the summary
        names it on that was named otherwise when its articles were written (`новости` on
        `tags/tag/`), which they leave as they are published again."""
        return {self.page(spelling), *self._spelt_on(spelling)}

    def _spelt_on(self, spelling: str) -> list[str]:
        """The tag pages the summary names `spelling` on."""
        summary = self._summary
        if self._spelt is None or self._spelt[0] is not summary:
            pages: dict[str, list[str]] = {}
            for page, names in summary.tags.items():
                for name in names:
                    pages.setdefault(name, []).append(page)
            self._spelt = summary, pages
        return list(self._spelt[1].get(spelling, ()))

    def rows_held(self, path: str, entry: Entry) -> dict[str, str]:
        """The tag page each of the entry's tags has its row on: the one the summary names
        the spelling on, or, when an earlier naming left it on two (articles moving to its
        page now one by one), the one whose year holds this article's row."""
        rows = self._store.rows
        held = {}
        for spelling in entry.tags:
            pages = self._spelt_on(spelling)
            if len(pages) > 1:
                listings = [tag_year_file(page, entry.date.year) for page in pages]
                self._files.want(texts=listings)
                for listing in listings:
                    rows.known(listing)  # its parts, if it is in parts
                files = [rows.file_holding(listing, entry) for listing in listings]
                pages = [
                    page for page, file in zip(pages, files, strict=True)
                    if path in self._store.section(file, "articles")
                ]  # fmt: skip
            held[spelling] = pages[0] if pages else self.page(spelling)
        return held

    def spellings(self, tag_page: str) -> dict[str, int]:
        """How many articles spell the tag of `tag_page` each way: as its `years.json` counts
        them, or, where that names no spellings, the one the summary names, on all its
        articles (as a summary before version 6 counted them, until the next write moves
        them)."""
        if self._summary.legacy_names is not None:
            return dict(self._summary.legacy_names.get(tag_page, {}))
        spellings = self._summary.tags.get(tag_page, ())
        if not spellings:
            return {}
        file = tag_years_file(tag_page)
        counted = self._store.spellings(file)
        if counted is not None:
            return counted
        if len(spellings) > 1:
            raise unreadable(file, f"it counts none of the spellings {list(spellings)}")
        return {spellings[0]: self.count(tag_page)}

    def name(self, tag_page: str) -> str:
        """A tag page is named by the smallest spelling of its tag among its articles."""
        return min(self._summary.tags[tag_page])

    def gone_name(self, tag_page: str) -> str | None:
        """The name of a tag whose last article went in this index's changes (None: another
        page, or one gone before)."""
        return self._gone_names.get(tag_page)

    def tally(
        self, entry: Entry, year: str, step: int, held: Mapping[str, str] | None = None
    ) -> None:
        """The counts of the entry's tags in `year`, moved by `step`: on each tag's page now,
        or on the page `held` says its row was on."""
        pages = {spelling: (held or {}).get(spelling) or self.page(spelling)
                 for spelling in entry.tags}  # fmt: skip
        for page in dict.fromkeys(pages.values()):
            names = self.spellings(page)  # before its years move: a count may be their sum
            add_count(self._store.edit(tag_years_file(page), "years"), year, step)
            named = min(names, default=None)
            for spelling in entry.tags:
                if pages[spelling] == page:
                    add_count(names, spelling, step)
            self._keep(page, names)
            if not names and named is not None:
                self._gone_names[page] = named

    def _keep(self, tag_page: str, names: Mapping[str, int]) -> None:
        """Record how many articles spell the tag of `tag_page` each way: which ways in the
        summary (rewritten only when they change), how many in the tag's `years.json` where
        there are more ways than one (else its years count them)."""
        spellings = tuple(sorted(names))
        if spellings != self._summary.tags.get(tag_page, ()):
            if spellings:
                self._summary.tags[tag_page] = spellings
            else:
                del self._summary.tags[tag_page]
            self._spelt = None
            self._store.dirty.add(SUMMARY)
        if self._summary.legacy_names is not None:
            self._summary.legacy_names[tag_page] = dict(names)
        else:
            self._store.keep_spellings(tag_years_file(tag_page), names if len(names) > 1 else None)

    def move_legacy_counts(self) -> bool:
        """Of a summary before version 6, which counted each spelling of each tag: the counts
        of the tags spelt more ways than one moved to their files. Whether there was one."""
        legacy = self._store.summary.legacy_names if self._store.summary_read else None
        if legacy is None:
            return False
        self._summary.legacy_names = None
        for page, names in legacy.items():
            if len(names) > 1:
                self._store.keep_spellings(tag_years_file(page), names)
        return True


def add_count(counts: dict[str, int], key: str, step: int) -> None:
    """Move the count of `key` by `step`; a count that reaches 0 goes."""
    counts[key] = counts.get(key, 0) + step
    if counts[key] <= 0:
        del counts[key]
