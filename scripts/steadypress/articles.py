"""Articles: one version's bytes parsed into an `Article`, its front matter (YAML, TOML or
JSON, as Hugo reads them) validated; any problem an `ArticleError` naming the file. A pure
function of the path, the blob id and the bytes: reading them from git is `content.py`'s."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any
from urllib.parse import urlsplit

import yaml
from frontmatter.default_handlers import BaseHandler, JSONHandler, YAMLHandler

from steadypress.errors import ArticleError
from steadypress.importorder import filename_date
from steadypress.liquid import is_jekyll_post, jekyll_markdown

__all__ = [
    "ARTICLE_SUFFIXES",
    "MAX_FRONT_MATTER",
    "Article",
    "article_stem",
    "at_its_path_url",
    "parse_article",
    "require_configured_targets",
    "slug_source",
    "version_text",
]

# An article is a Markdown file, named as Hugo and Jekyll name them.
ARTICLE_SUFFIXES = (".md", ".markdown")
# Front matter is a few lines of metadata; more than this is a mistake or an attack.
MAX_FRONT_MATTER = 64 * 1024
_KNOWN_TYPES: dict[str, tuple[type, ...]] = {
    "title": (str,),
    "description": (str,),
    "canonical_url": (str,),
    "cover_image": (str,),
    "slug": (str,),
    "permalink": (str,),
    "draft": (bool,),
}


@dataclass(frozen=True)
class Article:
    path: str
    blob: str
    title: str
    body: str
    description: str | None = None
    tags: tuple[str, ...] = ()
    canonical_url: str | None = None
    date: datetime | None = None
    publish_at: datetime | None = None
    draft: bool = False
    slug: str | None = None
    targets: tuple[str, ...] | None = None  # only these targets, when the front matter says so
    cover_image: str | None = None
    # A page beside the articles (`about.md`): on the site alone, never listed, in the feed or
    # sent to a platform (`layout: page`, as Jekyll marks one; `type: page`, as Hugo does).
    page: bool = False
    # Old URLs of the article (paths on the site, such as /2019/05/old-title/), kept working.
    aliases: tuple[str, ...] = ()
    # Known once read from a commit: when the file last changed there (feeds show it), and the
    # commit itself, where the images it references are read from.
    updated: datetime | None = None
    commit: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def not_before(self) -> datetime | None:
        """When the article may go out: `publish_at`, else its `date` (scheduled publishing)."""
        return self.publish_at or self.date


def _moment(value: Any, *, path: str, key: str) -> datetime:
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise ArticleError(path, f"front matter {key!r}: {value!r} is not a date") from None
    else:
        raise ArticleError(path, f"front matter {key!r}: {value!r} is not a date")
    # A time without an offset is taken as UTC: the one reading that is the same on every runner.
    try:
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
        moment.timestamp()  # every later use of the date (feeds, sorting, leases) needs one
    except (OverflowError, ValueError, OSError):
        raise ArticleError(path, f"front matter {key!r}: {value!r} is out of range") from None
    if not 1 <= moment.year <= 9998:  # room for the lease and backoff arithmetic after it
        raise ArticleError(path, f"front matter {key!r}: {value!r} is out of range")
    return moment


def _check_link(value: Any, *, path: str, key: str) -> None:
    """A URL from front matter goes into `href` and `src`: http, https, or a relative path."""
    if not isinstance(value, str) or not value.strip():
        return
    scheme = urlsplit(value.strip()).scheme.lower()
    if scheme not in ("", "http", "https"):
        raise ArticleError(
            path, f"front matter {key!r}: {value!r} is not an http(s) URL or a relative path"
        )


def _aliases(metadata: Mapping[str, Any], *, path: str) -> tuple[str, ...]:
    """Site paths that must keep working: Hugo's `aliases`, jekyll-redirect-from's
    `redirect_from` (one path or a list), and a Jekyll `permalink` ending in .html (the page
    moves to a folder URL; the old file redirects there)."""
    items: list[str] = []
    for key in ("aliases", "redirect_from"):
        value = metadata.get(key)
        value = [value] if key == "redirect_from" and isinstance(value, str) else value
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ArticleError(
                path, f"front matter {key!r}: expected a list of paths like /old/url/"
            )
        # jekyll-redirect-from reads every path from the site's root.
        items += value if key == "aliases" else ["/" + item.lstrip("/") for item in value]
    permalink = _optional_text(metadata, "permalink")
    if permalink and permalink.endswith(".html"):
        items.append(permalink)
    for item in items:
        parts = item.split("/")
        # From the site's root (`/old/url/`), or, as Hugo reads one without a leading slash,
        # from the folder of the article's own URL (`old-name`, `../old`: the site resolves it).
        rooted = item.startswith("/")
        if (
            not item.strip("/")
            or item.startswith("//")
            or urlsplit(item).scheme
            or (rooted and ".." in parts)
            or "\\" in item
        ):
            raise ArticleError(
                path, f"{item!r} in the front matter is not a path on the site like /old/url/"
            )
    return tuple(dict.fromkeys(items))


def _slug_source(metadata: Mapping[str, Any]) -> str | None:
    """`slug`, else Jekyll's `permalink` (its folder URL, without a trailing .html)."""
    slug = _optional_text(metadata, "slug")
    permalink = _optional_text(metadata, "permalink")
    if slug or not permalink:
        return slug
    return permalink.strip("/").removesuffix(".html").removesuffix("/index") or None


def slug_source(path: str, data: bytes) -> str | None:
    """The `slug` (or Jekyll `permalink`) a version's front matter sets; None where it sets
    none or cannot be read (the article's own publish names what is wrong with it)."""
    try:
        metadata, _body = _split_front_matter(path, version_text(data))
    except (ArticleError, UnicodeDecodeError):
        return None
    return _slug_source(metadata)


def _tags(value: Any, *, path: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(tag, str | int) for tag in items):
        raise ArticleError(path, "front matter 'tags': expected a list of words or 'a, b, c'")
    return tuple(dict.fromkeys(str(tag).strip() for tag in items if str(tag).strip()))


def _optional_text(metadata: Mapping[str, Any], key: str) -> str | None:
    value = metadata.get(key)
    return value if isinstance(value, str) and value.strip() else None


class _TOMLHandler(BaseHandler):
    """Hugo's TOML front matter, between `+++` lines, read by the standard library's `tomllib`
    (python-frontmatter's own TOML handler needs the `toml` package, which is not kept)."""

    FM_BOUNDARY = re.compile(r"^\+{3}[ \t]*$", re.MULTILINE)
    START_DELIMITER = END_DELIMITER = "+++"


_YAML = YAMLHandler()
_TOML = _TOMLHandler()
_JSON = JSONHandler()  # its split gives the object whole, braces included
_FORMATS: tuple[BaseHandler, ...] = (_YAML, _TOML, _JSON)


def _targets(value: Any, *, path: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ArticleError(path, "front matter 'targets': expected a list of target names")
    return tuple(value)


# libyaml's safe loader when PyYAML was built with it (ten times faster on a first build of
# thousands of articles), else the pure-Python one: the same documents, the same values.
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load_yaml(path: str, head: str) -> Any:
    """YAML front matter as data, without aliases (`*name`), which let a few lines expand
    into billions of nodes (the "billion laughs")."""
    try:
        # An alias is written `*name`: text without a `*` has none, and is parsed once, not twice.
        if "*" in head and any(
            isinstance(event, yaml.AliasEvent) for event in yaml.parse(head, _SAFE_LOADER)
        ):
            raise ArticleError(path, "front matter uses a YAML alias (*name); write the value out")
        return yaml.load(head, _SAFE_LOADER)  # noqa: S506 - the safe loader, in C when there is one
    except (yaml.YAMLError, ValueError, OverflowError) as error:
        # ValueError: a timestamp YAML recognises but the calendar does not (2024-13-45).
        raise ArticleError(path, f"front matter is not valid YAML: {error}") from None


def version_text(data: bytes) -> str:
    """An article version's text (UnicodeDecodeError: it is not UTF-8)."""
    # A byte-order mark is how some editors say "UTF-8"; it is not part of the text.
    return data.decode("utf-8").removeprefix("\ufeff")


def _front_matter(text: str) -> tuple[BaseHandler, str, str] | None:
    """The handler of the front matter's format (YAML `---`, TOML `+++`, JSON `{...}`, as Hugo
    reads them), its text and the body after it; None without front matter."""
    # python-frontmatter's loads() drops front matter that is not a mapping without a word; its
    # handler API lets that be reported as what it is.
    for handler in _FORMATS:
        if handler.detect(text):
            try:
                head, body = handler.split(text)
            except ValueError:  # an opening fence with no closing one: no front matter at all
                return None
            return handler, head, body
    return None


def _load(path: str, handler: BaseHandler, head: str) -> Any:
    """Front matter in its format as data, bounded: a size cap, whatever the format."""
    if len(head) > MAX_FRONT_MATTER:
        raise ArticleError(
            path, f"front matter is {len(head):,} characters; at most {MAX_FRONT_MATTER:,}"
        )
    if handler is _YAML:
        return _load_yaml(path, head)
    if handler is _TOML:
        try:
            return tomllib.loads(head)
        except tomllib.TOMLDecodeError as error:
            raise ArticleError(path, f"front matter is not valid TOML: {error}") from None
    try:
        return json.loads(head)
    except (ValueError, RecursionError) as error:
        raise ArticleError(path, f"front matter is not valid JSON: {error}") from None


def _split_front_matter(path: str, text: str) -> tuple[dict[str, Any], str]:
    found = _front_matter(text)
    if found is None:
        return {}, text
    handler, head, body = found
    metadata = _load(path, handler, head)
    if metadata is None:
        return {}, body.strip()
    if not isinstance(metadata, dict):
        raise ArticleError(path, "front matter must be a mapping of keys to values")
    return metadata, body.strip()


def require_configured_targets(article: Article, configured: Collection[str]) -> None:
    """An article whose front matter names a target the configuration does not have is
    refused whole, as a typo that would otherwise publish it nowhere it was meant to go."""
    unknown = sorted(set(article.targets or ()) - set(configured))
    if unknown:
        raise ArticleError(
            article.path,
            f"front matter 'targets' names {', '.join(map(repr, unknown))}, which is not "
            f"a configured target (configured: {', '.join(sorted(configured))})",
        )


def _is_utf8(path: str) -> bool:
    """Whether a path read from git (undecodable bytes kept as surrogates) was UTF-8."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def article_stem(path: str) -> str:
    """The article's path without its Markdown suffix."""
    for suffix in ARTICLE_SUFFIXES:
        if path.endswith(suffix):
            return path.removesuffix(suffix)
    return path


def parse_article(
    path: str, blob: str, data: bytes, *, slug_of_post: Callable[[str], str | None] | None = None
) -> Article:
    """Parse one article version; any problem is an ArticleError naming the file. Without a
    `date`, a name that begins with a day dates it, as Jekyll's posts are dated
    (`2019-05-01-title.md`): a Jekyll blog keeps its dates when it is adopted in one commit.
    `slug_of_post`: of a Jekyll post, the `slug` of another its `post_url` names
    (`liquid.jekyll_markdown`)."""
    if not _is_utf8(path):  # git keeps any bytes; a URL, an index or a platform cannot
        raise ArticleError(path, "its file name is not UTF-8; rename the file")
    try:
        text = version_text(data)
    except UnicodeDecodeError as error:
        raise ArticleError(path, f"not UTF-8 text (bad byte at offset {error.start})") from None
    metadata, body = _split_front_matter(path, text)
    for key, types in _KNOWN_TYPES.items():
        if metadata.get(key) is not None and not isinstance(metadata[key], types):
            expected = " or ".join(t.__name__ for t in types)
            raise ArticleError(
                path, f"front matter {key!r}: expected {expected}, got {metadata[key]!r}"
            )
    title = metadata.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ArticleError(path, "front matter has no 'title' (every article needs one)")
    if is_jekyll_post(path):
        body = jekyll_markdown(body, slug_of_post)
    for key in ("canonical_url", "cover_image"):
        _check_link(metadata.get(key), path=path, key=key)
    return Article(
        path=path,
        blob=blob,
        title=title.strip(),
        body=body,
        description=_optional_text(metadata, "description"),
        # Jekyll's categories are tags here, so a Jekyll blog keeps its topics.
        tags=tuple(
            dict.fromkeys(
                _tags(metadata.get("tags"), path=path)
                + _tags(metadata.get("categories"), path=path)
            )
        ),
        canonical_url=_optional_text(metadata, "canonical_url"),
        date=(
            _moment(metadata["date"], path=path, key="date")
            if metadata.get("date")
            else _named_day(path)
        ),
        publish_at=(
            _moment(metadata["publish_at"], path=path, key="publish_at")
            if metadata.get("publish_at")
            else None
        ),
        draft=bool(metadata.get("draft", False)),
        slug=_slug_source(metadata),
        aliases=_aliases(metadata, path=path),
        targets=_targets(metadata.get("targets"), path=path),
        cover_image=_optional_text(metadata, "cover_image"),
        page="page" in (metadata.get("layout"), metadata.get("type")),
        metadata=metadata,
    )


# What moves an article off the URL its path gives, or keeps it off the site.
_URL_KEYS = ("slug", "permalink", "draft")


def at_its_path_url(data: bytes) -> bool:
    """Whether a version (its bytes) is surely at the URL its path gives, if it is published at
    all: its front matter names none of `_URL_KEYS` and escapes nothing (a double-quoted key
    can spell `slug` as `sl\\u0075g`). Telling costs a split of the text, not a parse of its
    YAML: what a check of one article in a blog of 10^5 spent most of its 6 s on."""
    try:
        found = _front_matter(version_text(data))
    except UnicodeDecodeError:
        return False
    if found is None:
        return True
    _handler, head, _body = found
    return "\\" not in head and not any(key in head for key in _URL_KEYS)


def _named_day(path: str) -> datetime | None:
    """The day a Jekyll post's file name gives (`2019-05-01-title.md`), at midnight UTC."""
    named = filename_date(path)
    return None if named is None else datetime.fromisoformat(named).replace(tzinfo=UTC)
