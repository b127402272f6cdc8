"""The target kinds, defined once: how each reads its settings and how it is built.

The configuration asks this registry to check a target's settings when it is loaded; a backend
builds the targets through it, handing over a `TargetContext` that says where the site's files
go (a directory, or a Pages branch) and where the site is served by default.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from steadypress.clock import Clock
from steadypress.content import ContentSource
from steadypress.credentials import Secrets
from steadypress.errors import ConfigError
from steadypress.targets.base import Target
from steadypress.targets.site.assets import PublicLinks

if TYPE_CHECKING:
    from steadypress.targets.site import SiteFiles, SiteSettings

__all__ = ["KINDS", "TargetContext", "TargetSpec", "build_targets", "check_target_options"]


@dataclass(frozen=True)
class TargetSpec:
    """One entry of `targets:` in the configuration, its options not yet interpreted."""

    name: str
    kind: str
    options: Mapping[str, Any]
    # An article removed from content/ (or made a draft) is taken off this target too.
    unpublish: bool = True


@dataclass(frozen=True)
class TargetContext:
    """What targets are built with, whichever backend runs them."""

    source: str  # the configuration file, named in messages
    content: ContentSource
    clock: Clock
    secrets: Secrets
    site_files: Callable[[SiteSettings], SiteFiles]
    default_site_url: str
    # Where a repository file is served raw at a commit (on GitHub: raw.githubusercontent.com),
    # for an image of an article the site does not publish.
    raw_base: str | None = None
    links: PublicLinks | None = None  # set by build_targets, from the site it builds


@dataclass(frozen=True)
class _Kind:
    module: str  # the kind's module: its `parse_settings`, and what `build` constructs
    build: Callable[[TargetSpec, TargetContext], Target]

    def settings(self, spec: TargetSpec, source: str) -> Any:
        return import_module(self.module).parse_settings(spec.name, spec.options, source)


# Each kind's module is imported when a configuration names that kind, not before: a run
# without dev.to never loads `requests` for it, and `--help` loads no target at all.


def _build_site(spec: TargetSpec, context: TargetContext) -> Target:
    from steadypress.targets.site import parse_settings  # noqa: PLC0415 (only when configured)
    from steadypress.targets.site.target import build_site  # noqa: PLC0415

    settings = parse_settings(spec.name, spec.options, context.source)
    return build_site(
        spec.name,
        context.site_files(settings),
        settings,
        content=context.content,
        default_url=context.default_site_url,
    )


def _build_webhook(spec: TargetSpec, context: TargetContext) -> Target:
    from steadypress.targets import webhook  # noqa: PLC0415 (only when configured)

    settings = webhook.parse_settings(spec.name, spec.options, context.source)
    return webhook.WebhookTarget(
        spec.name, settings, secret=context.secrets.read(settings.secret_env), clock=context.clock
    )


def _build_devto(spec: TargetSpec, context: TargetContext) -> Target:
    from steadypress.targets import devto  # noqa: PLC0415 (only when configured)

    settings = devto.parse_settings(spec.name, spec.options, context.source)
    return devto.DevtoTarget(
        spec.name,
        settings,
        api_key=context.secrets.read(settings.api_key_env),
        clock=context.clock,
        links=context.links,
    )


def _build_mastodon(spec: TargetSpec, context: TargetContext) -> Target:
    from steadypress.targets import mastodon  # noqa: PLC0415 (only when configured)

    settings = mastodon.parse_settings(spec.name, spec.options, context.source)
    return mastodon.MastodonTarget(
        spec.name,
        settings,
        token=context.secrets.read(settings.token_env),
        clock=context.clock,
        links=context.links,
    )


def _build_bluesky(spec: TargetSpec, context: TargetContext) -> Target:
    from steadypress.targets import bluesky  # noqa: PLC0415 (only when configured)

    settings = bluesky.parse_settings(spec.name, spec.options, context.source)
    return bluesky.BlueskyTarget(
        spec.name,
        settings,
        password=context.secrets.read(settings.password_env),
        clock=context.clock,
        links=context.links,
        learn_secret=context.secrets.redact.add,
    )


def _build_hashnode(spec: TargetSpec, context: TargetContext) -> Target:
    from steadypress.targets import hashnode  # noqa: PLC0415 (only when configured)

    settings = hashnode.parse_settings(spec.name, spec.options, context.source)
    return hashnode.HashnodeTarget(
        spec.name,
        settings,
        token=context.secrets.read(settings.token_env),
        clock=context.clock,
        content_dir=context.content.content_dir,
        links=context.links,
    )


KINDS: Mapping[str, _Kind] = {
    "site": _Kind("steadypress.targets.site.settings", _build_site),
    "webhook": _Kind("steadypress.targets.webhook", _build_webhook),
    "devto": _Kind("steadypress.targets.devto", _build_devto),
    "mastodon": _Kind("steadypress.targets.mastodon", _build_mastodon),
    "bluesky": _Kind("steadypress.targets.bluesky", _build_bluesky),
    "hashnode": _Kind("steadypress.targets.hashnode", _build_hashnode),
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


def build_targets(specs: Mapping[str, TargetSpec], context: TargetContext) -> dict[str, Target]:
    context = replace(context, links=_public_links(specs, context))
    return {name: KINDS[spec.kind].build(spec, context) for name, spec in specs.items()}


def _public_links(specs: Mapping[str, TargetSpec], context: TargetContext) -> PublicLinks:
    """Where other platforms find an article's images: on the first site target, if any."""
    site = next((spec for spec in specs.values() if spec.kind == "site"), None)
    if site is None:
        return PublicLinks(context.content, raw_base=context.raw_base)
    from steadypress.targets.site import parse_settings, site_address  # noqa: PLC0415

    settings = parse_settings(site.name, site.options, context.source)
    url = site_address(settings, default_url=context.default_site_url).url
    return PublicLinks(context.content, site=site.name, site_url=url, raw_base=context.raw_base)
