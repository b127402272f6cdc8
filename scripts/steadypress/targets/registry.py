"""The target kinds, defined once: how each reads its settings and how it is built.

The configuration asks this registry to check a target's settings when it is loaded; a backend
builds the targets through it, handing over a `TargetContext` (`context.py`) that says where
the site's files go (a directory, or a Pages branch) and where the site is served by default.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from steadypress.errors import ConfigError

if TYPE_CHECKING:
    # Names of annotations alone: checking a configuration imports no target's code, nor
    # what targets are built with.
    from steadypress.targets.base import Target
    from steadypress.targets.context import TargetContext
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["KINDS", "TargetSpec", "build_targets", "check_target_options"]


@dataclass(frozen=True)
class TargetSpec:
    """One entry of `targets:` in the configuration, its options not yet interpreted."""

    name: str
    kind: str
    options: Mapping[str, Any]
    # An article removed from content/ (or made a draft) is taken off this target too.
    unpublish: bool = True


@dataclass(frozen=True)
class _Kind:
    """A target kind: its module, which has `parse_settings(name, options, source)` and
    `build(name, settings, context)` (`builder`, when building needs more than checking the
    settings does), imported when a configuration names the kind, not before: a run without
    dev.to never loads `requests` for it, and `--help` loads no target at all."""

    module: str
    builder: str | None = None

    def settings(self, spec: TargetSpec, source: str) -> Any:
        return import_module(self.module).parse_settings(spec.name, spec.options, source)

    def build(self, spec: TargetSpec, context: TargetContext) -> Target:
        module = import_module(self.builder or self.module)
        target: Target = module.build(spec.name, self.settings(spec, context.source), context)
        return target


KINDS: Mapping[str, _Kind] = {
    # The site's settings are checked without loading its renderers.
    "site": _Kind("steadypress.targets.site.settings", "steadypress.targets.sites"),
    "webhook": _Kind("steadypress.targets.webhook"),
    "devto": _Kind("steadypress.targets.devto"),
    "hashnode": _Kind("steadypress.targets.hashnode"),
    "mastodon": _Kind("steadypress.targets.mastodon"),
    "bluesky": _Kind("steadypress.targets.bluesky"),
}


def check_target_options(spec: TargetSpec, *, source: str) -> None:
    """Refuse an unknown kind, or settings the kind does not accept, naming the key."""
    kind = KINDS.get(spec.kind)
    if kind is None:
        known = ", ".join(sorted(KINDS))
        raise ConfigError(
            source, f"targets.{spec.name}.kind: unknown kind {spec.kind!r} (known: {known})"
        )
    kind.settings(spec, source)


def build_targets(specs: Mapping[str, TargetSpec], context: TargetContext) -> Mapping[str, Target]:
    """The configured targets, built when one is first asked for: a command that publishes
    nothing (`status`) neither imports their modules nor reads what building them reads."""
    return _BuiltWhenAsked(functools.partial(_built, specs, context))


def _built(specs: Mapping[str, TargetSpec], context: TargetContext) -> dict[str, Target]:
    context = replace(context, links=_public_links(specs, context))
    return {name: KINDS[spec.kind].build(spec, context) for name, spec in specs.items()}


class _BuiltWhenAsked(Mapping[str, "Target"]):
    def __init__(self, build: Callable[[], dict[str, Target]]) -> None:
        self._build = build
        self._targets: dict[str, Target] | None = None

    def _all(self) -> dict[str, Target]:
        if self._targets is None:
            self._targets = self._build()
        return self._targets

    def __getitem__(self, name: str) -> Target:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def _public_links(specs: Mapping[str, TargetSpec], context: TargetContext) -> PublicLinks:
    """Where other platforms find an article's images: on the first site target, if any."""
    from steadypress.targets.site.assets import PublicLinks  # noqa: PLC0415

    site = next((spec for spec in specs.values() if spec.kind == "site"), None)
    if site is None:
        return PublicLinks(context.content, raw_base=context.raw_base)
    from steadypress.targets.site.settings import (  # noqa: PLC0415
        parse_settings,
        site_address,
        site_settings,
    )

    settings = site_settings(
        parse_settings(site.name, site.options, context.source), context.content
    )
    url = site_address(settings, default_url=context.default_site_url).url
    pages = None
    if settings.generator:  # its pages' addresses are the generator's, from its build
        from steadypress.targets.generated.target import builds_for  # noqa: PLC0415

        pages = builds_for(settings, context.content, context.clock, site_url=url)
    return PublicLinks(
        context.content, site=site.name, site_url=url, raw_base=context.raw_base, pages=pages,
        latin=settings.transliterate,
    )  # fmt: skip
