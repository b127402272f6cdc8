"""Pages by their place: the files and folders of the content folder that hold pages beside the
articles unless the configuration says otherwise (`Config.pages`), and whether a file is in
one. The configuration, the content and the site's look all ask, so it stands below them."""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["DEFAULT_PAGES", "placed_as_page"]

# Pelican's `content/pages/`.
DEFAULT_PAGES = ("pages",)


def placed_as_page(path: str, places: Collection[str]) -> bool:
    """Whether the file at `path` is one of `places` or in one (both from the same root)."""
    return any(path == place or path.startswith(place + "/") for place in places)
