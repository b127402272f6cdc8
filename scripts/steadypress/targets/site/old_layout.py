"""What a blog's settings say of the generator it moved from: where that generator put its
articles (`OldLayout`), and the placeholders its permalink patterns may use.

Kept apart from `old_urls.py`, which works each article's old URL out, so that reading the
settings (every command, `status` too) does not import the article parser and the site's
renderers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "HUGO_PLACEHOLDERS",
    "JEKYLL_PLACEHOLDERS",
    "JEKYLL_STYLES",
    "PLACEHOLDER",
    "TAXONOMY",
    "OldLayout",
    "jekyll_pattern",
    "longest_known",
    "unknown_placeholders",
]

# Jekyll's named permalink styles, as its documentation spells each out.
JEKYLL_STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "weekdate": "/:categories/:year/W:week/:short_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}
PLACEHOLDER = re.compile(r":([a-z_]+)")
# The placeholders each generator knows (https://jekyllrb.com/docs/permalinks/,
# https://gohugo.io/content-management/urls/); `old_urls.py` gives each its value.
JEKYLL_PLACEHOLDERS = (
    "year", "short_year", "month", "i_month", "short_month", "long_month", "day", "i_day",
    "y_day", "short_day", "long_day", "week", "w_year", "w_day", "hour", "minute", "second",
    "title", "slug", "name", "categories", "output_ext",
)  # fmt: skip
HUGO_PLACEHOLDERS = (
    "year", "month", "monthname", "day", "weekday", "weekdayname", "yearday", "section",
    "sections", "title", "slug", "filename", "contentbasename", "slugorfilename",
    "slugorcontentbasename",
)  # fmt: skip
# Every placeholder name, the longest first: `:output_ext` is written right after `:title`.
_LONGEST_FIRST = sorted({*JEKYLL_PLACEHOLDERS, *HUGO_PLACEHOLDERS}, key=len, reverse=True)
# A Hugo taxonomy's folder (`tags`, `categories`), as `old_term_feeds` names one.
TAXONOMY = re.compile(r"[a-z][a-z0-9_-]*")


@dataclass(frozen=True)
class OldLayout:
    """Where the generator a blog moved from put its articles: `generator` ("jekyll" or
    "hugo") and its patterns by section (Jekyll's one pattern under "")."""

    generator: str
    permalinks: tuple[tuple[str, str], ...] = ()
    timezone: str = ""  # Jekyll's `timezone`: where a post's date is placed; UTC by default
    ugly: bool = False  # Hugo's `uglyURLs`: `/posts/a.html`, not `/posts/a/`


def jekyll_pattern(value: str) -> str:
    """A Jekyll `permalink` setting as a pattern: a named style spelled out."""
    return JEKYLL_STYLES.get(value, value)


def unknown_placeholders(layout: OldLayout) -> list[str]:
    """The placeholders of its patterns that its generator does not know."""
    known = JEKYLL_PLACEHOLDERS if layout.generator == "jekyll" else HUGO_PLACEHOLDERS
    return sorted(
        {name for _section, pattern in layout.permalinks for name in _names(pattern)} - set(known)
    )


def _names(pattern: str) -> list[str]:
    # Jekyll's `:output_ext` follows `:title` with no separator: the longest known name wins.
    return [longest_known(name) for name in PLACEHOLDER.findall(pattern)]


def longest_known(name: str) -> str:
    """The longest placeholder `name` begins with (`title` of `titleoutput_ext`), else itself."""
    return next((known for known in _LONGEST_FIRST if name.startswith(known)), name)
