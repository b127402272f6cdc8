"""A loopback webhook receiver that behaves as a careful one should: it checks the signature,
keeps one delivery per Idempotency-Key (a replay gets the first answer again), and answers with
whatever statuses a test scripts. The signature follows the scheme of GitHub's own webhooks
(docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries): `sha256=` and the
hex HMAC-SHA256 of the raw body."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class WebhookReceiver:
    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.deliveries: dict[str, dict[str, Any]] = {}  # by Idempotency-Key
        self.requests = 0
        self.bad_signatures = 0
        self.script: list[tuple[int, dict[str, str], str]] = []  # answers to give first
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/hooks/publish"

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
        with self._lock:
            self.requests += 1
            expected = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(headers.get("x-steadypress-signature-256", ""), expected):
                self.bad_signatures += 1
                return 401, {}, b'{"message": "bad signature"}'
            if self.script:
                status, extra, text = self.script.pop(0)
                return status, extra, text.encode()
            key = headers.get("idempotency-key", "")
            if key not in self.deliveries:
                document = json.loads(body)
                slug = document["path"].removeprefix("content/").removesuffix(".md")
                self.deliveries[key] = {
                    "document": document, "id": str(len(self.deliveries) + 1),
                    "url": f"https://receiver.example/{slug}",
                }  # fmt: skip
            stored = self.deliveries[key]
            return 200, {}, json.dumps({"id": stored["id"], "url": stored["url"]}).encode()


def _handler(receiver: WebhookReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests read the receiver's records."""

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {key.lower(): value for key, value in self.headers.items()}
            status, extra, payload = receiver.answer(headers, body)
            self.send_response(status)
            for key, value in {
                "Content-Type": "application/json",
                **extra,
                "Content-Length": str(len(payload)),
            }.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

    return Handler
