"""Markdown to HTML pages: deterministic bytes, everything from front matter escaped."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape

from markdown_it import MarkdownIt

__all__ = ["IndexEntry", "render_index", "render_markdown", "render_page", "slugify"]

# Authors are trusted with raw HTML in their own articles; titles, tags and descriptions are not
# markup and are always escaped.
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


def render_markdown(text: str) -> str:
    html: str = _MARKDOWN.render(text)
    return html


def slugify(text: str) -> str:
    """A URL path segment: ASCII letters and digits joined by single hyphens."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")


# Spelled out rather than strftime("%B"), which follows the process locale: same input, same bytes.
_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


@dataclass(frozen=True)
class IndexEntry:
    title: str
    url: str
    date: datetime
    description: str | None


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · {site_title}</title>
{description_meta}</head>
<body>
<header><a href="{home}">{site_title}</a></header>
<main>
<article>
<h1>{title}</h1>
<p class="meta"><time datetime="{iso_date}">{human_date}</time>{tags}</p>
{body}</article>
</main>
</body>
</html>
"""


def render_page(
    *,
    title: str,
    body_markdown: str,
    date: datetime,
    tags: Sequence[str],
    description: str | None,
    site_title: str,
    home: str,
) -> bytes:
    tag_list = "".join(f' <span class="tag">#{escape(tag)}</span>' for tag in tags)
    description_meta = (
        f'<meta name="description" content="{escape(description)}">\n' if description else ""
    )
    return _PAGE.format(
        title=escape(title),
        site_title=escape(site_title),
        description_meta=description_meta,
        home=escape(home),
        iso_date=date.date().isoformat(),
        human_date=f"{date.day} {_MONTHS[date.month - 1]} {date.year}",
        tags=tag_list,
        body=render_markdown(body_markdown),
    ).encode()


_INDEX = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{site_title}</title>
</head>
<body>
<header><h1>{site_title}</h1></header>
<main>
<ul class="articles">
{items}</ul>
</main>
</body>
</html>
"""


def _index_item(entry: IndexEntry) -> str:
    day = entry.date.date().isoformat()
    description = f"<p>{escape(entry.description)}</p>" if entry.description else ""
    return (
        f'<li><time datetime="{day}">{day}</time> '
        f'<a href="{escape(entry.url)}">{escape(entry.title)}</a>{description}</li>\n'
    )


def render_index(entries: Sequence[IndexEntry], *, site_title: str) -> bytes:
    """The list of articles, newest first (ties broken by URL, so the bytes are stable)."""
    ordered = sorted(entries, key=lambda entry: (-entry.date.timestamp(), entry.url))
    items = "".join(_index_item(entry) for entry in ordered)
    return _INDEX.format(site_title=escape(site_title), items=items).encode()
