"""A loopback Bluesky PDS, answering the XRPC methods steadypress uses as the atproto lexicons
and docs.bsky.app document them:
- com.atproto.server.createSession {identifier, password} -> {accessJwt, refreshJwt, handle,
  did}; a wrong password is 401 `{"error": "AuthenticationRequired", "message": "Invalid
  identifier or password"}`; 30 sessions per 5 minutes ("Rate Limits");
- every other call needs `Authorization: Bearer <accessJwt>`: 401 AuthenticationRequired
  without one, 400 `{"error": "ExpiredToken"}` once the session has expired (here: after
  `expire_after_writes` writes);
- com.atproto.repo.uploadBlob (the raw bytes, with their Content-Type) -> {blob: {$type: blob,
  ref: {$link: cid}, mimeType, size}};
- com.atproto.repo.putRecord {repo, collection, rkey, record, swapRecord?} -> {uri, cid}: the
  record is created or replaced at its key; 400 InvalidRequest for a record the lexicon refuses
  (a post's text over 300 graphemes, extended grapheme clusters, or 3,000 bytes; a facet outside
  the text, a card without uri/title/description, a thumb not uploaded or over 1,000,000
  bytes, an rkey that is not a TID) and 400 InvalidSwap when swapRecord is not the current
  CID (com.atproto.repo.putRecord);
- com.atproto.repo.getRecord -> {uri, cid, value}, or 400 RecordNotFound;
- com.atproto.repo.deleteRecord -> 200, also for a record that is not there;
- write points, 5,000 an hour (create 3, update 2, delete 1): past them, 429
  `{"error": "RateLimitExceeded"}` with `ratelimit-limit`, `-remaining`, `-reset` (Unix
  seconds) and `-policy`."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import ParseResult, parse_qs, urlparse

import regex

from tests.fakes.faults import Faults
from tests.fakes.loopback import Answer, LoopbackServer

_TID = re.compile(r"[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}")
_POINTS = {"create": 3, "update": 2, "delete": 1}


def _cid(data: bytes) -> str:
    return "bafkrei" + base64.b32encode(hashlib.sha256(data).digest()).decode().lower().rstrip("=")


class FakeBluesky(LoopbackServer, Faults):
    def __init__(
        self,
        *,
        handle: str = "author.bsky.social",
        password: str = "app-pass-word-1234",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        LoopbackServer.__init__(self)
        Faults.__init__(self)
        self.handle, self.password, self.did = handle, password, "did:plc:authorfake0000000000"
        self.clock = clock
        self.records: dict[str, dict[str, Any]] = {}  # rkey -> post record
        self.blobs: dict[str, tuple[str, int]] = {}  # cid -> (mime, size)
        self.writes: Counter[str] = Counter()  # "create"/"update"/"delete"
        self.creates: Counter[str] = Counter()  # by record key
        self.sessions_made = 0
        self.rate_limited = 0
        self.tokens: set[str] = set()
        self.expire_after_writes: int | None = None
        self.echo_session = False  # refuse every post quoting the session's token
        self._expired: set[str] = set()
        self._points: deque[tuple[float, int]] = deque()
        self._sessions: deque[float] = deque()
        self._lock = threading.Lock()

    def __exit__(self, *exc: object) -> None:
        self.release()
        super().__exit__(*exc)

    @property
    def service(self) -> str:
        return self.origin

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        with self._lock:
            created, answer = self._route(method, urlparse(path), headers, body)
        return self.after_create(answer) if created else answer

    def _route(
        self, method: str, url: ParseResult, headers: dict[str, str], body: bytes
    ) -> tuple[bool, Answer]:
        name = url.path.removeprefix("/xrpc/")
        scripted = self.scripted()
        if scripted is not None:
            refusal = {"error": "Scripted", "message": self.scripted_text()}
            return False, self._json(scripted[0], refusal, scripted[1])
        if name == "com.atproto.server.createSession" and method == "POST":
            return False, self._session(json.loads(body or b"{}"))
        if refused := self._unauthorized(headers):
            return False, refused
        if self.echo_session and name == "com.atproto.repo.putRecord":
            token = headers.get("authorization", "")
            return False, self._invalid(f"{token} may not write here")
        if method == "POST" and name in ("com.atproto.repo.putRecord",
                                         "com.atproto.repo.deleteRecord"):  # fmt: skip
            return self._write(name, json.loads(body or b"{}"))
        reads: dict[tuple[str, str], Callable[[], Answer]] = {
            ("POST", "com.atproto.repo.uploadBlob"):
                lambda: self._upload(headers.get("content-type", ""), body),
            ("GET", "com.atproto.repo.getRecord"):
                lambda: self._get({k: v[-1] for k, v in parse_qs(url.query).items()}),
        }  # fmt: skip
        read = reads.get((method, name))
        return False, (read() if read else self._json(501, {"error": "MethodNotImplemented"}))

    def _unauthorized(self, headers: dict[str, str]) -> Answer:
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if token not in self.tokens:
            return self._json(401, {"error": "AuthenticationRequired",
                                    "message": "Authentication Required"})  # fmt: skip
        if token in self._expired:
            return self._json(400, {"error": "ExpiredToken", "message": "Token has expired"})
        return None

    def _session(self, request: dict[str, Any]) -> Answer:
        now = self.clock()
        while self._sessions and self._sessions[0] <= now - 300:
            self._sessions.popleft()
        if len(self._sessions) >= 30:
            return self._limited(int(time.time() + self._sessions[0] + 300 - now), "30;w=300")
        self._sessions.append(now)
        if request.get("identifier") != self.handle or request.get("password") != self.password:
            return self._json(401, {"error": "AuthenticationRequired",
                                    "message": "Invalid identifier or password"})  # fmt: skip
        self.sessions_made += 1
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.tokens.add(access)
        return self._json(200, {"accessJwt": access, "refreshJwt": refresh, "handle": self.handle,
                                "did": self.did, "active": True})  # fmt: skip

    def _upload(self, mime: str, data: bytes) -> Answer:
        cid = _cid(data)
        self.blobs[cid] = (mime, len(data))
        blob = {"$type": "blob", "ref": {"$link": cid}, "mimeType": mime, "size": len(data)}
        return self._json(200, {"blob": blob})

    def _get(self, query: dict[str, str]) -> Answer:
        record = self.records.get(query.get("rkey", ""))
        uri = f"at://{self.did}/{query.get('collection')}/{query.get('rkey')}"
        if query.get("repo") not in (self.did, self.handle) or record is None:
            return self._json(400, {"error": "RecordNotFound",
                                    "message": f"Could not locate record: {uri}"})  # fmt: skip
        return self._json(200, {"uri": uri, "cid": self._record_cid(record), "value": record})

    def _write(self, name: str, request: dict[str, Any]) -> tuple[bool, Answer]:
        rkey = str(request.get("rkey", ""))
        if request.get("repo") not in (self.did, self.handle) or (
            request.get("collection") != "app.bsky.feed.post"
        ):
            return False, self._invalid("Could not find repo (this fake holds posts only)")
        existing = self.records.get(rkey)
        if name.endswith("deleteRecord"):
            return False, self._delete(rkey)
        problem = self._refusal(rkey, request.get("record"))
        if problem:
            return False, self._invalid(problem)
        swap = request.get("swapRecord")
        if swap is not None and (existing is None or swap != self._record_cid(existing)):
            return False, self._json(400, {"error": "InvalidSwap",
                                           "message": "Record was at another cid"})  # fmt: skip
        kind = "update" if existing is not None else "create"
        if limited := self._spend(kind):
            return False, limited
        self.records[rkey] = request["record"]
        self.writes[kind] += 1
        if kind == "create":
            self.creates[rkey] += 1
        if self.expire_after_writes is not None and self.writes.total() >= self.expire_after_writes:
            self._expired |= self.tokens
        uri = f"at://{self.did}/app.bsky.feed.post/{rkey}"
        answer = self._json(200, {"uri": uri, "cid": self._record_cid(request["record"]),
                                  "validationStatus": "valid"})  # fmt: skip
        return kind == "create", answer

    def _delete(self, rkey: str) -> Answer:
        if limited := self._spend("delete"):
            return limited
        if self.records.pop(rkey, None) is not None:
            self.writes["delete"] += 1
        return self._json(200, {})

    def _refusal(self, rkey: str, record: Any) -> str | None:
        return next(self._problems(rkey, record), None)

    def _problems(self, rkey: str, record: Any) -> Iterator[str]:
        post = "Invalid app.bsky.feed.post record"
        if not _TID.fullmatch(rkey):
            yield f"Invalid record key: {rkey!r} is not a TID"
        if not isinstance(record, dict) or record.get("$type") != "app.bsky.feed.post":
            yield f"{post}: $type"
            return
        text = str(record.get("text", ""))
        # The lexicon's maxGraphemes 300 and maxLength (UTF-8 bytes) 3000.
        if len(regex.findall(r"\X", text)) > 300 or len(text.encode()) > 3000:
            yield f"{post}: Record/text must not be longer than 300 graphemes"
        if "createdAt" not in record:
            yield f'{post}: Record must have the property "createdAt"'
        for facet in record.get("facets", []):
            index = facet.get("index", {})
            if not 0 <= index.get("byteStart", -1) < index.get("byteEnd", -1) <= len(text.encode()):
                yield f"{post}: facet index outside the text"
        external = (record.get("embed") or {}).get("external") or {}
        card_fields = ("uri", "title", "description")
        if external and not all(isinstance(external.get(k), str) for k in card_fields):
            yield "Invalid app.bsky.embed.external: uri, title and description are required"
        cid = ((external.get("thumb") or {}).get("ref") or {}).get("$link")
        if external.get("thumb") is not None and cid not in self.blobs:
            yield f"Could not find blob: {cid}"
        if cid in self.blobs and self.blobs[cid][1] > 1_000_000:
            yield "Invalid app.bsky.embed.external: thumb is too big"

    def _spend(self, kind: str) -> Answer:
        """None when the account has the points for this write (and spends them)."""
        now = self.clock()
        while self._points and self._points[0][0] <= now - 3600:
            self._points.popleft()
        spent = sum(points for _, points in self._points)
        if spent + _POINTS[kind] > 5000:
            return self._limited(int(time.time() + self._points[0][0] + 3600 - now), "5000;w=3600")
        self._points.append((now, _POINTS[kind]))
        return None

    def _limited(self, reset: int, policy: str) -> Answer:
        self.rate_limited += 1
        headers = {"ratelimit-limit": policy.split(";", maxsplit=1)[0], "ratelimit-remaining": "0",
                   "ratelimit-reset": str(reset), "ratelimit-policy": policy}  # fmt: skip
        return self._json(429, {"error": "RateLimitExceeded", "message": "Rate Limit Exceeded"},
                          headers)  # fmt: skip

    @staticmethod
    def _record_cid(record: dict[str, Any]) -> str:
        return _cid(json.dumps(record, sort_keys=True).encode())

    def _invalid(self, message: str) -> Answer:
        return self._json(400, {"error": "InvalidRequest", "message": message})

    @staticmethod
    def _json(status: int, document: Any, extra: dict[str, str] | None = None) -> Answer:
        headers = {"Content-Type": "application/json; charset=utf-8", **(extra or {})}
        return status, headers, json.dumps(document).encode()
