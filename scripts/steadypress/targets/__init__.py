"""Publishers, one module per kind, behind the one small `Target` protocol."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from steadypress.errors import ConfigError
from steadypress.targets import devto, site, webhook
from steadypress.targets.base import BatchTarget, Receipt, Target

if TYPE_CHECKING:
    from steadypress.config import Config, TargetConfig

__all__ = ["BatchTarget", "Receipt", "Target", "build_targets", "validate_target_options"]


@dataclass(frozen=True)
class _Kind:
    validate: Callable[[str, Mapping[str, Any], str], object]
    build_local: Callable[[TargetConfig, Config, Path], Target]


_KINDS: dict[str, _Kind] = {
    "site": _Kind(validate=site.parse_settings, build_local=site.build_local),
    "webhook": _Kind(validate=webhook.parse_settings, build_local=webhook.build_local),
    "devto": _Kind(validate=devto.parse_settings, build_local=devto.build_local),
}


def validate_target_options(
    name: str, kind: str, options: Mapping[str, Any], *, source: str
) -> None:
    found = _KINDS.get(kind)
    if found is None:
        known = ", ".join(sorted(_KINDS))
        raise ConfigError(source, f"targets.{name}.kind: unknown kind {kind!r} (known: {known})")
    found.validate(name, options, source)


def build_targets(config: Config, *, repo: Path) -> dict[str, Target]:
    """The configured targets as the local backend runs them."""
    return {
        name: _KINDS[spec.kind].build_local(spec, config, repo)
        for name, spec in config.targets.items()
    }
