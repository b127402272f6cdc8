"""Why an article's version may not be written to the site: its URL another article's, a tag
spelled to share another's page, an old URL that is another article's page, or a file at its
page that steadypress did not write. Each is the article's own dead letter; the batch goes on."""

from __future__ import annotations

from collections.abc import Mapping

from steadypress.errors import PermanentError
from steadypress.slugs import same_tag
from steadypress.targets.site.files import SiteWriter
from steadypress.targets.site.index import SiteIndex
from steadypress.targets.site.manifest import Entry, made_by_steadypress, page_path
from steadypress.targets.site.sitemaps import address_of

__all__ = ["put_own", "why_refused", "written_by_someone_else"]


def why_refused(
    files: SiteWriter,
    index: SiteIndex,
    path: str,
    entry: Entry,
    old: Entry | None,
    *,
    batch_pages: Mapping[str, str],
) -> PermanentError | None:
    """Why the article may not take its URL: another article has it, or a file is there that
    steadypress did not write; or one of its old URLs is another article's (`batch_pages`:
    the pages of this batch's articles, by the path of each, which a redirect may not replace
    even where the index does not name them yet)."""
    page = page_path(entry.slug)
    others = [
        owner for owner in index.owners(page)
        if owner != path and not index.moved_from(owner, page)
    ]  # fmt: skip
    if others:
        return PermanentError(f"URL /{entry.slug}/ is already used by {others[0]}")
    for tag in entry.tags:
        spellings = index.tags.spellings(index.tags.page(tag))
        for spelling in old.tags if old is not None else ():
            spellings[spelling] = spellings.get(spelling, 0) - 1  # this article's own
        clash = next((s for s, n in spellings.items() if n > 0 and not same_tag(s, tag)), None)
        if clash is not None:
            return PermanentError(
                f"tag {tag!r} would share the page /{address_of(index.tags.page(tag))} with the "
                f"tag {clash!r} of other articles; spell one of them otherwise"
            )
    for alias in entry.aliases:
        holders = [*index.owners(alias), batch_pages.get(alias)]
        others = [holder for holder in holders if holder is not None and holder != path]
        if others:
            return PermanentError(
                f"alias /{alias.removesuffix('index.html')} is the URL of {others[0]}; a "
                "redirect never replaces another article's page: remove the alias"
            )
    return _foreign_file(files, entry, old)


def _foreign_file(files: SiteWriter, entry: Entry, old: Entry | None) -> PermanentError | None:
    """Why the article may not be written: a file at its page that is not its own and that
    steadypress did not write. (An alias may replace such a file: the author named that very
    URL, which is how an old blog's page becomes a redirect to its new one.)"""
    mine = set() if old is None else {page_path(old.slug)}
    for path in (page_path(entry.slug),):
        if path not in mine and written_by_someone_else(files, path):
            return PermanentError(
                f"{path} is already on the site and steadypress did not write it (a page of "
                "the old site?): steadypress never replaces such a file; remove it, or give the "
                "article another `slug`"
            )
    return None


def written_by_someone_else(files: SiteWriter, path: str) -> bool:
    """A file already at `path` that steadypress did not write (no generator mark in it); read
    only when there is one, which on a site steadypress made alone there never is."""
    return files.exists(path) and not made_by_steadypress(files.read(path) or b"")


def put_own(files: SiteWriter, path: str, data: bytes) -> bool:
    """Put `data` at `path` unless a file steadypress did not write is there; whether `path`
    is steadypress's. The file there is read only when it differs from `data` (a branch knows
    that from its blob id), and then asked for with the write's next read: on a site whose
    file this is, written by an earlier run, nothing is read."""
    if files.differs(path, data):
        if files.exists(path):
            files.want(texts=[path])
            if not made_by_steadypress(files.read(path) or b""):
                return False
        files.put(path, data, unread=True)
    return True
