"""The numbered pages a Hugo or Jekyll blog's paginator cut its lists into (`/page/2/`), which
a blog moving onto steadypress's own site keeps as redirects (`moving_in.old_site_settings`)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Pager", "hugo_pager", "jekyll_pager", "numbered_pages"]


@dataclass(frozen=True)
class Pager:
    """How a generator numbered a list's pages: `size` entries a page, page N's address the
    list's with `pattern` (`:num` standing for N) after it."""

    size: int
    pattern: str
    # Whether page 1 has an address of its own (Hugo's redirect to the list), or is the list.
    first_page: bool


def hugo_pager(repo: Path, config: Mapping[str, Any]) -> Pager | None:
    """Hugo's pager (`pagination.pagerSize`, `pagination.path`; before Hugo 0.128 `paginate`
    and `paginatePath`: https://gohugo.io/templates/pagination/) of a configuration whose keys
    are lowercased, where the blog's templates paginate a list: Hugo numbers pages only for a
    template that asks for `.Paginator` or `.Paginate`."""
    if not _hugo_templates_paginate(repo, config.get("theme")):
        return None
    table = config.get("pagination")
    table = {str(k).lower(): v for k, v in table.items()} if isinstance(table, Mapping) else {}
    size = table.get("pagersize", config.get("paginate", 10))
    path = table.get("path", config.get("paginatepath", "page"))
    if not isinstance(size, int) or size < 1 or not isinstance(path, str) or not path.strip("/"):
        return None
    disabled = table.get("disablealiases") is True
    return Pager(size, f"{path.strip('/')}/:num/", first_page=not disabled)


def jekyll_pager(config: Mapping[str, Any]) -> Pager | None:
    """jekyll-paginate's pager of the front page (`paginate`, `paginate_path`:
    https://jekyllrb.com/docs/pagination/), where the blog's `plugins` (before Jekyll 3.5,
    `gems`) load it; GitHub Pages builds with it."""
    plugins = config.get("plugins", config.get("gems"))
    size = config.get("paginate")
    if not isinstance(plugins, list) or "jekyll-paginate" not in plugins:
        return None
    if not isinstance(size, int) or size < 1:
        return None
    path = config.get("paginate_path", "/page:num/")
    if not isinstance(path, str) or ":num" not in path:
        return None
    pattern = path.strip("/")
    return Pager(size, pattern if pattern.endswith(".html") else f"{pattern}/", first_page=False)


def numbered_pages(pager: Pager, entries: int, *, ugly: bool = False) -> Iterator[tuple[int, str]]:
    """The numbered pages of a list of `entries`, each with its address relative to the list's:
    Hugo writes page 1's even for an empty list; `ugly` (a term's list under Hugo's
    `uglyURLs`) ends each in `.html`."""
    last = max(1, math.ceil(entries / pager.size))
    for number in range(1 if pager.first_page else 2, last + 1):
        address = pager.pattern.replace(":num", str(number))
        yield number, address.removesuffix("/") + ".html" if ugly else address


def _hugo_templates_paginate(repo: Path, theme: Any) -> bool:
    """Whether any of the blog's templates (its own `layouts/` and its themes') asks for a
    paginator; True where a theme named is not in the repository to look at (a Hugo module,
    a submodule not checked out), as the themes people pick paginate their lists."""
    themes = theme if isinstance(theme, list) else [theme] if isinstance(theme, str) else []
    folders = [repo / "layouts"] + [repo / "themes" / str(name) / "layouts" for name in themes]
    if any(not folder.is_dir() for folder in folders[1:]):
        return True
    return any(
        b"Paginat" in path.read_bytes()
        for folder in folders
        if folder.is_dir()
        for path in folder.rglob("*")
        if path.is_file()
    )
