"""A web server where every page is already served (200 to any GET or HEAD): the site as a
reader sees it once its deploy is done, for stories about the platforms that link to it."""

from __future__ import annotations

from tests.fakes.loopback import Answer, LoopbackServer


class ServedEverything(LoopbackServer):
    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        return 200, {"Content-Type": "text/html"}, b"<p>A page.</p>"
