"""The site's look: Jinja2 templates and one stylesheet, the user's own where they have them.

A folder of the repository (the site target's `theme` setting) may hold any of `base.html`,
`article.html`, `page.html` (a page beside the articles, `layout: page`), `meta.html` (the
link-preview tags both show), `neighbours.html` (the links to the older and newer article,
which steadypress rewrites alone when a neighbour changes), `index.html` (the newest
articles), `archive.html` (the years), `year.html` (a year's months), `month.html`, `tag.html`
(a tag's newest articles and years, or one year of them), `tag_years.html` (every year of a
tag that has many), `tags.html`, `list.html`, `pager.html` (the links between the pages of a
crowded month or tag's year, which a month's or tag's page without them gets before
`</body>`), `404.html` and `style.css`; the rest come from the default theme shipped in
`steadypress/theme/`. Every value from front matter is escaped by the templates (autoescape),
and the same inputs give the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from collections.abc import Callable, Collection
from importlib import resources
from typing import TYPE_CHECKING, Any

from steadypress.errors import TemplateFailed
from steadypress.render import RENDER_VERSION, highlight_css

if TYPE_CHECKING:
    from jinja2 import BaseLoader, Environment

__all__ = ["LISTING_TEMPLATES", "SINGLE_TEMPLATES", "Theme", "shipped_look"]

# The templates of the files a site has one of (the stylesheet, the 404 page, the front page,
# the archive, the tags page): a change to one alone rewrites that file, not every page (unless
# another page's template includes it: `Theme.pages_reach`).
SINGLE_TEMPLATES = frozenset({"style.css", "404.html", "index.html", "archive.html", "tags.html"})
# The templates of the other listing pages (a year's, a month's, a tag's, and what they share):
# a change to those alone rewrites every listing page, not one article's (unless an article's
# page template includes one).
LISTING_TEMPLATES = frozenset(
    {"year.html", "month.html", "tag.html", "tag_years.html", "list.html", "pager.html"}
)


def _text(data: bytes | None, file: str, where: str) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise TemplateFailed(
            f"theme template {file}, line {line}: not UTF-8 text",
            file=file,
            line=line,
            depends_on=(where,) if where else (),
        ) from None


class Theme:
    """`override(name)` gives the user's version of a theme file (None where they have none),
    read from git like everything steadypress publishes; `where` names their folder."""

    def __init__(
        self, override: Callable[[str], bytes | None] | None = None, *, where: str = ""
    ) -> None:
        self._override = override
        self._where = where
        self._user_files: set[str] = set()  # the files of the user's templates loaded

    def reloaded(self) -> Theme:
        """The same theme, its templates read again when first rendered."""
        return Theme(self._override, where=self._where)

    @functools.cached_property
    def _environment(self) -> Environment:
        # Jinja2 is imported when a page is first rendered: a run with nothing to publish (an
        # idle sweep) does not pay for it.
        from jinja2 import StrictUndefined, select_autoescape  # noqa: PLC0415
        from jinja2.sandbox import SandboxedEnvironment  # noqa: PLC0415

        from steadypress.compiledtemplates import COMPILED  # noqa: PLC0415 (imports Jinja2)

        # Sandboxed: a template is the repository's, but the process rendering it holds the
        # targets' secrets, and a template reaching Python's internals
        # (`cycler.__init__.__globals__.os.environ`) would publish them on the site.
        return SandboxedEnvironment(
            loader=self._loader,
            autoescape=select_autoescape(["html"]),
            auto_reload=False,  # the templates do not change during a run: no stat per render
            undefined=StrictUndefined,  # a misspelt variable in a user's template is an error
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
            bytecode_cache=COMPILED,  # each template compiled once a process
        )

    @functools.cached_property
    def _loader(self) -> BaseLoader:
        """The user's templates, then the default theme's."""
        from jinja2 import ChoiceLoader, FunctionLoader, PackageLoader  # noqa: PLC0415

        loaders: list[BaseLoader] = []
        if (override := self._override) is not None:
            loaders.append(FunctionLoader(functools.partial(self._user_template, override)))
        return ChoiceLoader([*loaders, PackageLoader("steadypress", "theme")])

    def _user_template(
        self, override: Callable[[str], bytes | None], name: str
    ) -> tuple[str, str, Callable[[], bool]] | None:
        """The user's template `name`, under its repository path: an error in it, and the
        frames of a traceback through it, name that file."""
        text = _text(override(name), self._repository_path(name), self._where)
        if text is None:
            return None
        self._user_files.add(self._repository_path(name))
        return text, self._repository_path(name), lambda: True

    def _repository_path(self, name: str) -> str:
        return f"{self._where}/{name}" if self._where else name

    def render(self, template: str, **context: Any) -> bytes:
        from jinja2 import TemplateError, TemplateNotFound  # noqa: PLC0415 (as the environment)

        try:
            return self._environment.get_template(template).render(**context).encode()
        except TemplateError as error:
            file, line = self._fault(error, template)
            missing = isinstance(error, TemplateNotFound)  # Jinja's message: the name alone
            problem = f"no template {str(error)!r}" if missing else str(error)
            raise TemplateFailed(
                f"theme template {file}, line {line}: {problem}"
                + (
                    ""
                    if file in (template, self._repository_path(template))
                    else f" (rendering {template})"
                ),
                file=file,
                line=line,
                depends_on=(self._where,) if self._where else (),
            ) from None

    def _fault(self, error: Exception, template: str) -> tuple[str, int]:
        """The template file and line `error` arose at: where a syntax error is, else the
        innermost template frame of its traceback (Jinja names each frame by its template's
        file); the template rendered, line 1, when neither says."""
        from jinja2 import TemplateSyntaxError  # noqa: PLC0415

        if isinstance(error, TemplateSyntaxError) and error.filename:
            return self._named(error.filename) or error.filename, error.lineno
        theirs = self._repository_path(template)
        fault = (theirs if theirs in self._user_files else template, 1)
        frame = error.__traceback__
        while frame is not None:
            named = self._named(frame.tb_frame.f_code.co_filename)
            if named is not None:
                fault = (named, frame.tb_lineno)
            frame = frame.tb_next
        return fault

    def _named(self, filename: str) -> str | None:
        """A template's file as the user knows it: the repository path of theirs, the bare name
        of one steadypress ships; None for any other file (Python's)."""
        if filename in self._user_files:
            return filename
        folder, name = os.path.split(filename)
        return name if folder == _shipped_folder() else None

    def compile(self, *templates: str) -> None:
        """Compile these templates now rather than at their first page (an error in one is
        left to that page to meet)."""
        from jinja2 import TemplateError  # noqa: PLC0415 (imported with the environment)

        for template in templates:
            with contextlib.suppress(TemplateError):
                self._environment.get_template(template)

    def pages_reach(self, names: Collection[str]) -> bool:
        """Whether a template of the pages (every template steadypress renders but `names`), or
        one it extends, includes or imports, is among `names`. A template named only when the
        page renders (from a variable) counts as one of them: what it is cannot be known."""
        from jinja2 import TemplateNotFound, TemplateSyntaxError, meta  # noqa: PLC0415

        environment = self._environment
        todo = sorted(_shipped_templates() - set(names))
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            try:
                source, _filename, _uptodate = self._loader.get_source(environment, name)
                parsed = environment.parse(source)
            except (TemplateNotFound, TemplateSyntaxError):
                continue  # the pages that render it fail on it, whatever else changed
            for reached in meta.find_referenced_templates(parsed):
                if reached is None or reached in names:
                    return True
                todo.append(reached)
        return False

    def stylesheet(self) -> bytes:
        light, dark = highlight_css()
        return self.render("style.css", highlight_light=light, highlight_dark=dark)


@functools.cache
def _shipped_folder() -> str:
    return str(resources.files("steadypress") / "theme")


def _shipped_templates() -> frozenset[str]:
    folder = resources.files("steadypress") / "theme"
    return frozenset(item.name for item in folder.iterdir() if item.is_file())


@functools.cache
def shipped_look() -> tuple[str, str, str]:
    """Digests of what steadypress itself puts in the site: what every page shows (the default
    theme's templates but those below), what only the listing pages show (`LISTING_TEMPLATES`)
    and what only the files the site has one of show (`SINGLE_TEMPLATES`, and the
    highlighting's colours). Each holds the HTML it makes of Markdown and the colours of
    highlighted code, which `RENDER_VERSION` numbers with the pinned renderers' versions."""
    pages, listings, singles = (
        hashlib.sha256(f"render {RENDER_VERSION}".encode()) for _ in range(3)
    )
    folder = resources.files("steadypress") / "theme"
    for name in sorted(_shipped_templates()):
        digest = (
            singles if name in SINGLE_TEMPLATES else listings if name in LISTING_TEMPLATES
            else pages
        )  # fmt: skip
        digest.update(f"\0{name}\0".encode() + (folder / name).read_bytes())
    return pages.hexdigest(), listings.hexdigest(), singles.hexdigest()
