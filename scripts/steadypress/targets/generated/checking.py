"""`steadypress check` for a site the blog's generator makes: the site built at the commit
checked, as publishing would build it, writing nothing. Each article the generator fails on
is a problem at the file and line its failure names; a failure of the site's own (a template,
the configuration) is one problem, at the file it names."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from steadypress.check import Problem
from steadypress.config import CONFIG_FILE
from steadypress.errors import PublishError
from steadypress.targets.generated.target import GeneratedSite

__all__ = ["check_generated_site", "generated_sites"]

# Where a generator's message puts the fault: "path:line:column" (Hugo), "(line N)" (Liquid).
_AT_LINE = r'"?{path}:(\d+)(?::\d+)?"?'
_LIQUID_LINE = re.compile(r"\(line (\d+)\)")


def check_generated_site(
    site: GeneratedSite, commit: str, chosen: Collection[str]
) -> list[Problem]:
    """The problems of the site's build at `commit`: of the articles `chosen` that it leaves
    out, and of the site itself; one saying the build was not checked where the generator is
    not installed here."""
    missing = site.unavailable_reason()
    if missing is not None:
        return [Problem(CONFIG_FILE, 1, f"targets.{site.name}: not built: {missing}")]
    try:
        built = site.built_at(commit)
    except PublishError as error:
        named = [*error.depends_on, CONFIG_FILE]
        return [Problem(named[0], _line(str(error), named[0]), str(error))]
    return [
        Problem(path, _line(message, path), message)
        for path, message in sorted(built.left_out.items())
        if path in chosen
    ]


def generated_sites(targets: Mapping[str, object]) -> list[GeneratedSite]:
    return [target for target in targets.values() if isinstance(target, GeneratedSite)]


def _line(message: str, path: str) -> int:
    """The line of `path` the message names: after its name (Hugo), or Liquid's `(line N)`."""
    source = path.rsplit("/", 1)[-1]
    found = re.search(_AT_LINE.format(path=re.escape(source)), message)
    found = found or _LIQUID_LINE.search(message)
    return int(found.group(1)) if found else 1
