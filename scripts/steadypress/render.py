"""Markdown the way authors write it, to deterministic HTML.

GitHub-flavoured tables, strikethrough and task lists, footnotes, ids on headings (anchors), and
fenced code highlighted by Pygments at build time (no JavaScript on the page). Authors are
trusted with raw HTML in their own articles; titles, tags and descriptions are not markup and
the templates always escape them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

__all__ = [
    "highlight_css",
    "is_relative_reference",
    "reading_minutes",
    "render_markdown",
    "slugify",
]

WORDS_PER_MINUTE = 230  # a common figure for adults reading on a screen


def slugify(text: str) -> str:
    """A URL path segment: ASCII letters and digits joined by single hyphens."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")


def _highlight(code: str, language: str, _attrs: Any) -> str:
    """Pygments' spans for a known language; markdown-it wraps them in <pre><code>. An unknown
    language (or none) is left to markdown-it, which escapes it."""
    if not language:
        return ""
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return ""
    return str(highlight(code, lexer, HtmlFormatter(nowrap=True)))


_MARKDOWN = (
    MarkdownIt("commonmark", {"html": True, "highlight": _highlight})
    .enable(["table", "strikethrough"])
    .use(tasklists_plugin)
    .use(footnote_plugin)
    .use(anchors_plugin, min_level=2, max_level=4, slug_func=slugify)
)


def is_relative_reference(src: str) -> bool:
    """A path inside the repository (`images/a.png`, `../a.png`), not a URL or a site path."""
    return bool(src) and not re.match(r"^([a-z][a-z0-9+.-]*:|/|#)", src, re.IGNORECASE)


def render_markdown(text: str, *, image_src: Callable[[str], str] | None = None) -> str:
    """HTML for `text`; `image_src` maps each relative image reference to where it is served."""
    env: dict[str, Any] = {}
    tokens = _MARKDOWN.parse(text, env)
    if image_src is not None:
        for image in _images(tokens):
            src = str(image.attrGet("src") or "")
            if is_relative_reference(src):
                image.attrSet("src", image_src(src))
    html: str = _MARKDOWN.renderer.render(tokens, _MARKDOWN.options, env)
    return html


def _images(tokens: list[Token]) -> list[Token]:
    found = []
    for token in tokens:
        if token.type == "image":
            found.append(token)
        if token.children:
            found.extend(_images(token.children))
    return found


def reading_minutes(text: str) -> int:
    """Whole minutes to read `text` (at least one)."""
    words = len(re.findall(r"\w+", text))
    return max(1, math.ceil(words / WORDS_PER_MINUTE))


def highlight_css() -> tuple[str, str]:
    """Pygments' rules for the highlighted code, for light and for dark pages."""
    # types-Pygments leaves get_style_defs untyped; it returns the CSS text.
    # types-Pygments leaves HtmlFormatter's constructor untyped; the calls are as documented.
    light = HtmlFormatter(style="default").get_style_defs("pre code")  # type: ignore[no-untyped-call]
    dark = HtmlFormatter(style="github-dark").get_style_defs("pre code")  # type: ignore[no-untyped-call]
    return str(light), str(dark)
