"""The site target's settings, and the address it is served at."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from steadypress.errors import ConfigError, PermanentError
from steadypress.options import text_settings
from steadypress.targets.site.old_layout import (
    TAXONOMY,
    OldLayout,
    jekyll_pattern,
    unknown_placeholders,
)

__all__ = [
    "GENERATORS",
    "SiteAddress",
    "SiteSettings",
    "old_layout",
    "parse_settings",
    "site_address",
    "site_settings",
    "with_committed_cname",
]

if TYPE_CHECKING:
    from steadypress.content import ContentSource

# A domain name as GitHub Pages takes one in CNAME: labels of letters, digits and inner hyphens.
_DOMAIN = re.compile(
    r"(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}"
)
# The file GitHub Pages reads the custom domain from, in the published site.
CNAME_FILE = "CNAME"

# The generators a site may be made by (`targets/generated/generator.py` runs them).
GENERATORS = ("hugo", "jekyll")


@dataclass(frozen=True)
class SiteSettings:
    dir: str = "_site"
    branch: str = "gh-pages"
    title: str = "steadypress"
    # Where the site is served (absolute; feeds, sitemaps and canonical links need it), and the
    # path its links start with; each defaults from the other and from the backend.
    url: str = ""
    base_url: str = ""
    theme: str = ""  # a folder of the repository whose templates and stylesheet win
    language: str = "en"
    cname: str = ""  # a custom domain: written to CNAME, which GitHub Pages reads
    # The blog's own generator makes the pages instead (`GENERATORS`: "hugo"), from the project
    # in `source` (a folder of the repository; its root by default).
    generator: str = ""
    source: str = ""
    # The generator the blog moved from ("jekyll", "hugo") and its `permalink` or
    # `permalinks` (by section): every URL it served answers, a redirect to the page.
    moved_from: str = ""
    old_permalinks: tuple[tuple[str, str], ...] = ()
    # Where the old generator dated a post's URL (Jekyll's `timezone`), and whether it wrote
    # `/posts/a.html` for `/posts/a/` (Hugo's `uglyURLs`).
    old_timezone: str = ""
    old_ugly_urls: bool = False
    # Addresses the site once had and where each is now (`/categories/`: `/tags/`), each a
    # redirect page: the old generator's list pages, which `init --own-site` names.
    redirects: tuple[tuple[str, str], ...] = ()
    # Other addresses of the site where its feed is written too, as readers subscribed to
    # them (`/posts/index.xml`, a Hugo section's feed); a blog `moved_from: hugo` has it at
    # Hugo's `/index.xml` besides (`feed.feed_paths`).
    feed_also_at: tuple[str, ...] = ()
    # Hugo's taxonomies (`tags`, `categories`) whose terms' feeds (`/tags/go/index.xml`) a
    # blog moved from Hugo keeps: each tag's newest articles, written with its page.
    old_term_feeds: tuple[str, ...] = ()
    # The header's links beside the archive, tags and feed, in order: (title, a path of the
    # site such as a page's `/about/`, or an http(s) URL).
    menu: tuple[tuple[str, str], ...] = ()
    # Pages' and tags' addresses in Latin letters where ASCII spells nothing of a name
    # (`/privet-mir/`, as Jekyll's `slugify: latin`); else in the name's own letters.
    transliterate: bool = False


def parse_settings(name: str, options: Mapping[str, Any], source: str) -> SiteSettings:
    prefix = f"targets.{name}."
    texts = {key: value for key, value in options.items() if key not in _NOT_TEXTS}
    settings = text_settings(SiteSettings, texts, prefix=prefix, source=source)
    flags = {key: options.get(key, False) for key in _FLAGS}
    for key, flag in flags.items():
        if not isinstance(flag, bool):
            raise ConfigError(source, f"{prefix}{key}: expected true or false, got {flag!r}")
    settings = replace(
        settings,
        **flags,
        old_permalinks=_old_permalinks(name, options, source),
        menu=_menu(name, options.get("menu"), source),
        redirects=_redirects(name, options.get("redirects"), source),
        feed_also_at=_feed_also_at(name, options.get("feed_also_at"), source),
        old_term_feeds=_old_term_feeds(name, options.get("old_term_feeds"), source),
    )
    _check_moved_from(name, settings, source)
    if settings.generator and settings.generator not in GENERATORS:
        raise ConfigError(
            source,
            f"targets.{name}.generator: unknown generator {settings.generator!r} (known: "
            f"{', '.join(GENERATORS)})",
        )
    for key, instead in (("theme", "its own theme"), ("cname", "its static files for CNAME")):
        if settings.generator and getattr(settings, key):
            raise ConfigError(
                source, f"targets.{name}.{key}: the site's generator has {instead}; leave it out"
            )
    if settings.cname and not _DOMAIN.fullmatch(settings.cname.lower()):
        raise ConfigError(source, f"targets.{name}.cname: not a domain name: {settings.cname!r}")
    if settings.source and not settings.generator:
        raise ConfigError(source, f"targets.{name}.source: only with a `generator`")
    for key in ("dir", "theme", "source"):
        value = getattr(settings, key)
        if ".." in PurePosixPath(value).parts or PurePosixPath(value).is_absolute():
            raise ConfigError(source, f"targets.{name}.{key}: must stay inside the repository")
    if settings.url and urlparse(settings.url).scheme not in ("http", "https"):
        raise ConfigError(source, f"targets.{name}.url: must be an http(s) URL")
    return settings


def _check_moved_from(name: str, settings: SiteSettings, source: str) -> None:
    if settings.moved_from and settings.moved_from not in GENERATORS:
        raise ConfigError(
            source,
            f"targets.{name}.moved_from: unknown generator {settings.moved_from!r} (known: "
            f"{', '.join(GENERATORS)})",
        )
    if settings.moved_from and settings.generator:
        raise ConfigError(
            source, f"targets.{name}.moved_from: the site's generator keeps its own URLs"
        )
    for key in ("old_permalinks", "old_timezone", "old_ugly_urls", "old_term_feeds"):
        if getattr(settings, key) and not settings.moved_from:
            raise ConfigError(source, f"targets.{name}.{key}: only with `moved_from`")
    if settings.old_timezone:
        # Imported only here: the time zone database is read for the one setting that names
        # a zone, not by every command that reads the settings.
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # noqa: PLC0415

        try:
            ZoneInfo(settings.old_timezone)
        except (ValueError, ZoneInfoNotFoundError):
            raise ConfigError(
                source,
                f"targets.{name}.old_timezone: not a time zone: {settings.old_timezone!r} "
                "(one such as Europe/Lisbon)",
            ) from None
    if (layout := old_layout(settings)) is not None:
        unknown = unknown_placeholders(layout)
        if unknown:
            raise ConfigError(
                source,
                f"targets.{name}.old_permalinks: {settings.moved_from} knows no "
                f"{', '.join(':' + name for name in unknown)}",
            )


# The settings that are mappings, not text.
_FLAGS = ("old_ugly_urls", "transliterate")
_NOT_TEXTS = ("old_permalinks", "menu", "redirects", "feed_also_at", "old_term_feeds", *_FLAGS)


def _is_link(link: str) -> bool:
    """A path of the site (`/about/`) or an http(s) URL: where a menu or a redirect leads."""
    return (link.startswith("/") and not link.startswith("//")) or urlparse(link).scheme in (
        "http",
        "https",
    )


def _menu(name: str, value: Any, source: str) -> tuple[tuple[str, str], ...]:
    """The header's links: titles to paths of the site or http(s) URLs, in the order given."""
    if value is None:
        return ()
    if isinstance(value, dict) and all(
        isinstance(title, str) and title.strip() and isinstance(link, str) for title, link in
        value.items()
    ):  # fmt: skip
        for title, link in value.items():
            if not _is_link(link):
                raise ConfigError(
                    source,
                    f"targets.{name}.menu: {title!r} links to {link!r}: a path of the site "
                    "(/about/) or an http(s) URL",
                )
        return tuple((title.strip(), link) for title, link in value.items())
    raise ConfigError(
        source, f"targets.{name}.menu: a mapping of titles to links (About: /about/), got {value!r}"
    )


def _redirects(name: str, value: Any, source: str) -> tuple[tuple[str, str], ...]:
    """Old paths of the site to where each leads now; each old path one a redirect page can
    stand at (`redirect_file`), sorted."""
    if value is None:
        return ()
    key = f"targets.{name}.redirects"
    if not isinstance(value, dict) or not all(
        isinstance(old, str) and isinstance(new, str) for old, new in value.items()
    ):
        raise ConfigError(
            source,
            f"{key}: a mapping of old paths to new ones (/categories/: /tags/), got {value!r}",
        )
    # Where the site writes its pages, read only by a configuration that has redirects.
    from steadypress.targets.site.manifest import redirect_file  # noqa: PLC0415

    for old, new in value.items():
        if not old.startswith("/") or redirect_file(old.lstrip("/")) is None:
            raise ConfigError(
                source,
                f"{key}: {old!r} is not an old path of the site a redirect can stand at (a path "
                "such as /categories/ outside the files and folders the site writes itself)",
            )
        if not _is_link(new):
            raise ConfigError(
                source, f"{key}: {old!r} leads to {new!r}: a path of the site or an http(s) URL"
            )
    return tuple(sorted(value.items()))


def _old_permalinks(
    name: str, options: Mapping[str, Any], source: str
) -> tuple[tuple[str, str], ...]:
    """Jekyll's `permalink` (a pattern or a style's name) as one pattern for every post, or
    Hugo's `permalinks` as a pattern by section (a mapping)."""
    value = options.get("old_permalinks")
    if value is None:
        return ()
    if isinstance(value, str) and value.strip():
        return (("", jekyll_pattern(value.strip())),)
    if (
        isinstance(value, dict)
        and value
        and all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items())
    ):
        return tuple(sorted((section.strip("/"), v.strip()) for section, v in value.items()))
    raise ConfigError(
        source,
        f"targets.{name}.old_permalinks: a pattern (Jekyll's `permalink`) or a mapping of "
        f"sections to patterns (Hugo's `permalinks`), got {value!r}",
    )


def _feed_also_at(name: str, value: Any, source: str) -> tuple[str, ...]:
    """Paths of the site (`/posts/index.xml`), each an XML file outside what the site writes."""
    if value is None:
        return ()
    # Where the site writes its pages, read only by a configuration that names such paths.
    from steadypress.targets.site.manifest import is_reserved, is_site_path  # noqa: PLC0415

    key = f"targets.{name}.feed_also_at"
    if not isinstance(value, list) or not all(isinstance(path, str) for path in value):
        raise ConfigError(source, f"{key}: a list of paths (/posts/index.xml), got {value!r}")
    for path in value:
        relative = path.lstrip("/")
        if not (
            path.startswith("/")
            and relative.endswith(".xml")
            and is_site_path(relative)
            and not is_reserved(relative.split("/")[0])
        ):
            raise ConfigError(
                source,
                f"{key}: {path!r} is not a path of the site for a feed (/posts/index.xml, "
                "outside the files and folders the site writes itself)",
            )
    return tuple(dict.fromkeys(path.lstrip("/") for path in value))


def _old_term_feeds(name: str, value: Any, source: str) -> tuple[str, ...]:
    """Hugo's taxonomies by their folder (`tags`, `categories`): lowercase letters."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(folder, str) and TAXONOMY.fullmatch(folder) for folder in value
    ):
        raise ConfigError(
            source,
            f"targets.{name}.old_term_feeds: a list of Hugo's taxonomies (tags, categories), "
            f"got {value!r}",
        )
    return tuple(dict.fromkeys(value))


def old_layout(settings: SiteSettings) -> OldLayout | None:
    """Where the generator the blog moved from put its articles; None: it moved from none."""
    if not settings.moved_from:
        return None
    return OldLayout(
        settings.moved_from,
        settings.old_permalinks,
        timezone=settings.old_timezone,
        ugly=settings.old_ugly_urls,
    )


@dataclass(frozen=True)
class SiteAddress:
    """The absolute address of the site's root, and the path its own links start with."""

    url: str
    base_url: str


def site_address(settings: SiteSettings, *, default_url: str) -> SiteAddress:
    # A custom domain serves the site at its root: GitHub Pages redirects the default address
    # there, so that is where feeds, sitemaps and canonical links must point.
    url = settings.url or (f"https://{settings.cname}/" if settings.cname else default_url)
    url = url if url.endswith("/") else url + "/"
    # A project site (OWNER.github.io/REPO/) is served under its path: its links and
    # stylesheet are too, whether its URL was set or is GitHub's default.
    base = settings.base_url or urlparse(url).path or "/"
    return SiteAddress(url=url, base_url=base if base.endswith("/") else base + "/")


def with_committed_cname(settings: SiteSettings, committed: bytes | None) -> SiteSettings:
    """The settings with the custom domain named by the `CNAME` file `committed` at the
    repository's root, where they name neither a domain nor a `url`: the file GitHub Pages
    reads when it builds the blog itself (a Jekyll blog moving in keeps it there), which the
    site then writes into its own folder. A file that names no domain is an error naming it."""
    if committed is None or settings.cname or settings.url or settings.generator:
        return settings
    lines = committed.decode("utf-8", errors="replace").split()
    host = lines[0].lower() if lines else ""
    if not _DOMAIN.fullmatch(host):
        raise ConfigError(CNAME_FILE, f"not a domain name: {host!r} (GitHub Pages reads one)")
    return replace(settings, cname=host)


@functools.lru_cache(
    maxsize=8
)  # asked twice a pipeline (the platforms' links, the site): read once
def site_settings(settings: SiteSettings, content: ContentSource) -> SiteSettings:
    """The settings as the repository completes them: the custom domain of a `CNAME` file at
    its root, committed on the content branch (`with_committed_cname`)."""
    if settings.cname or settings.url or settings.generator:
        return settings  # nothing to read
    head = content.head()  # no commit at all is its own error, not the CNAME file's
    try:
        found = content.asset(CNAME_FILE, commit=head)
    except PermanentError as error:  # a symlink
        raise ConfigError(CNAME_FILE, str(error)) from None
    return with_committed_cname(settings, None if found is None else found[1])
