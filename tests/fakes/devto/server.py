"""A loopback Forem (dev.to) fake, answering as the Forem API v1 documents it
(developers.forem.com/api/v1): `api-key` header (401 `{"error": "unauthorized", "status": 401}`
without a valid one), POST /api/articles (201 with the post), PUT /api/articles/{id} (200; 404
for an unknown id), GET /api/articles/me/all (paginated by `page` and `per_page`, at most 1000),
422 `{"error": ..., "status": 422}` for an article it will not take (no title, more than four
tags), and dev.to's rate limits answered with 429 and Retry-After: 10 creates and 30 updates per
window (30 s on dev.to; tests shorten it). Faults as every fake has them (`faults.py`), and
`failing_titles` makes every create or update of those articles answer 500 (a poison article).
The rate-limit clock can be simulated time."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.fakes.faults import Faults
from tests.fakes.loopback import Answer, LoopbackServer

_MARKER = re.compile(r"<!-- steadypress:(\S+) -->")


class FakeForem(LoopbackServer, Faults):
    def __init__(
        self,
        *,
        api_key: str = "devto-key",
        window: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        LoopbackServer.__init__(self)
        Faults.__init__(self)
        self.api_key = api_key
        self.window = window
        self.clock = clock
        self.failing_titles: set[str] = set()
        # Some servers quote the credential they refused; steadypress must not record it.
        self.echo_key_in_errors = False
        self.posts: dict[int, dict[str, Any]] = {}
        self.creates: Counter[str] = Counter()  # by the article path in each post's marker
        self.rate_limited = 0
        self.updates: Counter[int] = Counter()  # PUTs applied, by post id
        self._recent: dict[str, deque[float]] = {"create": deque(), "update": deque()}
        self._limits = {"create": 10, "update": 30}
        self._lock = threading.Lock()

    def __exit__(self, *exc: object) -> None:
        self.release()
        super().__exit__(*exc)

    @staticmethod
    def path_of(post: dict[str, Any]) -> str | None:
        """The article a post was made from, by the marker steadypress puts in its body."""
        found = _MARKER.search(str(post.get("body_markdown") or ""))
        return found.group(1) if found else None

    @property
    def api_url(self) -> str:
        return f"{self.origin}/api"

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        status, extra, document = self.handle(method, path, headers, body)
        if self.echo_key_in_errors and status >= 400 and isinstance(document, dict):
            document = {
                **document,
                "error": f"{document.get('error')} (key {headers.get('api-key')})",
            }
        payload = json.dumps(document).encode()
        answer = status, {"Content-Type": "application/json", **extra}, payload
        created = method == "POST" and status == 201
        return self.after_create(answer) if created else answer

    def _limited(self, kind: str) -> float | None:
        """Seconds until another `kind` is allowed, or None if it is allowed now (and counted)."""
        now, recent = self.clock(), self._recent[kind]
        while recent and recent[0] <= now - self.window:
            recent.popleft()
        if len(recent) >= self._limits[kind]:
            return recent[0] + self.window - now
        recent.append(now)
        return None

    def handle(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], Any]:
        if headers.get("api-key") != self.api_key:
            return 401, {}, {"error": "unauthorized", "status": 401}
        url = urlparse(path)
        with self._lock:
            if scripted := self.scripted():
                status, extra = scripted
                return status, extra, {"error": "scripted", "status": status}
            if method == "GET" and url.path == "/api/articles/me/all":
                return self._mine(url.query)
            article = (json.loads(body) if body else {}).get("article", {})
            if method == "POST" and url.path == "/api/articles":
                return self._refusal("create", article) or self._create(article)
            match = re.fullmatch(r"/api/articles/(\d+)", url.path)
            if method == "PUT" and match:
                # An update names only the fields it changes (published: false alone unpublishes);
                # the post it leaves must still be valid.
                number = int(match.group(1))
                if number in self.posts:
                    merged = {**self.posts[number], **article}
                    return self._refusal("update", merged) or self._update(number, article)
        return 404, {}, {"error": "not found", "status": 404}

    def _mine(self, query: str) -> tuple[int, dict[str, str], Any]:
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        page, per_page = int(params.get("page", 1)), min(int(params.get("per_page", 30)), 1000)
        posts = sorted(self.posts.values(), key=lambda p: -p["id"])
        return 200, {}, posts[(page - 1) * per_page : page * per_page]

    def _refusal(
        self, kind: str, article: dict[str, Any]
    ) -> tuple[int, dict[str, str], Any] | None:
        if article.get("title") in self.failing_titles:
            return 500, {}, {"error": "Internal Server Error", "status": 500}
        wait = self._limited(kind)
        if wait is not None:
            self.rate_limited += 1
            retry_after = {"Retry-After": str(max(1, round(wait)))}
            return 429, retry_after, {"error": "Rate limit reached", "status": 429}
        problem = _invalid(article)
        return None if problem is None else (422, {}, {"error": problem, "status": 422})

    def _create(self, article: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        post = self._post(len(self.posts) + 1, article)
        found = _MARKER.search(article.get("body_markdown", ""))
        self.creates[found.group(1) if found else "?"] += 1
        return 201, {}, post

    def _update(self, number: int, article: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        self.updates[number] += 1
        return 200, {}, self._post(number, {**self.posts[number], **article})

    def _post(self, number: int, article: dict[str, Any]) -> dict[str, Any]:
        slug = re.sub(r"[^a-z0-9]+", "-", str(article["title"]).lower()).strip("-")
        post = {
            **article,
            "id": number,
            "url": f"https://dev.example/user/{slug}-{number}",
            "type_of": "article",
        }
        self.posts[number] = post
        return post


def _invalid(article: dict[str, Any]) -> str | None:
    if not article.get("title"):
        return "Title can't be blank"
    tags = [t for t in str(article.get("tags") or "").split(",") if t]
    if len(tags) > 4:
        return "Tag list exceed the maximum of 4 tags"
    return None
