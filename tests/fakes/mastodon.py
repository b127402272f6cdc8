"""A loopback Mastodon, answering the statuses API as docs.joinmastodon.org documents it:
- `Authorization: Bearer <token>`; without a valid one, 401 `{"error": "The access token is
  invalid"}` (/api/oauth-tokens);
- POST /api/v1/statuses (JSON or form) answers 200 with the Status; an `Idempotency-Key` seen in
  the last hour answers the status it already made, and is forgotten after that hour
  (/methods/statuses#create); 422 `{"error": "Validation failed: ..."}` for a text that is empty
  or over 500 characters (/user/posting#text: "characters" are grapheme clusters, each link
  counts as 23 whatever its length, ending before a trailing full stop or bracket, and a
  remote mention as its username alone);
- GET /api/v1/statuses/:id/source (the plain text), PUT /api/v1/statuses/:id (an edit, with
  `edited_at`), DELETE /api/v1/statuses/:id (200 with the deleted status and its `text`);
  404 `{"error": "Record not found"}` for an unknown id;
- GET /api/v1/accounts/verify_credentials, GET /api/v1/apps/verify_credentials;
- GET /api/v1/accounts/:id/statuses, newest first, `limit` (20 by default, at most 40) and
  `max_id`, with a `Link: <...>; rel="next"` header to older ones (/api/guidelines#pagination);
  a status shows the `application` that posted it to its owner;
- rate limits (/api/rate-limits): 300 requests per 5 minutes, deletions 30 per 30 minutes;
  `X-RateLimit-Limit`, `-Remaining` and `-Reset` (an ISO 8601 time) on every answer, 429
  `{"error": "Too many requests"}` past the limit.
The clock (for the keys' hour and the limits) can be simulated time."""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import parse_qs, urlparse

import regex

from tests.fakes.faults import Faults
from tests.fakes.loopback import Answer, LoopbackServer

_URL = re.compile(r"https?://\S+")
_KEY_HOURS = 3600.0


def _html(text: str) -> str:
    """The status as Mastodon renders it: paragraphs, and each link as an anchor."""
    paragraphs = []
    for paragraph in re.split(r"\n{2,}", text):
        html, last = "", 0
        for match in _URL.finditer(paragraph):
            url = escape(match.group(0))
            html += escape(paragraph[last : match.start()])
            html += f'<a href="{url}" rel="nofollow noopener" target="_blank">{url}</a>'
            last = match.end()
        html += escape(paragraph[last:])
        paragraphs.append(f"<p>{html.replace(chr(10), '<br />')}</p>")
    return "".join(paragraphs)


class FakeMastodon(LoopbackServer, Faults):
    def __init__(
        self, *, token: str = "mastodon-token", clock: Callable[[], float] = time.monotonic
    ) -> None:
        LoopbackServer.__init__(self)
        Faults.__init__(self)
        self.token = token
        self.app_name = "steadypress"
        self.clock = clock
        self.statuses: dict[str, dict[str, Any]] = {}
        self.creates: Counter[str] = Counter()  # by each link in the text
        self.edits: Counter[str] = Counter()
        self.deletes = 0
        self.rate_limited = 0
        self.requests: Counter[str] = Counter()  # "METHOD /path" without the query
        self._keys: dict[str, tuple[str, float]] = {}
        self._next_id = 100
        self._recent: dict[str, deque[float]] = {"api": deque(), "delete": deque()}
        self._limits = {"api": (300, 300.0), "delete": (30, 1800.0)}
        self._lock = threading.Lock()

    def __exit__(self, *exc: object) -> None:
        self.release()
        super().__exit__(*exc)

    @property
    def instance(self) -> str:
        return self.origin

    def statuses_linking(self, url: str) -> list[dict[str, Any]]:
        return [s for s in self.statuses.values() if f'href="{escape(url)}"' in s["content"]]

    def post_by_hand(self, text: str, *, application: str = "Elk") -> dict[str, Any]:
        """A status the account's owner wrote in another app (it may link to an article)."""
        with self._lock:
            return self._make(text, "public", application)

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        url = urlparse(path)
        self.requests[f"{method} {re.sub(r'/[0-9]+', '/:id', url.path)}"] += 1
        if headers.get("authorization") != f"Bearer {self.token}":
            return self._json(401, {"error": "The access token is invalid"})
        with self._lock:
            scripted = self.scripted()
            if scripted is not None:
                status, extra = scripted
                return self._json(status, {"error": self.scripted_text()}, extra)
            for bucket in ("api", "delete") if method == "DELETE" else ("api",):
                reset = self._limited(bucket)
                if reset is not None:
                    self.rate_limited += 1
                    return self._json(429, {"error": "Too many requests"}, self._headers(bucket))
            created, answer = self._handle(method, url.path, url.query, headers, body)
        return self.after_create(answer) if created else answer

    def _handle(
        self, method: str, path: str, query: str, headers: dict[str, str], body: bytes
    ) -> tuple[bool, Answer]:
        form = _params(headers, body)
        if method == "GET" and path == "/api/v1/accounts/verify_credentials":
            return False, self._json(200, {"id": "1", "username": "author", "acct": "author",
                                           "url": f"{self.origin}/@author"})  # fmt: skip
        if method == "GET" and path == "/api/v1/apps/verify_credentials":
            return False, self._json(200, {"name": self.app_name, "website": None})
        if method == "POST" and path == "/api/v1/statuses":
            return self._create(form, headers.get("idempotency-key"))
        if method == "GET" and path == "/api/v1/accounts/1/statuses":
            return False, self._list(query)
        match = re.fullmatch(r"/api/v1/statuses/([0-9]+)(/source)?", path)
        if match is None or match.group(1) not in self.statuses:
            return False, self._json(404, {"error": "Record not found"})
        return False, self._one(method, self.statuses[match.group(1)], bool(match.group(2)), form)

    def _one(
        self, method: str, status: dict[str, Any], source: bool, form: dict[str, Any]
    ) -> Answer:
        """GET .../source, PUT (an edit) or DELETE of one status."""
        if method == "GET" and source:
            return self._json(200, {"id": status["id"], "text": status["text"], "spoiler_text": ""})
        if method == "PUT" and not source:
            problem = _invalid(str(form.get("status", "")))
            if problem:
                return self._json(422, {"error": f"Validation failed: {problem}"})
            self.edits[status["id"]] += 1
            status.update(text=form["status"], content=_html(form["status"]),
                          edited_at=self._iso(time.time()))  # fmt: skip
            return self._json(200, self._shown(status))
        if method == "DELETE" and not source:
            self.deletes += 1
            del self.statuses[status["id"]]
            return self._json(200, {**self._shown(status), "text": status["text"]})
        return self._json(404, {"error": "Record not found"})

    def _create(self, form: dict[str, Any], key: str | None) -> tuple[bool, Answer]:
        now = self.clock()
        if key and key in self._keys and now - self._keys[key][1] < _KEY_HOURS:
            kept = self.statuses.get(self._keys[key][0])
            if kept is not None:
                return False, self._json(200, self._shown(kept))
        text = str(form.get("status", ""))
        problem = _invalid(text)
        visibility = str(form.get("visibility", "public"))
        if problem is None and visibility not in ("public", "unlisted", "private", "direct"):
            problem = "Visibility is not included in the list"
        if problem:
            return False, self._json(422, {"error": f"Validation failed: {problem}"})
        status = self._make(text, visibility, self.app_name)
        for url in _URL.findall(text):
            self.creates[url] += 1
        if key:
            self._keys[key] = (status["id"], now)
        return True, self._json(200, self._shown(status))

    def _make(self, text: str, visibility: str, application: str) -> dict[str, Any]:
        self._next_id += 1
        number = str(self._next_id)
        status = {
            "id": number, "created_at": self._iso(time.time()), "visibility": visibility,
            "url": f"{self.origin}/@author/{number}",
            "uri": f"{self.origin}/users/author/statuses/{number}",
            "content": _html(text), "text": text, "edited_at": None,
            "application": {"name": application, "website": None},
            "account": {"id": "1", "username": "author", "acct": "author"},
        }  # fmt: skip
        self.statuses[number] = status
        return status

    def _list(self, query: str) -> Answer:
        params = {k: v[-1] for k, v in parse_qs(query).items()}
        limit = min(int(params.get("limit", 20)), 40)
        newest_first = sorted(self.statuses.values(), key=lambda s: -int(s["id"]))
        if "max_id" in params:
            newest_first = [s for s in newest_first if int(s["id"]) < int(params["max_id"])]
        page = newest_first[:limit]
        extra = {}
        if page:
            older = f"{self.origin}/api/v1/accounts/1/statuses?limit={limit}"
            extra["Link"] = f'<{older}&max_id={page[-1]["id"]}>; rel="next"'
        return self._json(200, [self._shown(s) for s in page], extra)

    @staticmethod
    def _shown(status: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in status.items() if key != "text"}

    def _limited(self, bucket: str) -> float | None:
        limit, window = self._limits[bucket]
        now, recent = self.clock(), self._recent[bucket]
        while recent and recent[0] <= now - window:
            recent.popleft()
        if len(recent) >= limit:
            return recent[0] + window - now
        recent.append(now)
        return None

    def _headers(self, bucket: str) -> dict[str, str]:
        limit, window = self._limits[bucket]
        recent = self._recent[bucket]
        reset_in = (recent[0] + window - self.clock()) if recent else window
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(max(0, limit - len(recent))),
            "X-RateLimit-Reset": self._iso(time.time() + reset_in),
        }

    @staticmethod
    def _iso(moment: float) -> str:
        return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"

    def _json(self, status: int, document: Any, extra: dict[str, str] | None = None) -> Answer:
        headers = {"Content-Type": "application/json; charset=utf-8", **self._headers("api")}
        return status, {**headers, **(extra or {})}, json.dumps(document).encode()


def _params(headers: dict[str, str], body: bytes) -> dict[str, Any]:
    if not body:
        return {}
    if headers.get("content-type", "").startswith("application/json"):
        document = json.loads(body)
        return document if isinstance(document, dict) else {}
    return {k: v[-1] for k, v in parse_qs(body.decode()).items()}


# A link as Mastodon finds it in a text: it ends on a letter, digit or one of /=_-+#&%~@.
_COUNTED_LINK = re.compile(r"https?://[^\s]*[\w/=+#&%~@-]")
_REMOTE_MENTION = re.compile(r"@(\w+)@[\w.-]*\w")


def _invalid(text: str) -> str | None:
    if not text.strip():
        return "Text can't be blank"
    countable = _COUNTED_LINK.sub("x" * 23, _REMOTE_MENTION.sub(r"@\1", text))
    if len(regex.findall(r"\X", countable)) > 500:
        return "Text character limit of 500 exceeded"
    return None
