"""Slugs: the one way a title, a tag or a file name becomes a URL path segment."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["anchor", "path_slug", "same_tag", "slugify", "tag_slug", "transliterated"]

# Symbols that name a language in a tag: `C++`, `C#`, `F#` keep a page apart from `C` and `F`.
_PLUSES, _SHARP = re.compile(r"(?<=\w)\++"), re.compile(r"(?<=\w)#")


def slugify(text: str) -> str:
    """A URL path segment: ASCII letters and digits joined by single hyphens."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")


def transliterated(text: str) -> str:
    """A slug of ASCII letters for text in any script, spelled in Latin letters by
    python-slugify's transliteration (`Привет мир` is `privet-mir`, `日本語` `ri-ben-yu`)."""
    from slugify import slugify as spelled_in_latin  # noqa: PLC0415 - its tables, when needed

    return str(spelled_in_latin(text))


def anchor(text: str) -> str:
    """A heading's id: its slug where ASCII spells every letter of it (so the ids of headings
    in Latin scripts stay what they were), else its letters as they are, lowercased and joined
    by hyphens, as GitHub keeps `## 日本語` or `## Привет` readable. Empty for a heading of no
    letter or digit at all."""
    if _ascii_spells(text):
        return slugify(text)
    return re.sub(r"[\W_]+", "-", unicodedata.normalize("NFKC", text).lower()).strip("-")


def path_slug(source: str, *, latin: bool = False) -> str:
    """The URL path made of a `slug` or an article's path: each part's ASCII slug (what it has
    always been, so no published URL moves), or, for a part ASCII spells nothing of
    (`Привет мир`), its letters in their own script, or with `latin` `transliterated`; a part
    of neither is empty."""
    if latin:
        return "/".join(map(_in_latin, source.split("/")))
    return "/".join(slugify(part) or anchor(part) for part in source.split("/"))


def tag_slug(tag: str, *, latin: bool = False) -> str:
    """A tag's page's name: its heading id (`anchor`: its slug when ASCII spells its letters,
    else its letters in their own script, as `новости`, or with `latin` `transliterated`, as
    `novosti`), `+` and `#` after a letter spelled out (`C++` is `cpp`, `C#` `csharp`). Empty
    for a tag of no letter or digit."""
    tag = _SHARP.sub("sharp", _PLUSES.sub(lambda pluses: "p" * len(pluses[0]), tag))
    return _in_latin(tag) if latin else anchor(tag)


def _in_latin(text: str) -> str:
    """Its slug where ASCII spells every letter of it (the same as without `latin`), else
    every letter `transliterated` (`Café Новости` is `cafe-novosti`)."""
    return slugify(text) if _ascii_spells(text) else transliterated(text)


def _ascii_spells(text: str) -> bool:
    """Whether ASCII spells every letter and digit of `text`, its accents taken off."""
    return all(c.isascii() for c in unicodedata.normalize("NFKD", text) if c.isalnum())


def same_tag(one: str, other: str) -> bool:
    """Whether two spellings are one tag (`Machine Learning`, `machine-learning`): the same
    letters, digits, `+` and `#`, whatever their case, spaces and other punctuation. Two that
    are not, on one page (`C#` and `CSharp`), would merge two tags without a word."""

    def letters(tag: str) -> str:
        return re.sub(r"[^\w+#]|_", "", unicodedata.normalize("NFKC", tag).casefold())

    return letters(one) == letters(other)
