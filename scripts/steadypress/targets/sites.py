"""The site target as its settings ask: steadypress's own pages, or the blog's generator's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steadypress.targets.site.settings import SiteSettings, site_settings

if TYPE_CHECKING:
    from steadypress.targets.base import Target
    from steadypress.targets.context import TargetContext

__all__ = ["build"]


def build(name: str, settings: SiteSettings, context: TargetContext) -> Target:
    settings = site_settings(settings, context.content)
    # Each imported only when chosen: the built-in site brings its renderers, the generated
    # one none of them.
    if settings.generator:
        from steadypress.targets.generated import target as generated  # noqa: PLC0415

        return generated.build(name, settings, context)
    from steadypress.targets.site import target as built_in  # noqa: PLC0415

    return built_in.build(name, settings, context)
