"""What every fake API here shares: an HTTP/1.1 server on 127.0.0.1 at a free port, run in a
thread for the length of a `with` block. A fake answers each request in `answer`."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

# (status, headers, body); None closes the connection unanswered: an answer lost on the way back.
Answer = tuple[int, dict[str, str], bytes] | None


class LoopbackServer:
    def __init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


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
