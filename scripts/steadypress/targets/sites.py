"""The site target as its settings ask: steadypress's own pages, or the blog's generator's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from steadypress.errors import ConfigError, PermanentError
from steadypress.targets.site.settings import CNAME_FILE, SiteSettings, with_committed_cname

if TYPE_CHECKING:
    from steadypress.content import ContentSource
    from steadypress.targets.base import Target
    from steadypress.targets.registry import TargetContext

__all__ = ["build", "site_settings"]


def site_settings(settings: SiteSettings, content: ContentSource) -> SiteSettings:
    """The settings as the repository completes them: the custom domain of a `CNAME` file at
    its root, committed on the content branch (`with_committed_cname`)."""
    if settings.cname or settings.url or settings.generator:
        return settings  # nothing to read
    try:
        found = content.asset(CNAME_FILE, commit=content.head())
    except PermanentError as error:  # a symlink
        raise ConfigError(CNAME_FILE, str(error)) from None
    return with_committed_cname(settings, None if found is None else found[1])


def build(name: str, settings: SiteSettings, context: TargetContext) -> Target:
    settings = site_settings(settings, context.content)
    # Each imported only when chosen: the built-in site brings its renderers, the generated
    # one none of them.
    if settings.generator:
        from steadypress.targets.generated import target as generated  # noqa: PLC0415

        return generated.build(name, settings, context)
    from steadypress.targets.site import target as built_in  # noqa: PLC0415

    return built_in.build(name, settings, context)
