"""The site's look: Jinja2 templates and one stylesheet, the user's own where they have them.

A folder of the repository (the site target's `theme` setting) may hold any of `base.html`,
`article.html`, `neighbours.html` (the links to the older and newer article, which steadypress
rewrites alone when a neighbour changes), `index.html` (the newest articles), `archive.html`
(the years), `year.html` (a year's months), `month.html`, `tag.html` (a tag's newest
articles and years, or one year of them), `tag_years.html` (every year of a tag that has
many), `tags.html`, `list.html`, `pager.html` (the links between the pages of a crowded month
or tag's year, which a month's or tag's page without them gets before `</body>`), `404.html`
and `style.css`;
the rest come from the default theme shipped in `steadypress/theme/`. Every value from front
matter is escaped by the templates (autoescape), and the same inputs give the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
from collections.abc import Callable
from importlib import resources
from typing import TYPE_CHECKING, Any

from steadypress.errors import PermanentError
from steadypress.render import RENDER_VERSION, highlight_css

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = ["Theme", "shipped_look"]


def _text(data: bytes | None, where: str, name: str) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise PermanentError(
            f"theme template {where}/{name}: not UTF-8 text", depends_on=(where,)
        ) from None


class Theme:
    """`override(name)` gives the user's version of a theme file (None where they have none),
    read from git like everything steadypress publishes; `where` names their folder."""

    def __init__(
        self, override: Callable[[str], bytes | None] | None = None, *, where: str = ""
    ) -> None:
        self._override = override
        self._where = where

    @functools.cached_property
    def _environment(self) -> Environment:
        # Jinja2 is imported when a page is first rendered: a run with nothing to publish (an
        # idle sweep) does not pay for it.
        from jinja2 import (  # noqa: PLC0415
            ChoiceLoader,
            Environment,
            FunctionLoader,
            PackageLoader,
            StrictUndefined,
            select_autoescape,
        )

        loaders: list[Any] = []
        if (override := self._override) is not None:
            where = self._where
            loaders.append(FunctionLoader(lambda name: _text(override(name), where, name)))
        return Environment(
            loader=ChoiceLoader([*loaders, PackageLoader("steadypress", "theme")]),
            autoescape=select_autoescape(["html"]),
            auto_reload=False,  # the templates do not change during a run: no stat per render
            undefined=StrictUndefined,  # a misspelt variable in a user's template is an error
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def render(self, template: str, **context: Any) -> bytes:
        from jinja2 import TemplateError  # noqa: PLC0415 (imported with the environment)

        try:
            return self._environment.get_template(template).render(**context).encode()
        except TemplateError as error:
            where = f"{self._where}/{template}" if self._where else template
            raise PermanentError(
                f"theme template {where}: {error}", depends_on=(self._where,) if self._where else ()
            ) from None

    def compile(self, *templates: str) -> None:
        """Compile these templates now rather than at their first page (an error in one is
        left to that page to meet)."""
        from jinja2 import TemplateError  # noqa: PLC0415 (imported with the environment)

        for template in templates:
            with contextlib.suppress(TemplateError):
                self._environment.get_template(template)

    def stylesheet(self) -> bytes:
        light, dark = highlight_css()
        return self.render("style.css", highlight_light=light, highlight_dark=dark)


@functools.cache
def shipped_look() -> str:
    """A digest of what steadypress itself puts in every page: the default theme's files, and
    the HTML it makes of Markdown (`RENDER_VERSION`, which the pinned renderers' versions are
    part of)."""
    digest = hashlib.sha256(f"render {RENDER_VERSION}".encode())
    folder = resources.files("steadypress") / "theme"
    for item in sorted(folder.iterdir(), key=lambda item: item.name):
        if item.is_file():
            digest.update(f"\0{item.name}\0".encode() + item.read_bytes())
    return digest.hexdigest()
