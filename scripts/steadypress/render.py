"""Markdown the way authors write it on GitHub, to deterministic HTML.

cmark-gfm, GitHub's own CommonMark parser (through cmarkgfm), with its tables, strikethrough,
task lists, autolinks and footnotes: an article renders as GitHub's preview of it shows. What
GitHub adds after its parser is added here the same way, to the HTML it wrote: ids on headings
(anchors), fenced code highlighted by Pygments at build time (no JavaScript on the page), and
the classes of task list items. Authors are trusted with raw HTML in their own articles (no tag
filter), but a markdown link or image to `javascript:` and the like is written with an empty
URL; titles, tags and descriptions are not markup and the templates always escape them.
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote

from steadypress.slugs import anchor

if TYPE_CHECKING:
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

__all__ = [
    "RENDER_VERSION",
    "Prerendered",
    "highlight_css",
    "image_references",
    "is_relative_reference",
    "is_repository_reference",
    "prerender",
    "reading_minutes",
    "render_markdown",
    "rewrite_image_references",
    "rewrite_links",
    "root_links",
]

WORDS_PER_MINUTE = 230  # a common figure for adults reading on a screen
# The HTML this module makes of Markdown, numbered: a change that changes it (to what it adds
# to cmark's HTML, or a new pin of cmarkgfm or Pygments that does) takes the next number, and
# every site publishes its articles again (`theme.shipped_look`).
# 2: markdown links to javascript: and the like written with an empty URL; 3: heading ids keep
# letters of any script (`## 日本語` had an empty id); 4: root-absolute images (`/images/a.png`)
# published from the repository, as relative ones are; a task-list checkbox named by its text.
RENDER_VERSION = 4
_EXTENSIONS = ("table", "strikethrough", "autolink", "tasklist")  # GitHub's, but its tag filter


@functools.cache
def _renderer() -> Callable[[str, bool], str]:
    """cmark-gfm, loaded on first use: a command that renders nothing (an idle sweep) does not
    pay for it. The function takes a text and whether its raw HTML is kept (else omitted);
    a markdown link's dangerous URL is emptied either way (`markdown_html.py`)."""
    from cmarkgfm.cmark import Options  # noqa: PLC0415 (only when something renders)

    from steadypress.markdown_html import render_html  # noqa: PLC0415

    # Footnotes as GitHub has them; table alignment as a style (HTML5 has no `align`).
    common = Options.CMARK_OPT_FOOTNOTES | Options.CMARK_OPT_TABLE_PREFER_STYLE_ATTRIBUTES

    def render(text: str, raw_html: bool) -> str:
        return render_html(
            text, common | (Options.CMARK_OPT_UNSAFE if raw_html else 0), _EXTENSIONS
        )

    return render


@functools.cache
def _highlighter() -> Callable[[str, str], str | None]:
    """Pygments, loaded on first use. One formatter and one lexer per language serve every code
    block: building a formatter maps every token type to its class (half of highlighting a
    short block), and neither keeps anything from one block to the next."""
    from pygments import highlight  # noqa: PLC0415 (heavy: only when something renders)
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

    def highlighted(code: str, language: str) -> str | None:
        """Pygments' spans for a known language; None for another, left as cmark escaped it."""
        found = lexer(language)
        return None if found is None else str(highlight(code, found, formatter))

    return highlighted


# What cmark writes for the markdown it parsed, matched in its own HTML (the author's raw HTML
# passes through as written, and is matched only where it is written the same way): a fenced
# block's code (escaped by cmark: never a `<` in it), a heading, a task list item, an image.
_FENCED = re.compile(r'<pre><code class="language-([^"]+)">([^<]*)</code></pre>')
_HEADING = re.compile(r"<h([2-4])>(.*?)</h\1>", re.DOTALL)
# A task-list item: its checkbox, and the text it is about (up to a nested list, or its end).
_TASK = re.compile(r'<li><input type="checkbox"([^>]*)/>(.*?)(?=<ul|<ol|</li>)', re.DOTALL)
_IMAGE = re.compile(r'<img src="([^"]*)"')
_LINK = re.compile(r'<a href="([^"]*)"')
_TAG = re.compile(r"<[^>]+>")


def _task_item(item: re.Match[str]) -> str:
    """A task-list item whose checkbox is named by the item's text (`aria-label`), as a form
    control must be for a screen reader (axe-core's `label` rule)."""
    text = " ".join(html.unescape(_TAG.sub("", item[2])).split())
    return (
        '<li class="task-list-item"><input type="checkbox" class="task-list-item-checkbox"'
        f'{item[1]}aria-label="{html.escape(text or "task")}" />{item[2]}'
    )


def _highlight(fenced: re.Match[str]) -> str:
    spans = _highlighter()(html.unescape(fenced[2]), html.unescape(fenced[1]))
    return (
        fenced[0]
        if spans is None
        else f'<pre><code class="language-{fenced[1]}">{spans}</code></pre>'
    )


def _with_ids(text: str) -> str:
    """Each h2 to h4 with an id, its text as an anchor (letters of any script kept; `section`
    for a heading of none), made unique by a number as GitHub does."""
    taken: set[str] = set()

    def identified(heading: re.Match[str]) -> str:
        slug = base = anchor(html.unescape(_TAG.sub("", heading[2]))) or "section"
        number = 0
        while slug in taken:
            number += 1
            slug = f"{base}-{number}"
        taken.add(slug)
        return f'<h{heading[1]} id="{slug}">{heading[2]}</h{heading[1]}>'

    return _HEADING.sub(identified, text)


def is_relative_reference(src: str) -> bool:
    """A path inside the repository (`images/a.png`, `../a.png`), not a URL or a site path."""
    return bool(src) and not re.match(r"^([a-z][a-z0-9+.-]*:|/|#)", src, re.IGNORECASE)


def is_repository_reference(src: str) -> bool:
    """A path the repository may hold: relative to the article, or root-absolute
    (`/images/a.png`, as Hugo and Jekyll blogs write them: `targets/site/assets.py` looks for
    it in the content folder, the repository's root and Hugo's `static/`)."""
    return is_relative_reference(src) or (src.startswith("/") and not src.startswith("//"))


@functools.lru_cache(maxsize=2)
def _markdown_alone(text: str) -> str:
    """The HTML of a markdown text's own syntax, its raw HTML omitted: kept for the text last
    asked, whose images and links a platform's publish looks for one after the other."""
    return _renderer()(text, False)


def image_references(text: str) -> list[str]:
    """The image references of a markdown text the repository may hold (`images/a.png`,
    `/images/a.png`), in order, once each: its markdown images (the raw HTML omitted, where an
    `<img>` is the author's own)."""
    found = [html.unescape(src) for src in _IMAGE.findall(_markdown_alone(text))]
    return list(dict.fromkeys(src for src in found if is_repository_reference(src)))


def root_links(text: str) -> list[str]:
    """The links of a markdown text from the host's root (`[about](/about/)`), in order, once
    each, as written: its markdown links (the raw HTML omitted, the author's own)."""
    found = [html.unescape(href) for href in _LINK.findall(_markdown_alone(text))]
    # cmark writes a URL's letters outside ASCII percent-encoded; the source has them as typed.
    found = [spelling for href in found for spelling in dict.fromkeys((href, unquote(href)))]
    return list(dict.fromkeys(href for href in found if re.match("/(?!/)", href)))


def rewrite_image_references(text: str, urls: Mapping[str, str]) -> str:
    """The markdown source with each image reference in `urls` replaced by its URL: inline
    images (`![alt](src "title")`, `<src>` too) and reference definitions (`[id]: src`)."""
    return _rewritten(text, urls, opening=r"!\[")


def rewrite_links(text: str, urls: Mapping[str, str]) -> str:
    """The markdown source with each link in `urls` replaced by its URL: inline links
    (`[text](href "title")`, `<href>` too) and reference definitions (`[id]: href`)."""
    return _rewritten(text, urls, opening=r"(?<!!)\[")


def _rewritten(text: str, urls: Mapping[str, str], *, opening: str) -> str:
    if not urls:
        return text
    alternatives = "|".join(re.escape(src) for src in sorted(urls, key=len, reverse=True))
    inline = re.compile(rf"({opening}[^\]]*\]\(\s*<?)({alternatives})(?=>?(?:\s|\)))")
    definition = re.compile(rf"(^ {{0,3}}\[[^\]]+\]:\s*<?)({alternatives})(?=>?(?:\s|$))", re.M)
    for pattern in (inline, definition):
        text = pattern.sub(lambda match: match.group(1) + urls[match.group(2)], text)
    return text


def render_markdown(text: str, *, image_src: Callable[[str], str] | None = None) -> str:
    """HTML for `text`; `image_src` maps each image reference the repository may hold to
    where it is served."""
    return prerender(text).resolve(image_src)


# A repository image's src while the body is rendered without knowing where images are served:
# cmark turns every NUL of its input into U+FFFD, so no author's text can forge one.
_MARK = re.compile("\0([0-9]+)\0")


@dataclass(frozen=True)
class Prerendered:
    """A body rendered without its images' addresses, which need the repository (`resolve`
    adds them): the part of rendering that is pure, so it runs on any core."""

    html: str
    images: tuple[str, ...]  # the repository's references, by the number in their mark

    def resolve(self, image_src: Callable[[str], str] | None = None) -> str:
        """The HTML, each such image served from `image_src(reference)` (or as written)."""
        if not self.images:
            return self.html
        where = image_src or (lambda src: src)
        return _MARK.sub(lambda mark: html.escape(where(self.images[int(mark[1])])), self.html)


def prerender(text: str) -> Prerendered:
    body = _renderer()(text, True)
    body = _with_ids(_FENCED.sub(_highlight, body))
    body = _TASK.sub(_task_item, body)
    references = image_references(text) if "<img" in body else []
    numbers = {src: number for number, src in enumerate(references)}

    def marked(image: re.Match[str]) -> str:
        number = numbers.get(html.unescape(image[1]))
        return image[0] if number is None else f'<img src="\0{number}\0"'

    return Prerendered(html=_IMAGE.sub(marked, body) if numbers else body, images=tuple(references))


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
