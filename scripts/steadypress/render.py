"""Markdown the way authors write it, to deterministic HTML.

GitHub-flavoured tables, strikethrough and task lists, footnotes, ids on headings (anchors), and
fenced code highlighted by Pygments at build time (no JavaScript on the page). Authors are
trusted with raw HTML in their own articles; titles, tags and descriptions are not markup and
the templates always escape them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from steadypress.slugs import slugify

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

__all__ = [
    "Prerendered",
    "highlight_css",
    "image_references",
    "is_relative_reference",
    "prerender",
    "reading_minutes",
    "render_markdown",
    "rewrite_image_references",
]

WORDS_PER_MINUTE = 230  # a common figure for adults reading on a screen


@functools.cache
def _markdown() -> MarkdownIt:
    """The parser, made on first use with markdown-it and Pygments imported then: a command
    that renders nothing (an idle sweep) does not pay for them. One formatter and one lexer per
    language serve every code block: building a formatter maps every token type to its class
    (half of highlighting a short block), and neither keeps anything from one block to the
    next."""
    from markdown_it import MarkdownIt  # noqa: PLC0415 (heavy: only when something renders)
    from mdit_py_plugins.anchors import anchors_plugin  # noqa: PLC0415
    from mdit_py_plugins.footnote import footnote_plugin  # noqa: PLC0415
    from mdit_py_plugins.tasklists import tasklists_plugin  # noqa: PLC0415
    from pygments import highlight  # noqa: PLC0415
    from pygments.formatters import HtmlFormatter  # noqa: PLC0415
    from pygments.lexers import get_lexer_by_name  # noqa: PLC0415
    from pygments.util import ClassNotFound  # noqa: PLC0415

    formatter: HtmlFormatter[str] = HtmlFormatter(nowrap=True)

    @functools.cache
    def lexer(language: str) -> Lexer | None:
        try:
            return get_lexer_by_name(language)
        except ClassNotFound:
            return None

    def highlighted(code: str, language: str, _attrs: Any) -> str:
        """Pygments' spans for a known language; markdown-it wraps them in <pre><code>. An
        unknown language (or none) is left to markdown-it, which escapes it."""
        found = lexer(language) if language else None
        return "" if found is None else str(highlight(code, found, formatter))

    return (
        MarkdownIt("commonmark", {"html": True, "highlight": highlighted})
        .enable(["table", "strikethrough"])
        .use(tasklists_plugin)
        .use(footnote_plugin)
        .use(anchors_plugin, min_level=2, max_level=4, slug_func=slugify)
    )


def is_relative_reference(src: str) -> bool:
    """A path inside the repository (`images/a.png`, `../a.png`), not a URL or a site path."""
    return bool(src) and not re.match(r"^([a-z][a-z0-9+.-]*:|/|#)", src, re.IGNORECASE)


def image_references(text: str) -> list[str]:
    """The relative image references of a markdown text (`images/a.png`), in order, once each."""
    tokens = _markdown().parse(text, {})
    found = [str(image.attrGet("src") or "") for image in _images(tokens)]
    return list(dict.fromkeys(src for src in found if is_relative_reference(src)))


def rewrite_image_references(text: str, urls: Mapping[str, str]) -> str:
    """The markdown source with each image reference in `urls` replaced by its URL: inline
    images (`![alt](src "title")`, `<src>` too) and reference definitions (`[id]: src`)."""
    if not urls:
        return text
    alternatives = "|".join(re.escape(src) for src in sorted(urls, key=len, reverse=True))
    inline = re.compile(rf"(!\[[^\]]*\]\(\s*<?)({alternatives})(?=>?(?:\s|\)))")
    definition = re.compile(rf"(^ {{0,3}}\[[^\]]+\]:\s*<?)({alternatives})(?=>?(?:\s|$))", re.M)
    for pattern in (inline, definition):
        text = pattern.sub(lambda match: match.group(1) + urls[match.group(2)], text)
    return text


def render_markdown(text: str, *, image_src: Callable[[str], str] | None = None) -> str:
    """HTML for `text`; `image_src` maps each relative image reference to where it is served."""
    return prerender(text).resolve(image_src)


# A relative image's src while the body is rendered without knowing where images are served:
# markdown-it turns every NUL of its input into U+FFFD, so no author's text can forge one.
_MARK = re.compile("\0([0-9]+)\0")


@dataclass(frozen=True)
class Prerendered:
    """A body rendered without its images' addresses, which need the repository (`resolve`
    adds them): the part of rendering that is pure, so it runs on any core."""

    html: str
    images: tuple[str, ...]  # the relative references, by the number in their mark

    def resolve(self, image_src: Callable[[str], str] | None = None) -> str:
        """The HTML, each relative image served from `image_src(reference)` (or as written)."""
        if not self.images:
            return self.html
        from markdown_it.common.utils import escapeHtml  # noqa: PLC0415 (loaded by prerender)

        where = image_src or (lambda src: src)
        return _MARK.sub(lambda mark: escapeHtml(where(self.images[int(mark[1])])), self.html)


def prerender(text: str) -> Prerendered:
    env: dict[str, Any] = {}
    markdown = _markdown()
    tokens = markdown.parse(text, env)
    images: list[str] = []
    for image in _images(tokens):
        src = str(image.attrGet("src") or "")
        if is_relative_reference(src):
            image.attrSet("src", f"\0{len(images)}\0")
            images.append(src)
    html: str = markdown.renderer.render(tokens, markdown.options, env)
    return Prerendered(html=html, images=tuple(images))


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
    from pygments.formatters import HtmlFormatter  # noqa: PLC0415 (heavy: for a stylesheet)

    # types-Pygments leaves get_style_defs untyped; it returns the CSS text.
    # types-Pygments leaves HtmlFormatter's constructor untyped; the calls are as documented.
    light = HtmlFormatter(style="default").get_style_defs("pre code")  # type: ignore[no-untyped-call]
    dark = HtmlFormatter(style="github-dark").get_style_defs("pre code")  # type: ignore[no-untyped-call]
    return _one_background(str(light)), _one_background(str(dark))


def _one_background(css: str) -> str:
    """Pygments' rules without their own block background: a code block has the theme's one
    background, not a second, slightly different one inside it."""
    return re.sub(r"^(pre code \{[^}]*?)\s*background:[^;}]*;?", r"\1", css, flags=re.MULTILINE)
