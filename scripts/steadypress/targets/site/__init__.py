"""The static site target, in rooms: `settings` (what it is told), `files` (where its files go),
`manifest` (what it keeps of each article), `target` (publishing, listings, the theme).

Only the light rooms are imported here: `target` and `manifest` bring the renderers (Jinja2,
cmark-gfm, Pygments) and are imported by their own names where a site is built.
"""

from steadypress.targets.site.files import DirectorySiteFiles, SiteFiles, SiteWriter
from steadypress.targets.site.settings import (
    SiteAddress,
    SiteSettings,
    parse_settings,
    site_address,
)

__all__ = [
    "DirectorySiteFiles",
    "SiteAddress",
    "SiteFiles",
    "SiteSettings",
    "SiteWriter",
    "parse_settings",
    "site_address",
]
