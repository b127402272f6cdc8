"""The static site target, in rooms: `settings` (what it is told), `files` (where its files go),
`manifest` (what it keeps of each article), `target` (publishing, listings, the theme).

Only `files` is imported here, which a command that reads or writes a site folder needs and
nothing else: the other rooms are imported by their own names where a site is configured or
built.
"""

from steadypress.targets.site.files import DirectorySiteFiles, SiteFiles, SiteWriter

__all__ = ["DirectorySiteFiles", "SiteFiles", "SiteWriter"]
