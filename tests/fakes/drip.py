"""A server that answers one byte at a time, a tenth of a second apart: every read gets data
well within any timeout, and the whole answer never comes in time. It drips its headers
(`headers=True`) or, after whole headers, its body; each connection stops by itself after
`seconds`, or when the server closes. With `declare_length=False` it sends no Content-Length
(the body ends when the connection does), and with `gap=0` it does not drip at all."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any, Self


class DrippingServer:
    def __init__(
        self,
        *,
        headers: bool = False,
        seconds: float = 60.0,
        gap: float = 0.1,
        declare_length: bool = True,
    ) -> None:
        self._drip_headers = headers
        self._seconds = seconds
        self._gap = gap
        self._declare_length = declare_length
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._closed = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> Self:
        accepting = threading.Thread(target=self._accept, daemon=True)
        accepting.start()
        self._threads.append(accepting)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):  # wakes the accept: closing alone does not
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        for thread in self._threads:
            thread.join(timeout=5)

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while not self._closed.is_set():
                connection, _ = self._listener.accept()
                thread = threading.Thread(target=self._drip, args=(connection,), daemon=True)
                thread.start()
                self._threads.append(thread)

    def _drip(self, connection: socket.socket) -> None:
        body = b"{" + b" " * 100_000 + b"}"
        length = f"Content-Length: {len(body)}\r\n" if self._declare_length else ""
        head = f"HTTP/1.1 200 OK\r\n{length}Connection: close\r\n\r\n".encode()
        slow, fast = (head + body, b"") if self._drip_headers else (body, head)
        ends = time.monotonic() + self._seconds
        with connection, contextlib.suppress(OSError):
            connection.recv(65536)  # the request
            connection.sendall(fast)
            if not self._gap:
                connection.sendall(slow)
                return
            for byte in slow:
                if self._closed.wait(self._gap) or time.monotonic() > ends:
                    return
                connection.sendall(bytes([byte]))
