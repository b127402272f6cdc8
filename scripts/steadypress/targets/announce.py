"""An announcement of an article (Mastodon, Bluesky): a short text from a template the user can
set, linking to where the article is read. Shared, so both platforms say the same thing.

The link is the article's `canonical_url`, else its page on the site. It must be served before
the announcement goes out: the platform fetches it for the link's preview once, when posting.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex

from steadypress.errors import ConfigError, PermanentError

if TYPE_CHECKING:
    from steadypress.articles import Article
    from steadypress.targets.site.assets import PublicLinks

__all__ = [
    "DEFAULT_TEMPLATE",
    "Announcement",
    "announce",
    "check_template",
    "graphemes",
    "hashtags",
]

DEFAULT_TEMPLATE = "{title}\n\n{url}\n\n{hashtags}"
_FIELDS = frozenset({"title", "url", "description", "hashtags"})


def check_template(template: str, *, key: str, source: str) -> str:
    """Refuse a template that names a field the announcement does not have, or is not a valid
    format string; a template must show the link."""
    try:
        names = {name for _text, name, _spec, _conv in string.Formatter().parse(template) if name}
    except ValueError as error:
        raise ConfigError(source, f"{key}: {error}") from None
    unknown = names - _FIELDS
    if unknown:
        raise ConfigError(
            source,
            f"{key}: unknown field {{{sorted(unknown)[0]}}} (known: "
            + ", ".join(f"{{{name}}}" for name in sorted(_FIELDS))
            + ")",
        )
    if "url" not in names:
        raise ConfigError(source, f"{key}: the template must show the link, {{url}}")
    return template


# One user-perceived character: an extended grapheme cluster (Unicode's UAX #29).
_GRAPHEME = regex.compile(r"\X")


def graphemes(text: str) -> int:
    """The length of a text as Mastodon and Bluesky count it: a family emoji, a flag or a
    letter with its accents is one."""
    return len(_GRAPHEME.findall(text))


def hashtags(tags: tuple[str, ...]) -> tuple[str, ...]:
    """The article's tags as hashtags: letters, digits and underscores, each once."""
    cleaned = (re.sub(r"[^\w]", "", tag) for tag in tags)
    return tuple(dict.fromkeys(f"#{tag}" for tag in cleaned if tag and not tag.isdigit()))


@dataclass(frozen=True)
class Announcement:
    text: str
    url: str  # the link, also in the text
    title: str
    description: str
    tags: tuple[str, ...]  # the hashtags in the text, with their '#'


def announce(article: Article, links: PublicLinks | None, template: str) -> Announcement:
    url = links.article_url(article) if links is not None else article.canonical_url
    if not url:
        raise PermanentError(
            "nothing to link to: give the article a canonical_url, or publish it on a site "
            "target as well"
        )
    description = (article.description or "").strip()
    tags = hashtags(article.tags)
    fields = {"title": article.title, "url": url, "description": description,
              "hashtags": " ".join(tags)}  # fmt: skip
    text = template.format_map(fields)
    # A field left empty would leave blank lines behind.
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    shown = tuple(tag for tag in tags if tag in text) if "{hashtags}" in template else ()
    return Announcement(text, url, article.title, description, shown)
