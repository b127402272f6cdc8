"""The static site target, in rooms: `settings` (what it is told), `files` (where its files go),
`manifest` (what it keeps of each article), `target` (publishing, listings, the theme)."""

from steadypress.targets.site.files import DirectorySiteFiles, SiteFiles, SiteWriter
from steadypress.targets.site.manifest import MANIFEST
from steadypress.targets.site.settings import (
    SiteAddress,
    SiteSettings,
    parse_settings,
    site_address,
)
from steadypress.targets.site.target import SiteTarget, build_site

__all__ = [
    "MANIFEST",
    "DirectorySiteFiles",
    "SiteAddress",
    "SiteFiles",
    "SiteSettings",
    "SiteTarget",
    "SiteWriter",
    "build_site",
    "parse_settings",
    "site_address",
]
