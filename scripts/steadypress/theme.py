"""The site's look: Jinja2 templates and one stylesheet, the user's own where they have them.

A folder of the repository (the site target's `theme` setting) may hold any of `base.html`,
`article.html`, `index.html`, `tag.html`, `list.html` and `style.css`; the rest come from the
default theme shipped in `steadypress/theme/`. Every value from front matter is escaped by the
templates (autoescape), and the same inputs give the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    StrictUndefined,
    TemplateError,
    select_autoescape,
)

from steadypress.errors import PermanentError
from steadypress.render import highlight_css

__all__ = ["THEME_FILES", "Theme"]

THEME_FILES = ("base.html", "article.html", "index.html", "tag.html", "list.html", "style.css")


class Theme:
    def __init__(self, override: Path | None = None) -> None:
        loaders: list[Any] = [FileSystemLoader(str(override))] if override is not None else []
        self._environment = Environment(
            loader=ChoiceLoader([*loaders, PackageLoader("steadypress", "theme")]),
            autoescape=select_autoescape(["html"]),
            undefined=StrictUndefined,  # a misspelt variable in a user's template is an error
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self._override = override

    def render(self, template: str, **context: Any) -> bytes:
        try:
            return self._environment.get_template(template).render(**context).encode()
        except TemplateError as error:
            where = self._override / template if self._override else template
            raise PermanentError(f"theme template {where}: {error}") from None

    def stylesheet(self) -> bytes:
        light, dark = highlight_css()
        return self.render("style.css", highlight_light=light, highlight_dark=dark)
