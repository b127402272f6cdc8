"""The look of a platform's posts that carry the site's addresses (dev.to, Hashnode: the
canonical URL, the links and images from the host's root): when the site moves (a custom
domain, `transliterate` turned on), every post is sent again with the new addresses, as the
site's pages are when its look changes (`StyledTarget`)."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from steadypress.ledger import Look, look_digest
from steadypress.targets.base import Refreshed

if TYPE_CHECKING:
    from steadypress.targets.site.assets import PublicLinks

__all__ = ["SiteLinked"]

# A platform has no listing pages nor files of its own to write again alone.
_NONE_ALONE = look_digest({})


class SiteLinked:
    """The `StyledTarget` half of a platform whose posts link the site through `_links`."""

    _links: PublicLinks | None

    def look(self, commit: str) -> Look:
        addressing = self._links.addressing() if self._links is not None else {}
        return Look(pages=look_digest(addressing), listings=_NONE_ALONE, singles=_NONE_ALONE)

    def showing(self, part: str) -> str:
        return f"posts' {part}"

    def refresh(self, parts: Collection[str]) -> Refreshed:
        return Refreshed.SHOWN  # its posts are all it has: each is sent again

    def overtaken(self, commit: str) -> bool:
        return False  # a platform keeps no look of its own to be overtaken by

    def lost(self) -> bool:
        return False  # whether a post is still there is asked of it when it is sent

    def ask_lost(self) -> None:
        return None
