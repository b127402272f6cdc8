"""The URLs a blog's articles had under the generator it moved from, worked out for each article
as Jekyll or Hugo did, so that the site answers every one of them with a redirect to the page.

Jekyll places a post by its `permalink` pattern (`date` by default:
https://jekyllrb.com/docs/permalinks/), Hugo a page by its section's pattern in `permalinks`,
else by its path (https://gohugo.io/content-management/urls/). Both are pure functions of the
article: its path, front matter and date.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime, time
from pathlib import PurePosixPath
from typing import Any
from zoneinfo import ZoneInfo

from steadypress.articles import Article, article_stem
from steadypress.importorder import filename_date
from steadypress.targets.site.manifest import HUGO_FEED, is_site_path
from steadypress.targets.site.old_layout import (
    PLACEHOLDER,
    OldLayout,
    jekyll_pattern,
    longest_known,
)

__all__ = ["hugo_sanitized", "old_urls", "term_feed_paths"]

# Jekyll's slug modes (Jekyll::Utils.slugify): "default" keeps letters, marks and digits;
# "pretty" keeps these punctuation marks too.
_JEKYLL_DEFAULT = re.compile(r"[^\w]+|_+")
_JEKYLL_PRETTY = re.compile(r"[^\w._~!$&'()+,;=@]+|_+")


def old_urls(article: Article, content_dir: str, layout: OldLayout) -> tuple[str, ...]:
    """The article's URL paths under the old generator (`/2024/01/05/hello.html`), from the
    site's root; an article's own `permalink` or `url` was its URL and is not worked out."""
    relative = article.path.removeprefix(content_dir.strip("/") + "/")
    if layout.generator == "jekyll":
        if article.metadata.get("permalink"):
            return ()
        pattern = jekyll_pattern(dict(layout.permalinks).get("", "date"))
        return (_expand(pattern, _jekyll_values(article, relative, layout.timezone)),)
    url = article.metadata.get("url")
    if isinstance(url, str) and url.strip("/"):
        return ("/" + url.strip().lstrip("/"),)
    section = relative.split("/")[0] if "/" in relative else ""
    by_section = dict(layout.permalinks)
    if section not in by_section:
        path = _hugo_default(article, relative)
    else:
        values = _hugo_values(article, relative, section)
        path = hugo_sanitized(_expand(by_section[section], values))
    return (path.rstrip("/") + ".html" if layout.ugly and path.endswith("/") else path,)


def _expand(pattern: str, values: Mapping[str, Callable[[], str]]) -> str:
    def value(found: re.Match[str]) -> str:
        name = longest_known(found.group(1))
        rest = found.group(1)[len(name) :]
        return values[name]().strip("/") + rest if name in values else found.group(0)

    path = re.sub(r"/+", "/", PLACEHOLDER.sub(value, pattern))
    return path if path.startswith("/") else "/" + path


def _jekyll_values(article: Article, relative: str, timezone: str) -> dict[str, Callable[[], str]]:
    moment = _jekyll_moment(article, timezone)
    name = PurePosixPath(article_stem(relative)).name
    named_slug = name[11:] if filename_date(name + ".md") else name
    slug = article.metadata.get("slug")
    slug = slug if isinstance(slug, str) and slug.strip() else named_slug
    iso_year, iso_week, iso_day = moment.isocalendar()
    return {
        "year": lambda: f"{moment.year}",
        "short_year": lambda: moment.strftime("%y"),
        "month": lambda: f"{moment.month:02}",
        "i_month": lambda: f"{moment.month}",
        "short_month": lambda: moment.strftime("%b"),
        "long_month": lambda: moment.strftime("%B"),
        "day": lambda: f"{moment.day:02}",
        "i_day": lambda: f"{moment.day}",
        "y_day": lambda: moment.strftime("%j"),
        "short_day": lambda: moment.strftime("%a"),
        "long_day": lambda: moment.strftime("%A"),
        "week": lambda: f"{iso_week:02}",
        "w_year": lambda: f"{iso_year}",
        "w_day": lambda: f"{iso_day}",
        "hour": lambda: moment.strftime("%H"),
        "minute": lambda: moment.strftime("%M"),
        "second": lambda: moment.strftime("%S"),
        "title": lambda: _jekyll_slug(slug, pretty=True),
        "slug": lambda: _jekyll_slug(slug, pretty=False),
        "name": lambda: _jekyll_slug(name, pretty=False),
        "categories": lambda: "/".join(_jekyll_categories(article)),
        "output_ext": lambda: ".html",
    }


def _jekyll_moment(article: Article, timezone: str) -> datetime:
    """The post's date as Jekyll placed it: in the site's `timezone`, else in UTC, the time
    zone GitHub Pages builds in. A date written without an offset (or the file name's day) is
    Jekyll's local time already: the day it names."""
    moment = (article.date or datetime(1970, 1, 1, tzinfo=UTC)).astimezone(UTC)
    if timezone and _offset_written(article.metadata.get("date")):
        return moment.astimezone(ZoneInfo(timezone))
    return moment


def _offset_written(value: Any) -> bool:
    if isinstance(value, datetime):
        return value.tzinfo is not None
    return isinstance(value, str) and _OFFSET.search(value.strip()) is not None


_OFFSET = re.compile(r"(?:Z|[+-]\d\d:?\d\d)$")


def _jekyll_slug(text: str, *, pretty: bool) -> str:
    """Jekyll::Utils.slugify: "pretty" keeps case and some punctuation, "default" neither."""
    slug = (_JEKYLL_PRETTY if pretty else _JEKYLL_DEFAULT).sub("-", text).strip("-")
    return slug if pretty else slug.lower()


def _jekyll_categories(article: Article) -> list[str]:
    """A post's categories as its URL names them: its front matter's `categories` (a list,
    or words), the folders above `_posts/`, then `category`; lowercase, each once."""
    named = _words(article.metadata.get("categories"))
    folders = article.path.split("/_posts/")[0].split("/") if "/_posts/" in article.path else []
    found = [*named, *folders, *_words(article.metadata.get("category"))]
    return list(dict.fromkeys(str(category).lower() for category in found if str(category)))


def _words(value: Any) -> list[str]:
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list):
        return [str(item) for item in value]
    return []


def _hugo_values(article: Article, relative: str, section: str) -> dict[str, Callable[[], str]]:
    moment = _hugo_moment(article)
    name = PurePosixPath(article_stem(relative))
    filename = name.parent.name if name.name == "index" else name.name
    slug = article.metadata.get("slug")
    slug = slug if isinstance(slug, str) and slug.strip() else None
    folders = PurePosixPath(relative).parent.parts
    return {
        "year": lambda: f"{moment.year}",
        "month": lambda: f"{moment.month:02}",
        "monthname": lambda: moment.strftime("%B"),
        "day": lambda: f"{moment.day:02}",
        "weekday": lambda: f"{(moment.weekday() + 1) % 7}",
        "weekdayname": lambda: moment.strftime("%A"),
        "yearday": lambda: f"{moment.timetuple().tm_yday}",
        "section": lambda: section,
        "sections": lambda: "/".join(folders[:1]),
        "title": lambda: hugo_sanitized(article.title),
        "slug": lambda: hugo_sanitized(slug or article.title),
        "filename": lambda: filename,
        "contentbasename": lambda: filename,
        "slugorfilename": lambda: slug or filename,
        "slugorcontentbasename": lambda: slug or filename,
    }


def _hugo_moment(article: Article) -> datetime:
    """The page's date in the offset its front matter wrote, as Hugo formats it; without an
    offset, in UTC (Hugo's default `timeZone`)."""
    written = article.metadata.get("date")
    if isinstance(written, datetime) and written.tzinfo is not None:
        return written
    if isinstance(written, str):
        try:
            parsed = datetime.fromisoformat(written.strip())
        except ValueError:
            parsed = None
        if parsed is not None and parsed.tzinfo is not None:
            return parsed
    if isinstance(written, date) and not isinstance(written, datetime):
        return datetime.combine(written, time(), UTC)
    return (article.date or datetime(1970, 1, 1, tzinfo=UTC)).astimezone(UTC)


def _hugo_default(article: Article, relative: str) -> str:
    """Hugo's URL of a page no pattern places: its folder, then its `slug` or file name (a
    page bundle's `index.md`: its folder alone)."""
    path = PurePosixPath(article_stem(relative))
    folder, name = path.parent, path.name
    slug = article.metadata.get("slug")
    if name == "index":
        name = ""
    if isinstance(slug, str) and slug.strip():
        name = slug.strip()
    parts = [*(part for part in folder.parts if part != "."), name]
    return hugo_sanitized("/" + "/".join(part for part in parts if part) + "/")


def term_feed_paths(taxonomies: Iterable[str], tag_name: str) -> list[str]:
    """Where Hugo served the feed of the term `tag_name` in each of `taxonomies`
    (`/tags/c++/index.xml`); none for a name Hugo made no folder of (`..`, no letter)."""
    folder = hugo_sanitized(tag_name)
    if not is_site_path(f"tags/{folder}/{HUGO_FEED}"):
        return []
    return [f"{taxonomy}/{folder}/{HUGO_FEED}" for taxonomy in taxonomies]


def hugo_sanitized(path: str) -> str:
    """Hugo's paths.Sanitize and its lowercasing (`disablePathToLower` off): letters, marks,
    digits and `._~#+@-/` kept, a run of spaces a hyphen, anything else dropped."""
    kept: list[str] = []
    hyphen_due = False
    for char in path:
        allowed = char.isalnum() or unicodedata.category(char).startswith("M")
        if allowed or char in "._~#+@-/\\":
            if hyphen_due and char != "-":
                kept.append("-")
            hyphen_due = False
            kept.append(char)
        elif char.isspace() and kept and kept[-1] != "-":
            hyphen_due = True
    return "".join(kept).lower()
