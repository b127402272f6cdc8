"""What the site keeps of a published article (`Entry`), the URLs and names of the files the
site writes, and the reading of an earlier layout's single manifest (`.steadypress-site.json`),
which the first publish moves into the index (`index.py`)."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from steadypress.articles import article_stem
from steadypress.errors import PermanentError, TransientError
from steadypress.slugs import path_slug, tag_slug
from steadypress.targets.site.files import JOURNAL, LOCK, SET_ASIDE_JOURNAL, STAGED, SiteWriter
from steadypress.targets.site.sitemaps import SITEMAP, is_sitemap
from steadypress.timefmt import format_time, parse_time

if TYPE_CHECKING:
    from steadypress.articles import Article

__all__ = [
    "CNAME",
    "ENTRY_ONLY",
    "FEED",
    "GENERATED_FOLDERS",
    "GENERATOR",
    "GENERATOR_NOTE",
    "HUGO_FEED",
    "INDEX",
    "INDEXED_DIGITS",
    "MANIFEST",
    "MANIFEST_VERSION",
    "MAX_URL_SEGMENT",
    "NOT_FOUND",
    "NO_JEKYLL",
    "RESERVED_NAMES",
    "STYLESHEET",
    "TAGS_INDEX",
    "Entry",
    "Listed",
    "article_slug",
    "check_tags",
    "indexed_version",
    "is_reserved",
    "is_site_path",
    "made_by_steadypress",
    "marked",
    "page_path",
    "page_slug_source",
    "path_slug_source",
    "path_url_slug",
    "read_manifest",
    "redirect_file",
    "redirect_path",
    "tag_path",
    "url_slug",
]

MANIFEST = ".steadypress-site.json"
MANIFEST_VERSION = 2
INDEX = "index.html"
FEED = "feed.xml"
# Where Hugo serves a site's feed: a blog that moved from Hugo keeps it there too (`SiteFeed`).
HUGO_FEED = "index.xml"
# A year's folder of a tag's pages (`listingpaths.tag_year_path`).
_A_YEAR = re.compile(r"[0-9]{4}")
STYLESHEET = "style.css"
NOT_FOUND = "404.html"  # GitHub Pages serves it for any address with no page
TAGS_INDEX = "tags/index.html"
# GitHub Pages runs Jekyll unless told not to; the site is already built.
NO_JEKYLL = ".nojekyll"
CNAME = "CNAME"
# In every page steadypress writes: how a file already on the site is told from one it did not
# write (an old blog's page, which it never overwrites or deletes).
GENERATOR = b'<meta name="generator" content="steadypress">'
# What marks instead a page made from a theme's own template that has no such meta (one that
# extends nothing steadypress ships): else it would pass for another's, and never be replaced
# or relinked. A comment, which HTML allows after the document.
GENERATOR_NOTE = b"<!-- generator: steadypress -->\n"
# Folders whose pages the site writes itself: an article there would replace (and, when
# removed, delete) a generated page.
GENERATED_FOLDERS = frozenset({"tags", "assets", "sitemaps", "archive", ".steadypress"})
# The names at the site's root that the site writes or keeps itself: no article's page, image or
# redirect may be one, or a folder of that name (`/feed.xml/` made the feed a folder).
RESERVED_NAMES = GENERATED_FOLDERS | {
    INDEX, FEED, HUGO_FEED, STYLESHEET, NOT_FOUND, NO_JEKYLL, CNAME, MANIFEST, SITEMAP,
    "robots.txt",
    LOCK, JOURNAL, SET_ASIDE_JOURNAL, STAGED,
}  # fmt: skip


def is_reserved(name: str) -> bool:
    """Whether `name`, at the site's root, is one the site writes or keeps itself."""
    return name in RESERVED_NAMES or is_sitemap(name)


# File systems allow 255 bytes a name; the margin leaves room for temporary names.
MAX_URL_SEGMENT = 200
# What the index keeps of a digest or a git id (a page's SHA-256, `rendering.page_digest`; an
# article's blob id, `indexed_version`; the text the feed shows, `feed.py`): 64 bits, in hex.
INDEXED_DIGITS = 16


@dataclass(frozen=True)
class Listed:
    """What a listing keeps of an article (a month's and a tag's year's files in the index,
    the newest in its summary): enough to list it on the listing pages, put it in the feed and
    the sitemaps, and link it from its neighbours, without reading it again. Not what only its
    own file needs (`Entry`): each listing holds a row of every article it lists, read and
    written whole by each publish into it."""

    slug: str
    title: str
    date: datetime
    updated: datetime
    description: str | None
    summary: str
    tags: tuple[str, ...]
    cover: str | None  # the site path of a published cover image, or an absolute URL

    def to_json(self) -> dict[str, Any]:
        # A row is kept in several of the index's files: what can be left out, is.
        fields = {
            "slug": self.slug,
            "title": self.title,
            "date": format_time(self.date),
            "updated": format_time(self.updated),
            "description": self.description,
            "summary": self.summary,
            "tags": list(self.tags),
            "cover": self.cover,
        }
        if self.summary == (self.description or ""):
            del fields["summary"]  # read back from the description
        if self.updated == self.date:
            del fields["updated"]
        return {key: value for key, value in fields.items() if value not in (None, [])}

    @classmethod
    def from_json(cls, fields: Mapping[str, Any]) -> Listed:
        """A row; the fields only an `Entry` has (a listing written before rows were slimmed
        held whole entries) are passed over."""
        return cls(**_listed_fields(fields))


@dataclass(frozen=True)
class Entry(Listed):
    """What the site's index keeps of a published article in its own file: its row
    (`Listed`), and what removing or checking it needs: the version, the digest of its page,
    the images and redirect pages it uses."""

    blob: str
    assets: tuple[str, ...]  # site paths of the images published with it
    sha256: str
    aliases: tuple[str, ...] = ()  # site paths of the redirect pages from its old URLs
    # Site paths of its pages before its address changed (a `slug` edited, `transliterate`
    # turned on), each a redirect page to it while no other article takes that address.
    moved: tuple[str, ...] = ()
    # A page beside the articles (`Article.page`): in no listing, feed or neighbour's links.
    # (A month's row keeps its page's digest under `page`: this is named apart.)
    is_page: bool = False

    @property
    def listed(self) -> Listed:
        """The row of this article in a listing."""
        return Listed(**{f.name: getattr(self, f.name) for f in dataclasses.fields(Listed)})

    @property
    def stored(self) -> Entry:
        """This entry as its file keeps it (`to_json`), without the summary of its text."""
        return dataclasses.replace(self, summary=self.description or "")

    def to_json(self) -> dict[str, Any]:
        fields = {
            **super().to_json(),
            # The summary of the text is the newest rows' alone (the feed, the front page), who
            # keep their own: here it was half of each entry, in the file every push rewrites.
            "summary": None,
            "blob": self.blob,
            "assets": list(self.assets),
            "sha256": self.sha256,
            "aliases": list(self.aliases),
            "moved": list(self.moved),
            "is_page": self.is_page or None,
        }
        return {key: value for key, value in fields.items() if value not in (None, [])}

    @classmethod
    def from_json(cls, fields: Mapping[str, Any]) -> Entry:
        # The index lives on a branch anyone with push access can edit: a path in it decides
        # what a later publish deletes, so each must name a file of the site, no more.
        assets = tuple(map(str, fields.get("assets", ())))
        aliases = tuple(map(str, fields.get("aliases", ())))
        moved = tuple(map(str, fields.get("moved", ())))
        for path in (*assets, *aliases, *moved):
            if not is_site_path(path):
                raise ValueError(f"{path!r} is not a path inside the site")
        if not all(asset.startswith("assets/") for asset in assets):
            raise ValueError(f"assets outside assets/: {assets!r}")
        return cls(
            **_listed_fields(fields),
            blob=indexed_version(str(fields["blob"])),
            assets=assets,
            # An entry written before pages were known by 64 bits of their digest holds it whole.
            sha256=str(fields["sha256"])[:INDEXED_DIGITS],
            aliases=aliases,
            moved=moved,
            is_page=fields.get("is_page") is True,
        )


def indexed_version(blob: str) -> str:
    """What an entry keeps of the version of its article (its git blob id): 64 bits, enough
    that no accident repeats it. The whole id was a fifth of an entry's bytes, in the file of
    entries every push reads and rewrites; an entry written before holds it (read as these)."""
    return blob[:INDEXED_DIGITS]


# What an entry has that its row in a listing does not.
ENTRY_ONLY = frozenset(f.name for f in dataclasses.fields(Entry)) - frozenset(
    f.name for f in dataclasses.fields(Listed)
)


def _listed_fields(fields: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a `Listed` from a row or an entry of the index."""
    date = parse_time(fields["date"])
    slug = str(fields["slug"])
    if not is_site_path(slug):  # it names the page a later publish deletes
        raise ValueError(f"{slug!r} is not a path inside the site")
    return {
        "slug": slug,
        "title": fields["title"],
        "date": date,
        # Left out when they say nothing more (and absent from a manifest written before
        # feeds existed).
        "updated": parse_time(fields["updated"]) if "updated" in fields else date,
        "description": fields.get("description"),
        "summary": fields.get("summary") or fields.get("description") or "",
        "tags": tuple(fields.get("tags", ())),
        "cover": fields.get("cover"),
    }


def is_site_path(path: str) -> bool:
    """A relative path inside the site whose every name a file system can hold."""
    parts = path.split("/")
    return all(
        part not in ("", ".", "..") and "\\" not in part and len(part.encode()) <= MAX_URL_SEGMENT
        for part in parts
    )


def redirect_path(relative: str) -> str:
    """The file that answers the site's path `relative`: `old.html` itself, `old/` by its
    `old/index.html`."""
    return relative if relative.endswith(".html") else f"{relative.rstrip('/')}/index.html"


def redirect_file(relative: str) -> str | None:
    """The file a redirect page for the site's path `relative` (`old/`, `old.html`) is
    written to (`redirect_path`); None where none may stand: no path, one a file system cannot
    hold, or one among the files and folders the site writes itself. In `tags/`, a name no
    tag's page can have (Hugo's `tags/c++/`, `tags/go.html`) is free, and so is a path in a
    tag's folder that none of its files has (Hugo's pages of a tag, `tags/go/page/2/`)."""
    path = redirect_path(relative)
    if not relative.strip("/") or not is_site_path(path):
        return None
    parts = path.split("/")
    if not is_reserved(parts[0]):
        return path
    if parts[0] != "tags" or parts[1] == HUGO_FEED:  # the feed of the terms (`old_term_feeds`)
        return None
    if len(parts) == 2:
        return path if parts[1] != "index.html" else None  # a file beside the tags' folders
    if parts[2] == "index.html" and len(parts) == 3:
        return path if tag_slug(parts[1]) != parts[1] else None
    # In its folder a tag has its feed, the page of its years and a folder for each year.
    return None if parts[2] in (HUGO_FEED, "years") or _A_YEAR.fullmatch(parts[2]) else path


def article_slug(article: Article, content_dir: str, *, latin: bool = False) -> str:
    """The article's stable URL path: its `slug`, else its path under content/ (not its title,
    so renaming an article's title never breaks links); with `latin`, a name in another script
    spelled in Latin letters (`SiteSettings.transliterate`)."""
    if article.slug:
        return url_slug(article.slug, latin=latin)
    return path_url_slug(article.path, content_dir, latin=latin)


def path_url_slug(path: str, content_dir: str, *, latin: bool = False) -> str:
    """The URL path of an article at `path` that sets no `slug` of its own."""
    return url_slug(page_slug_source(path, content_dir), latin=latin)


def path_slug_source(path: str, content_dir: str) -> str:
    return article_stem(path.removeprefix(content_dir.strip("/") + "/"))


def page_slug_source(path: str, content_dir: str) -> str:
    """The path a page's URL is made of: an `index.md` is its folder's page, as Hugo serves a
    page bundle (`posts/trip/index.md` at /posts/trip/, its images beside it)."""
    source = path_slug_source(path, content_dir)
    folder, _, name = source.rpartition("/")
    return folder if folder and name == "index" else source


def url_slug(source: str, *, latin: bool = False) -> str:
    """The URL path made of a `slug` or a path (`path_slug`), refused where it has an empty
    part, replaces pages the site makes, or is too long for a file system."""
    parts = path_slug(source, latin=latin).split("/")
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


def marked(page: bytes) -> bytes:
    """`page` as steadypress writes it: with its generator mark, `GENERATOR_NOTE` added where
    the template that made it has no `GENERATOR`."""
    return page if GENERATOR in page else page + GENERATOR_NOTE


def made_by_steadypress(page: bytes) -> bool:
    """Whether `page` carries steadypress's mark (`marked`)."""
    return GENERATOR in page or GENERATOR_NOTE in page


def page_path(slug: str) -> str:
    return f"{slug}/index.html"


def check_tags(tags: Iterable[str], *, latin: bool = False) -> None:
    """Each tag's page is a folder named by its slug: a tag of no letter or digit, or one too
    long for a file system's name, is refused, before anything is written."""
    for tag in tags:
        slug = tag_slug(tag, latin=latin)
        if not slug:
            raise PermanentError(f"tag {tag!r} has no letter or digit to name its page by")
        size = len(slug.encode())
        if size > MAX_URL_SEGMENT:
            raise PermanentError(
                f"tag {tag[:40]!r}... is {size} bytes as a URL; at most {MAX_URL_SEGMENT} (a "
                "folder name on disk)"
            )


@functools.lru_cache(maxsize=1024)  # a blog has tens of tags, each asked for per row listed
def tag_path(tag: str, *, latin: bool = False) -> str:
    """The page of a tag (`tag_slug`). A tag of no letter or digit, refused now
    (`check_tags`), was on `tags/tag/`; so was every tag in another script than Latin before
    they kept their letters, and `C++` and `C#` were on `C`'s page (`SiteIndex.tag_pages_of`
    names every page a tag's rows are on, so a tag whose page moves, as `latin` moves it, is
    found where its rows are)."""
    return f"tags/{tag_slug(tag, latin=latin) or 'tag'}/index.html"


def read_manifest(files: SiteWriter) -> dict[str, Entry]:
    raw = files.read(MANIFEST)
    if raw is None:
        return {}
    try:
        document = json.loads(raw)
        if document.get("version") not in (1, MANIFEST_VERSION):
            raise ValueError(f"unknown version {document.get('version')!r}")
        return {path: Entry.from_json(fields) for path, fields in document["articles"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        # The site is left as it is: rewriting a manifest we could not read would forget pages.
        raise TransientError(
            f"{MANIFEST} in the site cannot be read ({error!r}); fix or remove it"
        ) from None
