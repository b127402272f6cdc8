"""What a Jekyll or Hugo blog moving onto steadypress's own site keeps from its generator's
configuration: its title, its address, and where its articles were (`permalink`,
`permalinks`), so that every old URL answers (`targets/site/old_urls.py`)."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from steadypress.errors import ConfigError

__all__ = ["HUGO_CONFIGS", "old_site_settings"]

# Files that make a folder a Hugo project (`hugo.*` since Hugo 0.110; `config.*` before).
HUGO_CONFIGS = tuple(
    f"{stem}.{extension}"
    for stem in ("hugo", "config")
    for extension in ("toml", "yaml", "yml", "json")
)
_JEKYLL_CONFIGS = ("_config.yml", "_config.yaml", "_config.toml")
# The addresses `hugo new site` and documentation examples leave in place: no blog's own.
_PLACEHOLDER_HOSTS = ("example.org", "example.com", "localhost", "127.0.0.1")


def old_site_settings(repo: Path, generator: str) -> dict[str, Any]:
    """The site target's settings that keep what the blog's `generator` configuration says:
    `moved_from`, `old_permalinks` where it sets any, `title` and `url` where it names them."""
    if generator == "jekyll":
        name, config = _first_config(repo, _JEKYLL_CONFIGS)
        address = _joined(config.get("url"), config.get("baseurl"))
        permalinks: Any = config.get("permalink")
        permalinks = permalinks.strip() if isinstance(permalinks, str) else None
    else:
        name, config = _first_config(repo, HUGO_CONFIGS)
        config = {str(key).lower(): value for key, value in config.items()}  # as Hugo reads it
        address = _joined(config.get("baseurl"), None)
        permalinks = _hugo_permalinks(config.get("permalinks"), name)
    settings: dict[str, Any] = {"moved_from": generator}
    if permalinks:
        settings["old_permalinks"] = permalinks
    title = config.get("title")
    if isinstance(title, str) and title.strip():
        settings["title"] = title.strip()
    if address is not None:
        settings["url"] = address
    return settings


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
