"""The static site target: one HTML page per article and an index, newest first.

The site keeps its own manifest (`.steadypress-site.json`: which article owns which URL, at which
blob), so publishing is idempotent without asking the ledger: the same blob rendered again gives
the same bytes, and identical bytes are not written. Where the files go is behind `SiteFiles`: a
directory for the embedded default, a Pages branch later, with the same logic.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from steadypress import jsonfmt
from steadypress.errors import ConfigError, PermanentError, TransientError
from steadypress.filelock import exclusive_lock
from steadypress.ledger import PublishedRecord
from steadypress.options import text_settings
from steadypress.render import IndexEntry, render_index, render_page, slugify
from steadypress.targets.base import Receipt
from steadypress.timefmt import format_time, parse_time

if TYPE_CHECKING:
    from steadypress.config import Config, TargetConfig
    from steadypress.content import Article

__all__ = [
    "DirectorySiteFiles",
    "SiteFiles",
    "SiteSettings",
    "SiteTarget",
    "build_local",
    "parse_settings",
]

MANIFEST = ".steadypress-site.json"
INDEX = "index.html"
# GitHub Pages runs Jekyll unless told not to; the site is already built.
NO_JEKYLL = ".nojekyll"
R = TypeVar("R")


@dataclass(frozen=True)
class SiteSettings:
    dir: str = "_site"
    branch: str = "gh-pages"
    title: str = "steadypress"
    base_url: str = "/"


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> SiteSettings:
    prefix = f"targets.{name}."
    settings = text_settings(SiteSettings, options, prefix=prefix, source=source)
    if ".." in PurePosixPath(settings.dir).parts:
        raise ConfigError(source, f"targets.{name}.dir: must stay inside the repository")
    if not settings.base_url.endswith("/"):
        settings = replace(settings, base_url=settings.base_url + "/")
    return settings


def build_local(spec: TargetConfig, config: Config, repo: Path) -> SiteTarget:
    settings = parse_settings(spec.name, spec.options, config.source)
    return SiteTarget(
        spec.name,
        DirectorySiteFiles(repo / settings.dir),
        settings=settings,
        content_dir=config.content_dir,
    )


class SiteWriter(Protocol):
    def read(self, path: str) -> bytes | None: ...

    def put(self, path: str, data: bytes) -> None:
        """Make `path` hold `data`; nothing is written when it already does."""
        ...

    def remove(self, path: str) -> None: ...


class SiteFiles(Protocol):
    def apply(
        self,
        change: Callable[[SiteWriter], R],
        *,
        texts: Sequence[str] = (),
        oids: Sequence[str] = (),
    ) -> R:
        """Run `change` with exclusive, consistent access to the site; its writes land together.

        A backend that detects a concurrent writer runs `change` again on fresh files. `texts`
        and `oids` name the files `change` will read and put, so a remote backend can fetch
        what it needs in one request.
        """
        ...


class DirectorySiteFiles:
    """A site in a local directory; a lock file serialises executors on this machine."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def apply(
        self,
        change: Callable[[SiteWriter], R],
        *,
        texts: Sequence[str] = (),
        oids: Sequence[str] = (),
    ) -> R:
        with exclusive_lock(self.root / ".steadypress-site.lock"):
            return change(_DirectoryWriter(self.root))


class _DirectoryWriter:
    def __init__(self, root: Path) -> None:
        self._root = root

    def read(self, path: str) -> bytes | None:
        try:
            return (self._root / path).read_bytes()
        except FileNotFoundError:
            return None

    def put(self, path: str, data: bytes) -> None:
        if self.read(path) == data:
            return
        # Write then rename: a process killed mid-write leaves the old file or the new, never half.
        target = self._root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def remove(self, path: str) -> None:
        target = self._root / path
        target.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            target.parent.rmdir()  # only when empty


@dataclass(frozen=True)
class _Entry:
    blob: str
    slug: str
    title: str
    date: datetime
    description: str | None
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {
            "blob": self.blob,
            "slug": self.slug,
            "title": self.title,
            "date": format_time(self.date),
            "description": self.description,
            "sha256": self.sha256,
        }


def _page_path(slug: str) -> str:
    return f"{slug}/index.html"


class SiteTarget:
    def __init__(
        self, name: str, files: SiteFiles, *, settings: SiteSettings, content_dir: str
    ) -> None:
        self._name = name
        self._files = files
        self._settings = settings
        self._content_prefix = content_dir.strip("/") + "/"

    @property
    def name(self) -> str:
        return self._name

    def unavailable_reason(self) -> str | None:
        return None

    def slug_of(self, article: Article) -> str:
        """The article's stable URL path: its `slug`, else its path under content/ (not its title,
        so renaming an article's title never breaks links)."""
        return self._slug(article.slug or self._path_slug_source(article.path))

    def _path_slug_source(self, path: str) -> str:
        return path.removeprefix(self._content_prefix).removesuffix(".md")

    @staticmethod
    def _slug(source: str) -> str:
        parts = [slugify(part) for part in source.split("/")]
        if not all(parts):
            raise PermanentError(f"cannot make a URL from {source!r}")
        return "/".join(parts)

    def _render(self, article: Article) -> bytes:
        return render_page(
            title=article.title,
            body_markdown=article.body,
            date=_date_of(article),
            tags=article.tags,
            description=article.description,
            site_title=self._settings.title,
            home=self._settings.base_url,
        )

    def _url(self, slug: str) -> str:
        return f"{self._settings.base_url}{slug}/"

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        slug = self.slug_of(article)
        page = self._render(article)
        entry = _Entry(
            blob=article.blob,
            slug=slug,
            title=article.title,
            date=_date_of(article),
            description=article.description,
            sha256=hashlib.sha256(page).hexdigest(),
        )

        def change(files: SiteWriter) -> None:
            manifest = _read_manifest(files)
            for path, other in manifest.items():
                if other.slug == slug and path != article.path:
                    raise PermanentError(f"URL /{slug}/ is already used by {path}")
            old = manifest.get(article.path)
            if old is not None and old.slug != slug:
                files.remove(_page_path(old.slug))
            files.put(_page_path(slug), page)
            files.put(NO_JEKYLL, b"")
            if old != entry:
                manifest[article.path] = entry
                files.put(INDEX, self._index(manifest))
                files.put(MANIFEST, _encode_manifest(manifest))

        self._files.apply(change, texts=[MANIFEST], oids=[_page_path(slug), INDEX, NO_JEKYLL])
        return Receipt(url=self._url(slug), id=slug)

    def verify(self, article: Article, receipt: Receipt) -> None:
        slug = self.slug_of(article)
        expected = hashlib.sha256(self._render(article)).hexdigest()
        page, entry = self._files.apply(
            lambda files: (files.read(_page_path(slug)), _read_manifest(files).get(article.path)),
            texts=[_page_path(slug), MANIFEST],
        )
        if page is None or hashlib.sha256(page).hexdigest() != expected:
            raise TransientError(f"/{slug}/index.html does not hold what was written")
        if entry is None or entry.blob != article.blob:
            raise TransientError("the site index does not list this version")

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        """Remove the article's page and its index entry; the manifest says which page is its."""

        def change(files: SiteWriter) -> None:
            manifest = _read_manifest(files)
            entry = manifest.pop(path, None)
            if entry is None:
                return
            files.remove(_page_path(entry.slug))
            files.put(INDEX, self._index(manifest))
            files.put(MANIFEST, _encode_manifest(manifest))

        # The page is most likely at the slug made from its path; announcing it saves a read.
        try:
            likely_page = [_page_path(self._slug(self._path_slug_source(path)))]
        except PermanentError:
            likely_page = []
        self._files.apply(change, texts=[MANIFEST], oids=[INDEX, *likely_page])

    def _index(self, manifest: Mapping[str, _Entry]) -> bytes:
        entries = [
            IndexEntry(
                title=entry.title,
                url=self._url(entry.slug),
                date=entry.date,
                description=entry.description,
            )
            for entry in manifest.values()
        ]
        return render_index(entries, site_title=self._settings.title)


def _date_of(article: Article) -> datetime:
    # ContentSource fills a missing date from the commit; an Article built elsewhere may lack one.
    if article.date is None:
        raise PermanentError("no date to show")
    return article.date


def _read_manifest(files: SiteWriter) -> dict[str, _Entry]:
    raw = files.read(MANIFEST)
    if raw is None:
        return {}
    try:
        document = json.loads(raw)
        return {
            path: _Entry(
                blob=fields["blob"],
                slug=fields["slug"],
                title=fields["title"],
                date=parse_time(fields["date"]),
                description=fields["description"],
                sha256=fields["sha256"],
            )
            for path, fields in document["articles"].items()
        }
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        # The site is left as it is: rewriting a manifest we could not read would forget pages.
        raise TransientError(
            f"{MANIFEST} in the site cannot be read ({error!r}); fix or remove it"
        ) from None


def _encode_manifest(manifest: Mapping[str, _Entry]) -> bytes:
    document = {
        "version": 1,
        "articles": {path: entry.to_json() for path, entry in manifest.items()},
    }
    return (jsonfmt.dumps(document) + "\n").encode()
