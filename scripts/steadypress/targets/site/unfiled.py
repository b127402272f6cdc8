"""Entries of articles and URLs a run's batches leave out of their files for its last write to
file (`index.py`): each batch but the last writes its own as one new file,
`.steadypress/unfiled/NAME.json`, which the summary names, and the last files them all.

The files of articles and URLs are filed by a hash of the path, while a first build's batches
go by date: each batch of 500 rewrote some 470 of each, two disk blocks apiece at 10^5
articles. Now an article's entry is written in its batch's unfiled file, and each file of
articles and URLs once a run (once every `FILE_AT_MOST` articles of a larger one): a first
build of 10^5 wrote 2,866 MB to the disk, and 1,995 MB since. A lookup reads the entries of
the unfiled files the summary names, a later file's over an earlier's, before the files of
articles and URLs; a run that dies leaves them to the next write, which files them. An
unfiled file is named by a digest of its bytes, so that one read is the same file wherever
its name is met again, and a run keeps those it read or wrote (`UnfiledCache`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from steadypress.targets.site.files import SiteWriter, unreadable
from steadypress.targets.site.indexfiles import INDEX_FOLDER, dumps
from steadypress.targets.site.summary import INDEX_VERSION

__all__ = ["FILE_AT_MOST", "UNFILED", "EntryChanges", "UnfiledCache", "unfiled_file"]

UNFILED = f"{INDEX_FOLDER}/unfiled"
# The most entries of articles the unfiled files hold before a batch files them all anyway: a
# run keeps them in memory, and filing them rewrites the files of articles and URLs they fall
# in (nearly all of them, past a few times as many entries as there are files).
FILE_AT_MOST = 25_000


def unfiled_file(name: str) -> str:
    return f"{UNFILED}/{name}.json"


@dataclass
class EntryChanges:
    """Entries changed, by key: an article's (its path -> its entry's JSON; None: gone) and a
    URL's (its site path -> the articles that use it; None: none), with the file each was read
    from (for a message naming it, when one cannot be decoded)."""

    articles: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    urls: dict[str, list[str] | None] = field(default_factory=dict)
    read_from: dict[str, str] = field(default_factory=dict)  # article path -> file

    def __bool__(self) -> bool:
        return bool(self.articles or self.urls)

    def update(self, newer: EntryChanges) -> None:
        self.articles.update(newer.articles)
        self.urls.update(newer.urls)
        self.read_from.update(newer.read_from)

    def written(self) -> tuple[str, bytes]:
        """The unfiled file of these changes: its name, and its bytes."""
        data = dumps({"version": INDEX_VERSION, "articles": self.articles, "urls": self.urls})
        return hashlib.sha256(data).hexdigest()[:16], data

    @classmethod
    def parse(cls, file: str, raw: bytes) -> EntryChanges:
        """The changes an unfiled file holds; a file that is not one stops the write (`unreadable`)
        rather than be filed from a guess."""
        try:
            document = json.loads(raw)
            if document.get("version") != INDEX_VERSION:
                raise ValueError(f"not an unfiled file of version {INDEX_VERSION}")
            articles, urls = document["articles"], document["urls"]
            if not all(v is None or isinstance(v, dict) for v in articles.values()):
                raise ValueError("an article's entry is neither an object nor null")
            if not all(v is None or _paths(v) for v in urls.values()):
                raise ValueError("a URL's articles are neither a list of paths nor null")
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise unreadable(file, error) from None
        return cls(articles=articles, urls=urls, read_from=dict.fromkeys(articles, file))


def _paths(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(path, str) for path in value)


class UnfiledCache:
    """The unfiled files a run has read or written, by name (a name is a digest of the file's
    bytes): each is read once a run, not once a batch. Only those the summary still names are
    kept."""

    def __init__(self) -> None:
        self._held: dict[str, EntryChanges] = {}

    def merged(self, names: Iterable[str], files: SiteWriter) -> EntryChanges:
        """The entries of the unfiled files `names`, a later file's over an earlier's."""
        names = list(names)
        unread = [unfiled_file(name) for name in names if name not in self._held]
        if unread:
            files.want(texts=unread)
        self._held = {
            name: self._held[name] if name in self._held else self._read(name, files)
            for name in names
        }
        merged = EntryChanges()
        for name in names:
            merged.update(self._held[name])
        return merged

    def keep(self, name: str, changes: EntryChanges) -> EntryChanges:
        """An unfiled file about to be written: a later batch of the run need not read it.
        Returns its changes as read from it (each article's file named)."""
        file = unfiled_file(name)
        kept = EntryChanges(changes.articles, changes.urls, dict.fromkeys(changes.articles, file))
        self._held[name] = kept
        return kept

    @staticmethod
    def _read(name: str, files: SiteWriter) -> EntryChanges:
        file = unfiled_file(name)
        raw = files.read(file)
        if raw is None:
            raise unreadable(file, "the summary names it, and it is not there")
        return EntryChanges.parse(file, raw)
