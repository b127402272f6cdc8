"""The static site target: a page per article with its images, an index, an Atom feed, a
sitemap and a page per tag, in the theme's templates.

The site keeps its own manifest (`.steadypress-site.json`: which article owns which URL, at which
blob, with what the shared files list of it), so publishing is idempotent without asking the
ledger, and incremental: one article's new version rewrites its page, its images, the index, the
feed, the sitemap and the pages of its tags (old and new), built from the manifest without
reading any other article. The same content gives the same bytes, and identical bytes are not
written. Where the files go is behind `SiteFiles`: a directory for the embedded default, the
Pages branch on GitHub, with the same logic.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import posixpath
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape, unescape
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlparse

from markupsafe import Markup

from steadypress.content import ContentSource
from steadypress.errors import ConfigError, PermanentError, PublishError, TransientError
from steadypress.feeds import FeedEntry, atom_feed, sitemap
from steadypress.filelock import exclusive_lock
from steadypress.gitio import Git
from steadypress.ledger import PublishedRecord
from steadypress.options import text_settings
from steadypress.render import is_relative_reference, reading_minutes, render_markdown, slugify
from steadypress.targets.base import Receipt
from steadypress.theme import Theme
from steadypress.timefmt import format_time, parse_time

if TYPE_CHECKING:
    from steadypress.content import Article

__all__ = [
    "DirectorySiteFiles",
    "SiteAddress",
    "SiteFiles",
    "SiteSettings",
    "SiteTarget",
    "build_site",
    "parse_settings",
    "site_address",
]

MANIFEST = ".steadypress-site.json"
MANIFEST_VERSION = 2
INDEX = "index.html"
FEED = "feed.xml"
SITEMAP = "sitemap.xml"
STYLESHEET = "style.css"
# GitHub Pages runs Jekyll unless told not to; the site is already built.
NO_JEKYLL = ".nojekyll"
CNAME = "CNAME"
# In every page steadypress writes: how a file already on the site is told from one it did not
# write (an old blog's page, which it never overwrites or deletes).
GENERATOR = b'<meta name="generator" content="steadypress">'
# Folders whose pages the site writes itself: an article there would replace (and, when
# removed, delete) a generated page.
GENERATED_FOLDERS = frozenset({"tags", "assets"})
# File systems allow 255 bytes a name; the margin leaves room for temporary names.
MAX_URL_SEGMENT = 200
R = TypeVar("R")


@dataclass(frozen=True)
class SiteSettings:
    dir: str = "_site"
    branch: str = "gh-pages"
    title: str = "steadypress"
    # Where the site is served (absolute; feeds, sitemaps and canonical links need it), and the
    # path its links start with; each defaults from the other and from the backend.
    url: str = ""
    base_url: str = ""
    theme: str = ""  # a folder of the repository whose templates and stylesheet win
    language: str = "en"
    cname: str = ""  # a custom domain: written to CNAME, which GitHub Pages reads


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> SiteSettings:
    prefix = f"targets.{name}."
    settings = text_settings(SiteSettings, options, prefix=prefix, source=source)
    for key in ("dir", "theme"):
        value = getattr(settings, key)
        if ".." in PurePosixPath(value).parts or PurePosixPath(value).is_absolute():
            raise ConfigError(source, f"targets.{name}.{key}: must stay inside the repository")
    if settings.url and urlparse(settings.url).scheme not in ("http", "https"):
        raise ConfigError(source, f"targets.{name}.url: must be an http(s) URL")
    return settings


@dataclass(frozen=True)
class SiteAddress:
    """The absolute address of the site's root, and the path its own links start with."""

    url: str
    base_url: str


def site_address(settings: SiteSettings, *, default_url: str) -> SiteAddress:
    url = settings.url or default_url
    url = url if url.endswith("/") else url + "/"
    base = settings.base_url or (urlparse(url).path if settings.url else "/")
    return SiteAddress(url=url, base_url=base if base.endswith("/") else base + "/")


def build_site(
    name: str,
    files: SiteFiles,
    settings: SiteSettings,
    *,
    content_dir: str,
    repo: Path,
    default_url: str,
) -> SiteTarget:
    """The site target over `files`, reading images from `repo` and the theme from its folder."""
    content = ContentSource(Git(repo), content_dir)
    return SiteTarget(
        name,
        files,
        settings=settings,
        address=site_address(settings, default_url=default_url),
        content_dir=content_dir,
        theme=Theme(
            lambda name: _theme_file(content, f"{settings.theme}/{name}"), where=settings.theme
        )
        if settings.theme
        else Theme(),
        assets=content.asset,
    )


def _theme_file(content: ContentSource, path: str) -> bytes | None:
    found = content.asset(path, commit="HEAD")
    return found[1] if found is not None else None


class SiteWriter(Protocol):
    def read(self, path: str) -> bytes | None: ...

    def exists(self, path: str) -> bool:
        """Whether `path` holds a file, known without reading it where possible."""
        ...

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
        if self.root.is_symlink():  # not even the lock file is written through it
            raise PermanentError(f"refusing to write through the symlink {self.root}")
        with exclusive_lock(self.root / ".steadypress-site.lock"):
            return change(_DirectoryWriter(self.root))


class _DirectoryWriter:
    """The site's folder, never left: every path is checked to stay inside it, and no symlink
    on the way is followed (a committed `_site/x -> /etc` must not be written through)."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def _inside(self, path: str) -> Path:
        posix = PurePosixPath(path)
        if posix.is_absolute() or not posix.parts or any(p in ("..", ".") for p in posix.parts):
            raise PermanentError(f"refusing site path {path!r}: it would leave {self._root}")
        target = self._root
        for part in ("", *posix.parts):
            target = target / part if part else target
            if target.is_symlink():
                raise PermanentError(f"refusing to write through the symlink {target}")
        return target

    def read(self, path: str) -> bytes | None:
        try:
            return self._inside(path).read_bytes()
        except FileNotFoundError:
            return None

    def exists(self, path: str) -> bool:
        return self._inside(path).is_file()

    def put(self, path: str, data: bytes) -> None:
        if self.read(path) == data:
            return
        # Write then rename: a process killed mid-write leaves the old file or the new, never half.
        target = self._inside(path)
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
        target = self._inside(path)
        target.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            target.parent.rmdir()  # only when empty


@dataclass(frozen=True)
class _Entry:
    """What the manifest keeps of a published article: enough to rebuild the index, the feed,
    the sitemap and the tag pages without reading any article again."""

    blob: str
    slug: str
    title: str
    date: datetime
    updated: datetime
    description: str | None
    summary: str
    tags: tuple[str, ...]
    cover: str | None  # the site path of a published cover image, or an absolute URL
    assets: tuple[str, ...]  # site paths of the images published with it
    sha256: str
    aliases: tuple[str, ...] = ()  # site paths of the redirect pages from its old URLs

    def to_json(self) -> dict[str, Any]:
        # Every publication rewrites the manifest: what can be left out, is.
        fields = {
            "blob": self.blob,
            "slug": self.slug,
            "title": self.title,
            "date": format_time(self.date),
            "updated": format_time(self.updated),
            "description": self.description,
            "summary": self.summary,
            "tags": list(self.tags),
            "cover": self.cover,
            "assets": list(self.assets),
            "sha256": self.sha256,
            "aliases": list(self.aliases),
        }
        if self.summary == (self.description or ""):
            del fields["summary"]  # read back from the description
        if self.updated == self.date:
            del fields["updated"]
        return {key: value for key, value in fields.items() if value not in (None, [])}

    @classmethod
    def from_json(cls, fields: Mapping[str, Any]) -> _Entry:
        date = parse_time(fields["date"])
        # The manifest lives on a branch anyone with push access can edit: a path in it decides
        # what a later publish deletes, so each must name a file of the site, no more.
        slug, assets = str(fields["slug"]), tuple(map(str, fields.get("assets", ())))
        aliases = tuple(map(str, fields.get("aliases", ())))
        for path in (slug, *assets, *aliases):
            if not _is_site_path(path):
                raise ValueError(f"{path!r} is not a path inside the site")
        if not all(asset.startswith("assets/") for asset in assets):
            raise ValueError(f"assets outside assets/: {assets!r}")
        return cls(
            blob=fields["blob"],
            slug=slug,
            title=fields["title"],
            date=date,
            # Left out when they say nothing more (and absent from a manifest written before
            # feeds existed).
            updated=parse_time(fields["updated"]) if "updated" in fields else date,
            description=fields.get("description"),
            summary=fields.get("summary") or fields.get("description") or "",
            tags=tuple(fields.get("tags", ())),
            cover=fields.get("cover"),
            assets=assets,
            sha256=fields["sha256"],
            aliases=aliases,
        )


@dataclass(frozen=True)
class _Rendered:
    page: bytes
    entry: _Entry
    assets: dict[str, bytes]  # site path -> bytes


def _is_site_path(path: str) -> bool:
    parts = path.split("/")
    return all(part not in ("", ".", "..") and "\\" not in part for part in parts)


def _page_path(slug: str) -> str:
    return f"{slug}/index.html"


def _tag_path(tag: str) -> str:
    return f"tags/{slugify(tag) or 'tag'}/index.html"


def _summary(html: str, limit: int = 240) -> str:
    """The first words of an article as plain text, for feeds and lists with no description."""
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"


class SiteTarget:
    def __init__(
        self,
        name: str,
        files: SiteFiles,
        *,
        settings: SiteSettings,
        address: SiteAddress,
        content_dir: str,
        theme: Theme,
        assets: Callable[..., tuple[str, bytes] | None],
    ) -> None:
        self._name = name
        self._files = files
        self._settings = settings
        self._address = address
        self._content_prefix = content_dir.strip("/") + "/"
        self._theme = theme
        self._assets = assets
        self._stylesheet: bytes | None = None
        # What publish_batch wrote, by (path, blob): verify compares against it rather than
        # rendering every article (its images, Pygments, templates) a second time.
        self._written: dict[tuple[str, str], _Entry] = {}

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
        if parts[0] in GENERATED_FOLDERS:
            raise PermanentError(
                f"URL /{'/'.join(parts)}/ would replace pages the site generates under "
                f"/{parts[0]}/; choose another `slug` or folder"
            )
        if any(len(part.encode()) > MAX_URL_SEGMENT for part in parts):
            raise PermanentError(
                f"URL segment of {max(len(p.encode()) for p in parts)} bytes in {source!r}: "
                f"at most {MAX_URL_SEGMENT} (a folder name on disk)"
            )
        return "/".join(parts)

    def check(self, article: Article) -> str:
        """Everything `publish` would refuse, found without writing: the URL, the images, the
        render through the theme. Returns the article's URL path."""
        return self._render(article).entry.slug

    # -- rendering ----------------------------------------------------------------------------

    def _site(self) -> dict[str, str]:
        return {
            "title": self._settings.title,
            "url": self._address.url,
            "base_url": self._address.base_url,
            "language": self._settings.language,
        }

    def _href(self, site_path: str) -> str:
        return self._address.base_url + site_path.removesuffix("index.html")

    def _absolute(self, site_path_or_url: str) -> str:
        if "://" in site_path_or_url:
            return site_path_or_url
        return self._address.url + site_path_or_url.removesuffix("index.html")

    def _asset(self, article: Article, reference: str, assets: dict[str, bytes]) -> str:
        """Publish the image `reference` (relative to the article) and return its site path."""
        location = posixpath.normpath(
            posixpath.join(
                posixpath.dirname(article.path),
                reference.split("#", maxsplit=1)[0].split("?", maxsplit=1)[0],
            )
        )
        if location.startswith("../") or article.commit is None:
            raise PermanentError(f"image {reference!r} is outside the repository")
        found = self._assets(location, commit=article.commit)
        if found is None:
            raise PermanentError(
                f"image {reference!r} not found: no file {location} in commit {article.commit[:12]}"
            )
        oid, data = found
        stem, dot, extension = posixpath.basename(location).rpartition(".")
        name = f"{slugify(stem) or 'image'}{dot}{slugify(extension)}" if dot else slugify(extension)
        site_path = f"assets/{oid[:16]}/{name}"
        assets[site_path] = data
        return site_path

    def _render(self, article: Article) -> _Rendered:
        slug = self.slug_of(article)
        assets: dict[str, bytes] = {}
        body = render_markdown(
            article.body,
            image_src=lambda src: self._address.base_url + self._asset(article, src, assets),
        )
        cover = article.cover_image
        if cover and is_relative_reference(cover):
            cover = self._asset(article, cover, assets)
        date = _date_of(article)
        tags = [{"name": tag, "href": self._href(_tag_path(tag))} for tag in article.tags]
        url = self._absolute(_page_path(slug))
        page = self._theme.render(
            "article.html",
            site=self._site(),
            article={
                "title": article.title,
                "description": article.description,
                "date_iso": format_time(date),
                "date_human": _human(date),
                "reading_minutes": reading_minutes(article.body),
                "tags": tags,
                "cover": (self._href(cover) if cover and not urlparse(cover).scheme else cover),
                "cover_absolute": self._absolute(cover) if cover else None,
                "url": url,
                "canonical": article.canonical_url or url,
                # Rendered by markdown-it from the author's own article: trusted, as DESIGN says.
                "body": Markup(body),  # noqa: S704
            },
        )
        entry = _Entry(
            blob=article.blob,
            slug=slug,
            title=article.title,
            date=date,
            updated=article.updated or date,
            description=article.description,
            summary=article.description or _summary(body),
            tags=article.tags,
            cover=cover,
            assets=tuple(sorted(assets)),
            sha256=hashlib.sha256(page).hexdigest(),
            aliases=tuple(sorted(redirects := self._redirects(article, url))),
        )
        return _Rendered(page=page, entry=entry, assets={**assets, **redirects})

    def _redirects(self, article: Article, url: str) -> dict[str, bytes]:
        """A page at each old URL of the article that sends readers (and search engines, by
        the canonical link) to where it is now."""
        pages = {}
        for alias in article.aliases:
            relative = alias.removeprefix(self._address.base_url).lstrip("/")
            path = relative if relative.endswith(".html") else f"{relative.rstrip('/')}/index.html"
            if not relative or not _is_site_path(path) or path.split("/")[0] in GENERATED_FOLDERS:
                raise PermanentError(f"alias {alias!r} is not a path this site can hold")
            target = escape(url, quote=True)
            pages[path] = (
                f'<!doctype html>\n<html lang="{escape(self._settings.language, quote=True)}">'
                f'<head><meta charset="utf-8">{GENERATOR.decode()}'
                f'<meta http-equiv="refresh" content="0; url={target}">'
                f'<link rel="canonical" href="{target}"><title>Moved</title></head>\n'
                f'<body><p>This page has moved to <a href="{target}">{target}</a>.</p></body>'
                "</html>\n"
            ).encode()
        return pages

    def _list(self, entries: Iterable[_Entry]) -> list[dict[str, Any]]:
        ordered = sorted(entries, key=lambda entry: (-entry.date.timestamp(), entry.slug))
        return [
            {
                "title": entry.title,
                "href": self._href(_page_path(entry.slug)),
                "date_iso": format_time(entry.date),
                "date_human": _human(entry.date),
                "description": entry.description,
            }
            for entry in ordered
        ]

    def _write_shared(
        self, files: SiteWriter, manifest: Mapping[str, _Entry], tags: Iterable[str]
    ) -> None:
        """The files that list articles: the index, the feed, the sitemap, and the pages of
        `tags` (the tags of the article that changed, before and after)."""
        site = self._site()
        entries = list(manifest.values())
        files.put(INDEX, self._theme.render("index.html", site=site, entries=self._list(entries)))
        files.put(FEED, atom_feed(title=self._settings.title, url=self._address.url, entries=[
            FeedEntry(
                title=entry.title, url=self._absolute(_page_path(entry.slug)),
                published=entry.date, updated=entry.updated, summary=entry.summary,
                tags=entry.tags, cover=self._absolute(entry.cover) if entry.cover else None,
            )
            for entry in entries
        ]))  # fmt: skip
        by_tag: dict[str, list[_Entry]] = {}
        for entry in entries:
            for tag in entry.tags:
                by_tag.setdefault(_tag_path(tag), []).append(entry)
        pages: list[tuple[str, datetime | None]] = [
            (self._address.url, max((e.updated for e in entries), default=None))
        ]
        pages += [(self._absolute(_page_path(e.slug)), e.updated) for e in entries]
        pages += [(self._absolute(path), max(e.updated for e in tagged))
                  for path, tagged in by_tag.items()]  # fmt: skip
        files.put(SITEMAP, sitemap(pages))
        for path in sorted({_tag_path(tag) for tag in tags}):
            tagged = by_tag.get(path)
            if not tagged:
                files.remove(path)
                continue
            name = min(tag for entry in tagged for tag in entry.tags if _tag_path(tag) == path)
            files.put(path, self._theme.render(
                "tag.html", site=site, tag=name, url=self._absolute(path),
                entries=self._list(tagged),
            ))  # fmt: skip

    def _put_static(self, files: SiteWriter) -> None:
        if self._stylesheet is None:
            self._stylesheet = self._theme.stylesheet()
        files.put(STYLESHEET, self._stylesheet)
        files.put(NO_JEKYLL, b"")
        if self._settings.cname:
            files.put(CNAME, f"{self._settings.cname}\n".encode())

    # -- the Target protocol ------------------------------------------------------------------

    def publish(self, article: Article, previous: PublishedRecord | None) -> Receipt:
        (result,) = self.publish_batch([(article, previous)])
        if isinstance(result, PublishError):
            raise result
        return result

    def verify(self, article: Article, receipt: Receipt) -> None:
        (problem,) = self.verify_batch([(article, receipt)])
        if problem is not None:
            raise problem

    def publish_batch(
        self, work: Sequence[tuple[Article, PublishedRecord | None]]
    ) -> list[Receipt | PublishError]:
        """Publish several articles in one write: their pages and images, and the shared files
        (index, feed, sitemap, manifest, tag pages) once for all of them. An article that cannot
        be published (a missing image, a URL already taken) fails alone."""
        results: list[Receipt | PublishError] = []
        batch: list[tuple[int, Article, _Rendered]] = []
        for index, (article, _previous) in enumerate(work):
            try:
                rendered = self._render(article)
            except PublishError as error:
                results.append(error)
                continue
            batch.append((index, article, rendered))
            slug = rendered.entry.slug
            results.append(Receipt(url=self._absolute(_page_path(slug)), id=slug))

        def change(files: SiteWriter) -> dict[int, PublishError]:
            manifest = _read_manifest(files)
            owners = {entry.slug: path for path, entry in manifest.items()}
            refused: dict[int, PublishError] = {}
            changed = False
            tags: set[str] = set()
            replaced: list[_Entry] = []
            for index, article, rendered in batch:
                entry = rendered.entry
                old = manifest.get(article.path)
                refusal = _refusal(files, owners, article.path, entry, old)
                if refusal is None and old is not None and old.slug != entry.slug:
                    files.remove(_page_path(old.slug))
                    owners.pop(old.slug, None)
                refusal = refusal or _write_article(files, rendered)
                if refusal is not None:
                    refused[index] = refusal
                    continue
                if old != entry:
                    changed = True
                    manifest[article.path] = entry
                    owners[entry.slug] = article.path
                    tags.update(entry.tags, old.tags if old else ())
                    replaced.extend([old] if old else [])
            self._put_static(files)
            if changed:
                self._write_listings(files, manifest, tags, replaced)
            return refused

        if batch:
            refused = self._files.apply(
                change,
                texts=[MANIFEST],
                oids=[INDEX, FEED, SITEMAP, STYLESHEET, NO_JEKYLL, *{
                    path
                    for _index, _article, rendered in batch
                    for path in (_page_path(rendered.entry.slug), *rendered.assets,
                                 *map(_tag_path, rendered.entry.tags))
                }],
            )  # fmt: skip
            for index, refusal in refused.items():
                results[index] = refusal
            for index, article, rendered in batch:
                if index not in refused:
                    self._written[article.path, article.blob] = rendered.entry
        return results

    def verify_batch(self, work: Sequence[tuple[Article, Receipt]]) -> list[TransientError | None]:
        """Read the pages and the manifest back in one read: each page must hold what was
        rendered, and the manifest must list each version."""
        expected = {article.path: self._expected(article) for article, _receipt in work}
        pages = [_page_path(written.slug) for written in expected.values()]
        found, manifest = self._files.apply(
            lambda files: ({page: files.read(page) for page in pages}, _read_manifest(files)),
            texts=[*pages, MANIFEST],
        )
        problems: list[TransientError | None] = []
        for article, _receipt in work:
            slug, digest = expected[article.path].slug, expected[article.path].sha256
            page = found.get(_page_path(slug))
            entry = manifest.get(article.path)
            if page is None or hashlib.sha256(page).hexdigest() != digest:
                problems.append(
                    TransientError(f"/{slug}/index.html does not hold what was written")
                )
            elif entry is None or entry.blob != article.blob:
                problems.append(TransientError("the site index does not list this version"))
            else:
                problems.append(None)
        return problems

    def _expected(self, article: Article) -> _Entry:
        """What publishing `article` wrote (or would write) to the site."""
        written = self._written.pop((article.path, article.blob), None)
        return written if written is not None else self._render(article).entry

    def _write_listings(
        self,
        files: SiteWriter,
        manifest: Mapping[str, _Entry],
        tags: Iterable[str],
        replaced: Iterable[_Entry],
    ) -> None:
        """After articles changed: the shared files, the images nobody uses any more, and the
        manifest."""
        self._write_shared(files, manifest, tags)
        for old in replaced:
            _remove_orphans(files, manifest, old)
        files.put(MANIFEST, _encode_manifest(manifest))

    def unpublish(self, path: str, previous: PublishedRecord | None) -> None:
        """Remove the article's page, its images, and its entries in the shared files."""

        def change(files: SiteWriter) -> None:
            manifest = _read_manifest(files)
            entry = manifest.pop(path, None)
            if entry is None:
                return
            files.remove(_page_path(entry.slug))
            self._write_listings(files, manifest, entry.tags, [entry])

        # The page is most likely at the slug made from its path; announcing it saves a read.
        try:
            likely_page = [_page_path(self._slug(self._path_slug_source(path)))]
        except PermanentError:
            likely_page = []
        self._files.apply(change, texts=[MANIFEST], oids=[INDEX, FEED, SITEMAP, *likely_page])


def _remove_orphans(
    files: SiteWriter, manifest: Mapping[str, _Entry], previous: _Entry | None
) -> None:
    """Images and redirect pages the previous version had that no article has any more."""
    if previous is None:
        return
    used = {path for entry in manifest.values() for path in (*entry.assets, *entry.aliases)}
    for path in (*previous.assets, *previous.aliases):
        if path not in used:
            files.remove(path)


def _refusal(
    files: SiteWriter, owners: Mapping[str, str], path: str, entry: _Entry, old: _Entry | None
) -> PermanentError | None:
    """Why the article may not take its URL: another article has it, or a file is there that
    steadypress did not write."""
    owner = owners.get(entry.slug, path)
    if owner != path:
        return PermanentError(f"URL /{entry.slug}/ is already used by {owner}")
    return _foreign_file(files, entry, old)


def _write_article(files: SiteWriter, rendered: _Rendered) -> PermanentError | None:
    """The article's own files; an error writing them fails this article only."""
    page = _page_path(rendered.entry.slug)
    try:
        files.put(page, rendered.page)
        for path, data in rendered.assets.items():
            files.put(path, data)
    except OSError as error:
        return PermanentError(f"{page} could not be written: {error.strerror}")
    return None


def _foreign_file(files: SiteWriter, entry: _Entry, old: _Entry | None) -> PermanentError | None:
    """Why the article may not be written: a file at its page that is not its own and that
    steadypress did not write. (An alias may replace such a file: the author named that very
    URL, which is how an old blog's page becomes a redirect to its new one.)"""
    mine = set() if old is None else {_page_path(old.slug)}
    for path in (_page_path(entry.slug),):
        if path not in mine and _written_by_someone_else(files, path):
            return PermanentError(
                f"{path} is already on the site and steadypress did not write it (a page of "
                "the old site?): steadypress never replaces such a file; remove it, or give the "
                "article another `slug`"
            )
    return None


def _written_by_someone_else(files: SiteWriter, path: str) -> bool:
    """A file already at `path` that steadypress did not write (no generator mark in it); read
    only when there is one, which on a site steadypress made alone there never is."""
    return files.exists(path) and GENERATOR not in (files.read(path) or b"")


# Spelled out rather than strftime("%B"), which follows the process locale: same input, same bytes.
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def _human(moment: datetime) -> str:
    return f"{moment.day} {_MONTHS[moment.month - 1]} {moment.year}"


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
        if document.get("version") not in (1, MANIFEST_VERSION):
            raise ValueError(f"unknown version {document.get('version')!r}")
        return {path: _Entry.from_json(fields) for path, fields in document["articles"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        # The site is left as it is: rewriting a manifest we could not read would forget pages.
        raise TransientError(
            f"{MANIFEST} in the site cannot be read ({error!r}); fix or remove it"
        ) from None


def _encode_manifest(manifest: Mapping[str, _Entry]) -> bytes:
    """One article per line, keys sorted: diffs of the Pages branch read well, and every line
    is json's C encoder's work (the manifest is rewritten by every publication)."""
    lines = [
        f"  {json.dumps(path)}: {json.dumps(entry.to_json(), sort_keys=True, ensure_ascii=False)}"
        for path, entry in sorted(manifest.items())
    ]
    articles = "{\n" + ",\n".join(lines) + "\n }" if lines else "{}"
    return f'{{"version": {MANIFEST_VERSION},\n "articles": {articles}}}\n'.encode()
