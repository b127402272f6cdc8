"""Slugs: the one way a title, a tag or a file name becomes a URL path segment."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["anchor", "slugify"]


def slugify(text: str) -> str:
    """A URL path segment: ASCII letters and digits joined by single hyphens."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")


def anchor(text: str) -> str:
    """A heading's id: its slug where ASCII spells every letter of it (so the ids of headings
    in Latin scripts stay what they were), else its letters as they are, lowercased and joined
    by hyphens, as GitHub keeps `## 日本語` or `## Привет` readable. Empty for a heading of no
    letter or digit at all."""
    folded = slugify(text)
    letters = [c for c in unicodedata.normalize("NFKD", text) if c.isalnum()]
    if all(c.isascii() for c in letters):
        return folded
    return re.sub(r"[\W_]+", "-", unicodedata.normalize("NFKC", text).lower()).strip("-")
