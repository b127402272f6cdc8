"""A host that is not the platform: a loopback server on 127.0.0.2 (another host to an HTTP
client, as `evil.example` would be) that records every request it gets and answers 200. A
platform fake's redirect points here; nothing a platform's credential is in may arrive."""

from __future__ import annotations

from tests.fakes.loopback import Answer, LoopbackServer


class Bystander(LoopbackServer):
    def __init__(self) -> None:
        super().__init__(host="127.0.0.2")
        self.received: list[tuple[str, str, dict[str, str], bytes]] = []

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        self.received.append((method, path, headers, body))
        return 200, {"Content-Type": "application/json"}, b"{}"
