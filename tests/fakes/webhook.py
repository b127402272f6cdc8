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
from collections import Counter
from typing import Any

from tests.fakes.loopback import Answer, LoopbackServer

_JSON = {"Content-Type": "application/json"}


class WebhookReceiver(LoopbackServer):
    def __init__(self, secret: str) -> None:
        super().__init__()
        self.secret = secret
        self.deliveries: dict[str, dict[str, Any]] = {}  # by Idempotency-Key
        # Every signed delivery by its key, counted before the receiver's own deduplication.
        self.posts: Counter[str] = Counter()
        self.requests = 0
        self.bad_signatures = 0
        self.script: list[tuple[int, dict[str, str], str]] = []  # answers to give first
        self.delay = 0.0  # seconds each delivery takes to be answered (a slow receiver)
        self.delay_from = 0  # the number of the first request delayed (counting from 0)
        self._arrived = 0  # requests come in so far, answered or not
        self._closing = threading.Event()  # ends every delay: the server is shutting down
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"{self.origin}/hooks/publish"

    def __exit__(self, *exc: Any) -> None:
        self._closing.set()
        super().__exit__(*exc)

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        with self._lock:
            number = self._arrived
            self._arrived += 1
        if number >= self.delay_from:
            self._closing.wait(self.delay)
        with self._lock:
            self.requests += 1
            expected = "sha256=" + hmac.new(self.secret.encode(), body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(headers.get("x-steadypress-signature-256", ""), expected):
                self.bad_signatures += 1
                return 401, _JSON, b'{"message": "bad signature"}'
            if self.script:
                status, extra, text = self.script.pop(0)
                return status, {**_JSON, **extra}, text.encode()
            key = headers.get("idempotency-key", "")
            self.posts[key] += 1
            if key not in self.deliveries:
                document = json.loads(body)
                slug = document["path"].removeprefix("content/").removesuffix(".md")
                self.deliveries[key] = {
                    "document": document, "id": str(len(self.deliveries) + 1),
                    "url": f"https://receiver.example/{slug}",
                }  # fmt: skip
            stored = self.deliveries[key]
            return 200, _JSON, json.dumps({"id": stored["id"], "url": stored["url"]}).encode()
