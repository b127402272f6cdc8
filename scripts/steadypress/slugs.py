"""Slugs: the one way a title, a tag or a file name becomes a URL path segment."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["slugify"]


def slugify(text: str) -> str:
    """A URL path segment: ASCII letters and digits joined by single hyphens."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
