"""The fakes' loopback server leaves nothing running behind it: a test after it starts in a
process with no thread of its (the render pool forks only where no other thread runs)."""

from __future__ import annotations

import threading

import requests

from tests.fakes.loopback import Answer, LoopbackServer


class _Hello(LoopbackServer):
    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        return 200, {"Content-Type": "text/plain"}, b"hello"


def test_a_server_closed_under_kept_alive_connections_leaves_no_thread() -> None:
    before = set(threading.enumerate())
    session = requests.Session()  # keeps its connection open after each answer
    try:
        with _Hello() as server:
            for _ in range(3):
                assert session.get(f"{server.origin}/", timeout=5).text == "hello"
            assert set(threading.enumerate()) - before, "the server ran no thread of its own"
        assert set(threading.enumerate()) - before == set()
    finally:
        session.close()
