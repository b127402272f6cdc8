"""What every fake API here shares: an HTTP/1.1 server on 127.0.0.1 at a free port, run in a
thread for the length of a `with` block. A fake answers each request in `answer`."""

from __future__ import annotations

import contextlib
import functools
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

# (status, headers, body); None closes the connection unanswered: an answer lost on the way back.
Answer = tuple[int, dict[str, str], bytes] | None
# How often a server looks for a shutdown (`serve_forever`'s poll interval).
POLL = 0.05


class ClosingHTTPServer(ThreadingHTTPServer):
    """A server that leaves no thread behind when closed: a client's kept-alive connection
    would hold its handler's thread until the client let go of it, so closing the server
    closes the connections it still has, and waits for their threads (a thread left running
    makes the render pool of a later test in the same process render in the process)."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self.accepted = 0  # connections, kept-alive ones counted once

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
            self.accepted += 1
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        with self._open_lock:
            still_open = list(self._open)
        for connection in still_open:  # its handler, waiting for a next request, reads an end
            with contextlib.suppress(OSError):  # the client closed it meanwhile
                connection.shutdown(socket.SHUT_RDWR)
        super().server_close()  # joins the handlers' threads (block_on_close)


@contextlib.contextmanager
def serving(server: ClosingHTTPServer) -> Iterator[ClosingHTTPServer]:
    """`server` answering in a thread of its own for the length of the block, then closed with
    every thread it ran. It looks for the end every 50 ms, not Python's 0.5 s: each test that
    serves something ends that much sooner."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        """Quiet: tests read what was served, not a log."""


@contextlib.contextmanager
def serving_folder(folder: Path) -> Iterator[str]:
    """The files of `folder` served as a static host serves them (GitHub Pages); yields the
    root URL."""
    handler = functools.partial(_QuietFiles, directory=str(folder))
    with serving(ClosingHTTPServer(("127.0.0.1", 0), handler)) as server:
        yield f"http://127.0.0.1:{server.server_address[1]}/"


class LoopbackServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self._server = ClosingHTTPServer((host, 0), _handler(self))
        self._serving = serving(self._server)

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def connections(self) -> int:
        """Connections clients opened to this server so far."""
        return self._server.accepted

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._serving.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._serving.__exit__(*exc)


def _handler(fake: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body leave in two writes; with Nagle's algorithm the second waits for the
        # client's delayed ACK (about 40 ms on Linux) on every request.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the fakes' records, not a log."""

        def _serve(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {key.lower(): value for key, value in self.headers.items()}
            answer = fake.answer(self.command, self.path, headers, body)
            if answer is None:
                self.close_connection = True
                self.connection.close()
                return
            status, extra, payload = answer
            self.send_response(status)
            for key, value in {**extra, "Content-Length": str(len(payload))}.items():
                self.send_header(key, value)
            try:
                self.end_headers()
                if self.command != "HEAD":  # a HEAD answer has the headers of a GET, no body
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up waiting (a timeout test)

        do_GET = do_HEAD = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    return Handler
