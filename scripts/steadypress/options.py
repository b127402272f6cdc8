"""Checks shared by every part of the configuration: unknown keys and required strings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from steadypress.errors import ConfigError

__all__ = ["reject_unknown_keys", "text_option"]


def reject_unknown_keys(
    raw: Mapping[str, Any], known: Iterable[str], *, prefix: str, source: str
) -> None:
    """A key nobody reads is a typo: refuse it, naming it and what is known."""
    allowed = set(known)
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ConfigError(
            source, f"unknown key {prefix + unknown[0]!r} (known: {', '.join(sorted(allowed))})"
        )


def text_option(raw: Mapping[str, Any], key: str, default: str, *, prefix: str, source: str) -> str:
    value = raw.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(source, f"{prefix}{key}: expected a non-empty string, got {value!r}")
    return value
