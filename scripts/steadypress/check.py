"""`steadypress check`: articles checked exactly as publishing would check them, before they
are merged, with nothing written anywhere.

Each article is read and parsed as the executor reads it, its targets checked against the
configuration, its URL checked against every other article's, and its page rendered through
the theme with its images read from the commit. When the theme or the configuration may have
changed, the whole site is built too, in a throwaway folder: every page, the listings, the
feed, the stylesheet. Every problem names the file and a line: the article's, or the theme
template's when the fault is in the template.
"""

from __future__ import annotations

import re
import tempfile
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from steadypress.articles import Article, require_configured_targets
from steadypress.config import CONFIG_FILE
from steadypress.content import ContentSource
from steadypress.errors import ArticleError, ConfigError, PublishError, TemplateFailed
from steadypress.ledger import ALONE
from steadypress.liquid import is_jekyll_post, leftover_tags
from steadypress.report import table_cell, workflow_command
from steadypress.targets.site.files import DirectorySiteFiles
from steadypress.targets.site.target import SiteTarget

__all__ = [
    "Problem",
    "check_articles",
    "check_site",
    "config_problem",
    "job_summary",
    "look_changed",
    "problem_annotations",
]

_QUOTED = re.compile(r"'([^']+)'")
_YAML_LINE = re.compile(r"line (\d+), column \d+")
_DOTTED = re.compile(r"^([\w.-]+):")  # the key a configuration message starts with


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str


def check_articles(
    content: ContentSource,
    commit: str,
    chosen: Collection[str],
    *,
    targets: Collection[str],
    sites: Mapping[str, SiteTarget],
) -> list[Problem]:
    """The problems of the articles `chosen` among those at `commit`, in path order."""
    everything = content.list_articles(commit)
    urls = _urls_of_all(content, everything, sites)
    content.prefetch(commit, chosen)  # their bytes and dates in two git processes, not 5 each
    problems: list[Problem] = []
    for path in sorted(chosen):
        blob = everything[path]
        text = content.text_at(commit, path) or ""
        problems += _unrendered_liquid(path, text)
        try:
            article = content.read(path, blob, commit=commit)
            require_configured_targets(article, targets)
            for name, site in sites.items():
                if article.targets is None or name in article.targets:
                    problems += _clashes(site, article, urls[name], text)
                    site.check(article)
        except TemplateFailed as error:
            problems.append(_in_template(error))
        except PublishError as error:
            message = str(error).removeprefix(f"{path}: ")
            problems.append(Problem(path, _line_of(message, text), message))
    return list(dict.fromkeys(problems))  # a template's fault once, however many articles met it


def check_site(content: ContentSource, commit: str, name: str, site: SiteTarget) -> list[Problem]:
    """The faults of the theme's templates that building the whole site `name` at `commit`
    meets: every page it would publish, its listings, feed, sitemaps, stylesheet and 404 page,
    written in a throwaway folder. An article's own problem is left to `check_articles`."""
    everything = content.list_articles(commit)
    content.prefetch(commit, everything)
    articles = []
    for path, blob in sorted(everything.items()):
        try:
            article = content.read(path, blob, commit=commit)  # dated as publishing dates it
        except ArticleError:
            continue  # its own problem, named when it is checked
        if not article.draft and (article.targets is None or name in article.targets):
            articles.append(article)
    with tempfile.TemporaryDirectory(prefix="steadypress-check-") as folder:
        rehearsal = site.rehearsal(DirectorySiteFiles(Path(folder)))
        try:
            rehearsal.refresh(ALONE)
            results = rehearsal.publish_batch([(article, None) for article in articles])
        except TemplateFailed as error:  # a listing's, the feed's, the stylesheet's
            return [_in_template(error)]
    return list(dict.fromkeys(_in_template(r) for r in results if isinstance(r, TemplateFailed)))


def look_changed(
    content: ContentSource, sites: Iterable[SiteTarget], base: str, commit: str
) -> bool:
    """Whether what every page shows may differ between `base` and `commit`: the configuration,
    or a site's theme folder."""
    before, after = (content.versions(c, [CONFIG_FILE])[CONFIG_FILE] for c in (base, commit))
    return before != after or any(site.look(base) != site.look(commit) for site in sites)


def _in_template(error: TemplateFailed) -> Problem:
    message = str(error).removeprefix(f"theme template {error.file}, line {error.line}: ")
    return Problem(error.file, error.line, message)


def _urls_of_all(
    content: ContentSource, articles: Mapping[str, str], sites: Mapping[str, SiteTarget]
) -> dict[str, dict[str, list[str]]]:
    """The articles at each URL path (slug) of each site, in path order. Only the articles
    whose front matter may move their URL are parsed, and those that share a URL with another:
    one that does not parse is on no site."""
    parsed = content.parse_many(articles, unless_at_path_url=True)
    urls = {name: _urls(site, parsed) for name, site in sites.items()}
    shared = {path for by_slug in urls.values() for paths in by_slug.values() if len(paths) > 1
              for path in paths if parsed[path] is None}  # fmt: skip
    if not shared:
        return urls
    parsed |= content.parse_many({path: articles[path] for path in shared})
    return {name: _urls(site, parsed) for name, site in sites.items()}


def _urls(
    site: SiteTarget, articles: Mapping[str, Article | ArticleError | None]
) -> dict[str, list[str]]:
    """The articles on `site` at each URL path (slug), in path order; None: an article not
    parsed, at its path's URL if it is on the site."""
    by_slug: dict[str, list[str]] = defaultdict(list)
    for path, article in sorted(articles.items()):
        try:
            if article is None:
                by_slug[site.path_slug(path)].append(path)
            elif isinstance(article, Article) and not article.draft:
                by_slug[site.slug_of(article)].append(path)
        except PublishError:
            continue  # that article has a problem of its own, reported when it is checked
    return by_slug


def _clashes(
    site: SiteTarget, article: Article, urls: Mapping[str, list[str]], text: str
) -> list[Problem]:
    """The other articles whose URL on `site` is this one's."""
    slug = site.slug_of(article)
    return [
        Problem(article.path, _line_of("'slug'", text),
                f"URL /{slug}/ is also the URL of {other} (set `slug:` on one of them)")
        for other in urls.get(slug, ())
        if other != article.path
    ]  # fmt: skip


def config_problem(error: ConfigError, data: bytes) -> Problem:
    """A configuration error as a problem of `steadypress.yml` (whose bytes are `data`): on the
    line PyYAML names, else on the first line that sets the key the message names (the last
    part of its dotted name: `targets.site.titl` is set on a line holding `titl:`)."""
    text = data.decode("utf-8", errors="replace")
    yaml_line = _YAML_LINE.search(error.message)
    if yaml_line:
        return Problem(error.source, int(yaml_line.group(1)), error.message)
    named = _QUOTED.findall(error.message) + _DOTTED.findall(error.message)
    for key in (name.rsplit(".", 1)[-1] for name in named):
        setting = re.compile(rf"(^|[\s{{,]){re.escape(key)}\s*:")
        lines = [n for n, line in enumerate(text.splitlines(), start=1) if setting.search(line)]
        if lines:
            return Problem(error.source, lines[0], error.message)
    return Problem(error.source, 1, error.message)


def _unrendered_liquid(path: str, text: str) -> list[Problem]:
    """A Jekyll post's Liquid that no target renders (`liquid.leftover_tags`), each at its
    line: published as written, which Jekyll never showed."""
    if not is_jekyll_post(path):
        return []
    return [
        Problem(path, _line_of(f"{tag!r}", text), f"{tag!r}: this Liquid is not rendered outside "
                "Jekyll and would be published as written; write what it stands for")
        for tag in leftover_tags(text)
    ]  # fmt: skip


def _line_of(message: str, text: str) -> int:
    """The line a problem is on: the one PyYAML names, the front matter key the message names,
    or the first line quoting what the message quotes; else the first line."""
    lines = text.splitlines()
    yaml_line = _YAML_LINE.search(message)
    if yaml_line and message.startswith("front matter is not valid YAML"):
        return int(yaml_line.group(1))  # PyYAML counts the opening --- line too
    for quoted in _QUOTED.findall(message):
        as_key = [n for n, line in enumerate(lines, start=1) if line.startswith(f"{quoted}:")]
        quoting = [n for n, line in enumerate(lines, start=1) if quoted in line]
        if as_key or quoting:
            return (as_key or quoting)[0]
    return 1


def problem_annotations(problems: Collection[Problem]) -> list[str]:
    """Each problem as a GitHub annotation on its file and line."""
    return [
        workflow_command(
            "error", p.message, file=p.path, line=str(p.line), title="steadypress check"
        )
        for p in problems
    ]


def job_summary(problems: Collection[Problem], checked: int, *, whole_site: bool) -> str:
    built = ", the whole site built with the theme" if whole_site else ""
    lines = [
        "### steadypress check",
        "",
        f"{checked} article(s) checked{built}, {len(problems)} problem(s).",
    ]
    if problems:
        lines += ["", "| file | line | problem |", "| --- | --- | --- |"]
        lines += [
            f"| `{table_cell(p.path)}` | {p.line} | {table_cell(p.message)} |" for p in problems
        ]
    return "\n".join(lines) + "\n"
