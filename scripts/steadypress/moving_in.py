"""What a Jekyll or Hugo blog moving onto steadypress's own site keeps from its generator's
configuration: its title, its address, and where its articles were (`permalink`,
`permalinks`), so that every old URL answers (`targets/site/old_urls.py`)."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from steadypress.articles import ARTICLE_SUFFIXES, parse_article
from steadypress.errors import ArticleError, ConfigError
from steadypress.old_pagers import Pager, hugo_pager, jekyll_pager, numbered_pages
from steadypress.targets.site.manifest import HUGO_FEED, redirect_file, tag_path
from steadypress.targets.site.old_layout import TAXONOMY
from steadypress.targets.site.old_urls import hugo_sanitized, term_feed_paths

__all__ = [
    "HUGO_CONFIGS",
    "JEKYLL_CONFIGS",
    "OldPage",
    "old_site_settings",
    "pages_outside",
]

# Files that make a folder a Hugo project (`hugo.*` since Hugo 0.110; `config.*` before).
HUGO_CONFIGS = tuple(
    f"{stem}.{extension}"
    for stem in ("hugo", "config")
    for extension in ("toml", "yaml", "yml", "json")
)
# The files that make a folder a Jekyll site.
JEKYLL_CONFIGS = ("_config.yml", "_config.yaml", "_config.toml")
# Hugo's default taxonomies, which steadypress reads as tags.
_TAG_TAXONOMIES = ("tags", "categories")
# The addresses `hugo new site` and documentation examples leave in place: no blog's own.
_PLACEHOLDER_HOSTS = ("example.org", "example.com", "localhost", "127.0.0.1")


@dataclass(frozen=True)
class OldPage:
    """A Jekyll page (`about.md` beside `_posts/`): outside the posts, which steadypress reads."""

    path: str
    title: str
    url: str  # its `permalink`, else the address its name gives


def old_site_settings(
    repo: Path, generator: str, pages: Sequence[OldPage] = (), *, content: str = "content"
) -> dict[str, Any]:
    """The site target's settings that keep what the blog's `generator` configuration says:
    `moved_from`, `old_permalinks` where it sets any, Jekyll's `timezone` and Hugo's
    `uglyURLs`, `title` and `url` where it names them, a `menu` of the pages its header linked
    (Jekyll's `pages`, from `pages_outside`, or those `header_pages` names; Hugo's
    `menu.main`); and what its old list pages need (`_jekyll_extras`, `_hugo_extras`)."""
    if generator == "jekyll":
        name, config = _first_config(repo, JEKYLL_CONFIGS)
        address = _joined(config.get("url"), config.get("baseurl"))
        permalinks: Any = config.get("permalink")
        permalinks = permalinks.strip() if isinstance(permalinks, str) else None
        menu = _jekyll_menu(pages, config.get("header_pages"))
        extra = _jekyll_extras(repo / content, config)
    else:
        name, config = _first_config(repo, HUGO_CONFIGS)
        config = {str(key).lower(): value for key, value in config.items()}  # as Hugo reads it
        address = _joined(config.get("baseurl"), None)
        permalinks = _hugo_permalinks(config.get("permalinks"), name)
        menu = _hugo_menu(config.get("menu"))
        extra = _hugo_extras(repo, repo / content, config)
    settings: dict[str, Any] = {"moved_from": generator, **extra}
    if permalinks:
        settings["old_permalinks"] = permalinks
    title = config.get("title")
    if isinstance(title, str) and title.strip():
        settings["title"] = title.strip()
    if address is not None:
        settings["url"] = address
    if menu:
        settings["menu"] = menu
    return settings


def _jekyll_extras(content: Path, config: Mapping[str, Any]) -> dict[str, Any]:
    """`old_timezone` where Jekyll's `timezone` is set, and `redirects` from the numbered pages
    jekyll-paginate cut the front page into to the archive."""
    extra: dict[str, Any] = {}
    if isinstance(config.get("timezone"), str) and config["timezone"].strip():
        extra["old_timezone"] = config["timezone"].strip()
    if pager := jekyll_pager(config):
        posts = len(_article_files(content))
        numbered = {f"/{page}": "/archive/" for _number, page in numbered_pages(pager, posts)}
        if numbered := {old: new for old, new in numbered.items() if redirect_file(old[1:])}:
            extra["redirects"] = numbered
    return extra


def _hugo_extras(repo: Path, content: Path, config: Mapping[str, Any]) -> dict[str, Any]:
    """`old_ugly_urls` where Hugo's `uglyURLs` is set; and from the articles in `content`, read
    once, `redirects` from the list pages Hugo made of them, and their numbered pages, to the
    site's own, `feed_also_at` at each of their sections' feeds and another taxonomy's, and
    `old_term_feeds` for the tags and categories they name."""
    ugly = config.get("uglyurls") is True
    extra: dict[str, Any] = {"old_ugly_urls": True} if ugly else {}
    found = _article_files(content)
    sections, terms = _hugo_sections(found), _hugo_terms(found, _hugo_taxonomies(config))
    redirects = _hugo_lists(sections, terms, ugly=ugly)
    if pager := hugo_pager(repo, config):
        redirects |= _hugo_numbered_pages(pager, found, sections, terms, ugly=ugly)
    if redirects := _standing(redirects):
        extra["redirects"] = redirects
    # A section's feed (Hugo's `/posts/index.xml`): the site's, as its readers follow it; and
    # another taxonomy's (`/series/index.xml`, `/series/deep-dives/index.xml`), whose terms
    # the site keeps no list of: the feed nearest them, as their pages lead to the archive.
    feeds = [f"/{section}/index.xml" for section in sections] + _other_term_feeds(terms)
    if feeds:
        extra["feed_also_at"] = feeds
    # Each tag's and category's feed (`/tags/go/index.xml`): the tag's newest articles.
    named = [taxonomy for taxonomy, found in terms.items() if found]
    if taxonomies := [taxonomy for taxonomy in named if taxonomy in _TAG_TAXONOMIES]:
        extra["old_term_feeds"] = taxonomies
    return extra


def pages_outside(repo: Path) -> list[OldPage]:
    """A Jekyll blog's pages at its root, beside its content folder (front matter with a
    `title`, as Jekyll's minima lists them in its header), read as articles are."""
    pages = []
    for path in sorted(repo.glob("*")):
        if not path.name.endswith(ARTICLE_SUFFIXES) or path.stem.lower() in _NOT_PAGES:
            continue
        try:
            page = parse_article(path.name, "", path.read_bytes())
        except ArticleError:  # no title, or front matter that does not parse: not a page
            continue
        permalink = page.metadata.get("permalink")
        url = permalink if isinstance(permalink, str) and permalink.startswith("/") else None
        pages.append(OldPage(path.name, page.title, url or f"/{path.stem}/"))
    return pages


def _standing(redirects: Mapping[str, str]) -> dict[str, str]:
    """The redirects whose page may stand on the site (`redirect_file`)."""
    return {old: new for old, new in redirects.items() if redirect_file(old[1:])}


def _hugo_lists(
    sections: Sequence[str], terms: Mapping[str, Counter[str]], *, ugly: bool
) -> dict[str, str]:
    """The list pages Hugo made of its `sections` and taxonomies' `terms` whose address the
    site has not (https://gohugo.io/content-management/sections/, .../taxonomies/), each to
    the site's page nearest it: a section's page (`/posts/`) to the archive, a taxonomy's
    (`/categories/`) and each of its terms' to the site's page of the tags and of that tag
    (`_term_page`), where Hugo's address (`/tags/c++/`, `/categories/web/`) is not the
    site's."""
    redirects = {f"/{section}/": "/archive/" for section in sections}
    for taxonomy, found in terms.items():
        if found and taxonomy != "tags":
            redirects[f"/{taxonomy}/"] = _taxonomy_page(taxonomy)
        for term in sorted(found):
            name = hugo_sanitized(term)
            old = f"/{taxonomy}/{name}.html" if ugly else f"/{taxonomy}/{name}/"
            new = _term_page(taxonomy, term)
            if name and old != new:
                redirects[old] = new
    return redirects


def _other_term_feeds(terms: Mapping[str, Counter[str]]) -> list[str]:
    """Where Hugo served the feeds of a taxonomy steadypress does not read as tags: the
    taxonomy's (its terms') and each of its terms' (https://gohugo.io/templates/rss/)."""
    feeds = []
    for taxonomy, found in terms.items():
        if found and taxonomy not in _TAG_TAXONOMIES:
            named = {path for term in found for path in term_feed_paths([taxonomy], term)}
            feeds += [f"/{taxonomy}/{HUGO_FEED}", *(f"/{path}" for path in sorted(named))]
    return feeds


def _taxonomy_page(taxonomy: str) -> str:
    """The site's page nearest a Hugo taxonomy's: the tags', for the two steadypress reads as
    tags; the archive, where every article is, for another (`series`)."""
    return "/tags/" if taxonomy in _TAG_TAXONOMIES else "/archive/"


def _term_page(taxonomy: str, term: str) -> str:
    """The site's page nearest a Hugo term's: the tag's, for a tag or a category; the archive
    for a term of another taxonomy."""
    if taxonomy not in _TAG_TAXONOMIES:
        return "/archive/"
    return "/" + tag_path(term).removesuffix("index.html")


def _hugo_numbered_pages(
    pager: Pager,
    pages: Sequence[tuple[str, Path]],
    sections: Sequence[str],
    terms: Mapping[str, Counter[str]],
    *,
    ugly: bool,
) -> dict[str, str]:
    """The numbered pages Hugo's `pager` cut the lists of these articles into, each to the
    site's page nearest it: page 1 to its list's, a later page of the front page's or a
    section's list to the archive (where every article is, by date), of a taxonomy's to the
    tags' page, of a term's to the tag's page. The count of a list's entries is the most Hugo
    could have shown: a template may list fewer (the front page, often the main sections'
    articles), and a redirect from a page Hugo did not make harms no one."""
    lists = [("/", len(pages), "/", "/archive/")]
    for section in sections:
        inside = sum(relative.startswith(f"{section}/") for relative, _path in pages)
        lists.append((f"/{section}/", inside, "/archive/", "/archive/"))
    redirects = {
        address + page: first if number == 1 else later
        for address, entries, first, later in lists
        for number, page in numbered_pages(pager, entries)
    }
    for taxonomy, counted in terms.items():
        by_name: Counter[str] = Counter()  # Hugo's one page for `Go` and `go`
        for term, count in counted.items():
            by_name[hugo_sanitized(term)] += count
        for _number, page in numbered_pages(pager, len(by_name)) if counted else ():
            redirects[f"/{taxonomy}/{page}"] = _taxonomy_page(taxonomy)
        for term in sorted(counted):
            name, new = hugo_sanitized(term), _term_page(taxonomy, term)
            for _number, page in numbered_pages(pager, by_name[name], ugly=ugly) if name else ():
                redirects[f"/{taxonomy}/{name}/{page}"] = new
    return redirects


def _hugo_terms(
    pages: Sequence[tuple[str, Path]], taxonomies: Sequence[str]
) -> dict[str, Counter[str]]:
    """The terms of Hugo's `taxonomies` in these articles (`_article_files`), by taxonomy,
    each with the count of articles it names."""
    terms: dict[str, Counter[str]] = {taxonomy: Counter() for taxonomy in taxonomies}
    for relative, path in pages:
        try:
            metadata = parse_article(relative, "", path.read_bytes()).metadata
        except ArticleError:  # an article steadypress will name when it publishes
            continue
        for taxonomy, found in terms.items():
            named = metadata.get(taxonomy)
            named = named if isinstance(named, list) else [named] if named else []
            found.update(set(map(str, named)))
    return terms


def _hugo_taxonomies(config: Mapping[str, Any]) -> list[str]:
    """Hugo's taxonomies, by the folder of their pages and their front matter key: those
    `taxonomies` names (singular to plural), else Hugo's two, `tags` and `categories`."""
    named = config.get("taxonomies")
    if not isinstance(named, Mapping):
        return list(_TAG_TAXONOMIES)
    plurals = [plural for plural in named.values() if isinstance(plural, str)]
    return [plural for plural in plurals if TAXONOMY.fullmatch(plural)]


def _hugo_sections(pages: Sequence[tuple[str, Path]]) -> list[str]:
    """Hugo's sections of these articles (`_article_files`): the top folders that hold any."""
    return sorted({relative.split("/")[0] for relative, _path in pages if "/" in relative})


def _article_files(content: Path) -> list[tuple[str, Path]]:
    """The articles the generator made pages of in `content`, each by its path there and its
    file: its Markdown files but Hugo's sections' own."""
    return [
        (path.relative_to(content).as_posix(), path) for path in sorted(content.rglob("*"))
        if path.name.endswith(ARTICLE_SUFFIXES) and not path.name.startswith("_index.")
    ]  # fmt: skip


# Files at a blog's root that are not its pages.
_NOT_PAGES = frozenset({"readme", "index", "404", "changelog", "license", "contributing"})


def _jekyll_menu(pages: Sequence[OldPage], header_pages: Any) -> dict[str, str]:
    """minima's header: the pages `header_pages` names, in its order, else every page."""
    if isinstance(header_pages, list):
        by_name = {page.path: page for page in pages}
        pages = [by_name[str(name)] for name in header_pages if str(name) in by_name]
    return {page.title: page.url for page in pages}


def _hugo_menu(value: Any) -> dict[str, str]:
    """Hugo's `menu.main` entries with a `name` and a `url` (or `pageRef`), by `weight`."""
    entries = value.get("main") if isinstance(value, Mapping) else None
    if not isinstance(entries, list):
        return {}
    found = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        page = entry.get("pageRef") or entry.get("pageref")  # a content path: its page
        link = entry.get("url") or (
            f"/{page.strip('/').removesuffix('.md')}/" if isinstance(page, str) else None
        )
        if isinstance(entry.get("name"), str) and isinstance(link, str) and link.strip("/"):
            link = link if "://" in link or link.startswith("/") else f"/{link}"
            weight = entry.get("weight", 0)
            found.append((weight if isinstance(weight, int) else 0, entry["name"], link))
    return {name: link for _weight, name, link in sorted(found, key=lambda e: e[0])}


def _first_config(repo: Path, names: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    for name in names:
        path = repo / name
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            try:
                if name.endswith(".toml"):
                    loaded: Any = tomllib.loads(text)
                elif name.endswith(".json"):
                    loaded = json.loads(text)
                else:
                    loaded = yaml.safe_load(text)
            except (tomllib.TOMLDecodeError, ValueError, yaml.YAMLError) as error:
                raise ConfigError(name, f"cannot be read: {error}") from None
            if loaded is None:
                return name, {}
            if not isinstance(loaded, dict):
                raise ConfigError(name, "expected a mapping of settings")
            return name, loaded
    return names[0], {}


def _joined(url: Any, base: Any) -> str | None:
    """The blog's address from its `url` and `baseurl`; None where it names no host of its own."""
    if not isinstance(url, str) or not url.strip():
        return None
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or parts.hostname in _PLACEHOLDER_HOSTS:
        return None
    path = "/".join(
        part.strip("/") for part in (parts.path, base if isinstance(base, str) else "") if part
    )
    path = path.strip("/")
    return f"{parts.scheme}://{parts.netloc}/{path + '/' if path else ''}"


def _hugo_permalinks(value: Any, name: str) -> dict[str, str] | None:
    """Hugo's `permalinks`: a pattern by section, or (since Hugo 0.114) by page kind, of
    which the articles are `page`."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ConfigError(name, f"permalinks: expected a mapping of sections, got {value!r}")
    by_kind = value.get("page")
    sections = by_kind if isinstance(by_kind, Mapping) else value
    patterns = {str(k): v for k, v in sections.items() if isinstance(v, str) and v.strip()}
    return patterns or None
