"""What targets are built with, whichever backend runs them (`registry.build_targets`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steadypress.clock import Clock
    from steadypress.content import ContentSource
    from steadypress.credentials import Secrets
    from steadypress.targets.site import SiteFiles
    from steadypress.targets.site.assets import PublicLinks
    from steadypress.targets.site.settings import SiteSettings
    from steadypress.worklease import WorkLease

__all__ = ["TargetContext"]


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
    # The lease the executor works each article under (None: no executor, nothing to guard).
    lease: WorkLease | None = None
