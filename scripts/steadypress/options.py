"""Checks shared by every part of the configuration: unknown keys and required strings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar

from steadypress.errors import ConfigError

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

__all__ = ["http_url", "one_of", "reject_unknown_keys", "text_option", "text_settings"]

S = TypeVar("S", bound="DataclassInstance")


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


def text_settings(kind: type[S], options: Mapping[str, Any], *, prefix: str, source: str) -> S:
    """A target's settings: the dataclass `kind` built from `options`, each key one of its
    fields and each value non-empty text."""
    reject_unknown_keys(
        options, [field.name for field in fields(kind)], prefix=prefix, source=source
    )
    return kind(
        **{key: text_option(options, key, "", prefix=prefix, source=source) for key in options}
    )


def one_of(value: str, allowed: Iterable[str], *, key: str, source: str) -> str:
    choices = tuple(allowed)
    if value not in choices:
        raise ConfigError(source, f"{key}: one of {', '.join(choices)}, got {value!r}")
    return value


def http_url(value: str, *, key: str, source: str) -> str:
    if not value.startswith(("https://", "http://")):
        raise ConfigError(source, f"{key}: an http(s) URL, got {value!r}")
    return value
