"""A loopback HTTP server that answers like GitHub for the calls steadypress makes.

Backed by a real bare git repository. It follows GitHub's documentation, and the recorded
exchanges in tests/fixtures/github-recorded hold it to what GitHub really sends:
- authentication: no `Authorization` header answers 401 "Requires authentication", a wrong token
  401 "Bad credentials" (docs.github.com/rest/authentication);
- every response carries `x-ratelimit-limit`, `-remaining`, `-used`, `-reset` (epoch seconds) and
  `-resource` ("Rate limits for the REST API");
- errors are JSON `{"message", "documentation_url", "status"}`; creating a ref that exists is
  422 "Reference already exists" (docs.github.com/rest/git/refs#create-a-reference);
- an answer is gzipped (`Content-Encoding: gzip`, `Vary: Accept-Encoding`) when the request's
  `Accept-Encoding` allows it, as every recorded answer with a body is
  (tests/fixtures/github-recorded/pygithub: GraphQl.testQuery, RateLimiting); `bytes_by_branch`
  counts what the wire carried;
- `POST /git/blobs` (`content` in `utf-8` or `base64`), `POST /git/trees` and `POST
  /git/commits` answer 201 with the new object's `sha` (docs.github.com/rest/git/blobs,
  /rest/git/trees, /rest/git/commits); `GET /git/blobs/{sha}` answers the JSON
  form (base64 `content`) or, with `Accept: application/vnd.github.raw+json`, the raw bytes
  (docs.github.com/rest/git/blobs);
- `GET /repos/{repo}` answers the example GitHub's REST description documents, made this
  repository's (its `private`), without a token too for a public repository, and 404 "Not
  Found" without one for a private one (docs.github.com/rest/repos/repos#get-a-repository).

Fault injection (`inject`) answers chosen calls with an error status, optionally after doing the
work (a lost answer), with no answer at all, or with rate-limit responses and their headers;
`before_write` lets a test move the branch between a client's read and its write; `requests`
counts calls by endpoint.
"""

from __future__ import annotations

import base64
import functools
import gzip
import hashlib
import json
import re
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from tests.fakes.github import graphql
from tests.fakes.github.apps import FakeApp, JWTRejected
from tests.fakes.github.issues import NOW, IssueError, IssueTracker
from tests.fakes.github.openapi import documented_example
from tests.fakes.github.repository import IDENTITY, BareRepository
from tests.fakes.loopback import Answer, LoopbackServer

DOCS = "https://docs.github.com/rest"
LOST = -1  # a Fault status meaning: close the connection without an answer
# GitHub does not say how hard it compresses; the lowest level keeps the fake from flattering the
# wire figures the benchmarks report.
GZIP_LEVEL = 1


@dataclass
class Fault:
    """Answer the next `times` requests whose label contains `match` with `status`."""

    match: str
    status: int = 502
    times: int = 1
    apply_first: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    branch: str | None = None  # only GraphQL calls naming this branch
    body: dict[str, Any] | None = None

    @classmethod
    def lost_answer(cls, match: str, *, times: int = 1, branch: str | None = None) -> Fault:
        """Do the work, then close the connection unanswered: what a client sees of a timeout
        or a reset after the server acted."""
        return cls(match, status=LOST, times=times, apply_first=True, branch=branch)

    @classmethod
    def secondary_rate_limit(cls, match: str, *, retry_after: int, times: int = 1) -> Fault:
        return cls(
            match,
            status=429,
            times=times,
            headers={"retry-after": str(retry_after)},
            body={
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
                "before you try again.",
                "documentation_url": f"{DOCS}/using-the-rest-api/rate-limits-for-the-rest-api",
            },
        )

    @classmethod
    def primary_rate_limit(cls, match: str, *, reset_in: int, times: int = 1) -> Fault:
        return cls(
            match,
            status=403,
            times=times,
            headers={
                "x-ratelimit-remaining": "0",
                "x-ratelimit-reset": str(int(time.time()) + reset_in),
            },
            body={
                "message": "API rate limit exceeded for installation ID 1.",
                "documentation_url": f"{DOCS}/using-the-rest-api/rate-limits-for-the-rest-api",
            },
        )


# Authenticated with the app's JWT, not a token (tests/fakes/github/apps.py).
_APP_ROUTES = frozenset(
    {"/repos/{repo}/installation", "/app/installations/{installation_id}/access_tokens"}
)

# Answered without a token too (docs.github.com/rest/repos/repos#get-a-repository: a public
# repository is readable anonymously; a private one is then "Not Found").
_ANONYMOUS_ROUTES = frozenset({"/repos/{repo}"})

_ROUTES = [
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)$"), "/repos/{repo}"),
    (
        "GET",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/installation$"),
        "/repos/{repo}/installation",
    ),
    (
        "POST",
        re.compile(r"^/app/installations/(?P<installation_id>\d+)/access_tokens$"),
        "/app/installations/{installation_id}/access_tokens",
    ),
    (
        "GET",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/git/blobs/(?P<sha>[0-9a-f]{40})$"),
        "/repos/{repo}/git/blobs/{sha}",
    ),
    (
        "GET",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/git/ref/heads/(?P<branch>.+)$"),
        "/repos/{repo}/git/ref/heads/{branch}",
    ),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/git/blobs$"), "/repos/{repo}/git/blobs"),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/git/trees$"), "/repos/{repo}/git/trees"),
    (
        "POST",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/git/commits$"),
        "/repos/{repo}/git/commits",
    ),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/git/refs$"), "/repos/{repo}/git/refs"),
    (
        "GET",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/labels/(?P<name>[^/]+)$"),
        "/repos/{repo}/labels/{name}",
    ),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/labels$"), "/repos/{repo}/labels"),
    ("GET", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues$"), "/repos/{repo}/issues"),
    ("POST", re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues$"), "/repos/{repo}/issues"),
    (
        "GET",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)$"),
        "/repos/{repo}/issues/{number}",
    ),
    (
        "PATCH",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)$"),
        "/repos/{repo}/issues/{number}",
    ),
    (
        "POST",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)/comments$"),
        "/repos/{repo}/issues/{number}/comments",
    ),
    (
        "GET",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/actions/workflows/(?P<workflow>[^/]+)$"),
        "/repos/{repo}/actions/workflows/{workflow}",
    ),
    (
        "PUT",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/actions/workflows/(?P<workflow>[^/]+)/enable$"),
        "/repos/{repo}/actions/workflows/{workflow}/enable",
    ),
    (
        "DELETE",
        re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<number>\d+)/labels/(?P<name>[^/]+)$"),
        "/repos/{repo}/issues/{number}/labels/{name}",
    ),
]


@dataclass(frozen=True)
class _Call:
    match: re.Match[str]
    request: dict[str, Any]
    headers: dict[str, str]
    query: str


class _HTTPError(Exception):
    def __init__(self, status: int, message: str, *, docs: str = DOCS) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"message": message, "documentation_url": docs, "status": str(status)}


class FakeGitHub(LoopbackServer):
    """Start with `with FakeGitHub() as github:`; point the client at `github.api_url`."""

    def __init__(self, *, full_name: str = "octo/blog", token: str = "test-token") -> None:
        super().__init__()
        self.full_name = full_name
        self.token = token
        self._folder = tempfile.TemporaryDirectory()
        self.repository = BareRepository(Path(self._folder.name) / "repo.git")
        self.requests: Counter[str] = Counter()
        self.requests_by_branch: Counter[str] = Counter()  # GraphQL calls, by the branch they name
        # Bytes of GraphQL bodies, (branch, "up" or "down"): what the wire carried for each branch.
        self.bytes_by_branch: Counter[tuple[str, str]] = Counter()
        self.texts_read: Counter[str] = Counter()  # files whose `Blob.text` an answer gave, by path
        self.tracker = IssueTracker(base_url="")
        # Workflow states (docs.github.com/rest/actions/workflows): active, disabled_inactivity,
        # disabled_manually, ...; a test sets what GitHub would have done.
        self.workflows: dict[str, str] = {"sweep.yml": "active", "publish.yml": "active"}
        self.latency = 0.0
        self.before_write: Callable[[], object] | None = None
        self.app: FakeApp | None = None  # a GitHub App installed on the repository
        self.not_modified = 0  # 304 answers to conditional requests
        self.private = False  # the repository's visibility, as GET /repos/{repo} tells it
        self._faults: list[Fault] = []
        self._lock = threading.Lock()

    @property
    def api_url(self) -> str:
        return self.origin

    @property
    def graphql_url(self) -> str:
        return f"{self.api_url}/graphql"

    def __enter__(self) -> Self:
        self.tracker.base_url = f"{self.api_url}/repos/{self.full_name}"
        return super().__enter__()

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        self.repository.close()
        self._folder.cleanup()

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        branch = self._branch_of(body) if path == "/graphql" else None
        if branch:
            self.requests_by_branch[branch] += 1
        status, extra, payload = self.handle(method, path, headers, body, branch)
        if payload and "gzip" in headers.get("accept-encoding", ""):
            payload = gzip.compress(payload, compresslevel=GZIP_LEVEL, mtime=0)
            extra = {**extra, "Content-Encoding": "gzip", "Vary": "Accept-Encoding, Accept"}
        if branch:
            self.bytes_by_branch[branch, "up"] += len(body)
            self.bytes_by_branch[branch, "down"] += len(payload) if status != LOST else 0
        if status == LOST:
            return None
        # GitHub sends these with every answer ("Rate limits for the REST API").
        base = {
            "X-GitHub-Media-Type": "github.v3; format=json",
            "X-GitHub-Request-Id": "FAKE:0001",
            "x-ratelimit-limit": "5000",
            "x-ratelimit-remaining": "4999",
            "x-ratelimit-used": "1",
            "x-ratelimit-reset": str(int(time.time()) + 3600),
            "x-ratelimit-resource": "graphql" if path == "/graphql" else "core",
        }
        return status, {**base, **extra}, payload

    def inject(self, fault: Fault) -> None:
        with self._lock:
            self._faults.append(fault)

    def clear_faults(self) -> int:
        """Forget the faults not yet met; returns how many were met."""
        with self._lock:
            met = sum(fault.times == 0 for fault in self._faults)
            self._faults.clear()
        return met

    def run_before_write(self) -> None:
        hook, self.before_write = self.before_write, None
        if hook is not None:
            hook()

    def _take_fault(self, label: str, branch: str | None) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.branch is not None and fault.branch != branch:
                    continue
                if fault.match in label and fault.times > 0:
                    fault.times -= 1
                    return fault
        return None

    def _branch_of(self, body: bytes) -> str | None:
        """The branch a GraphQL call names, or for a read at one commit (`oid`), the branch
        whose history holds that commit."""
        named = _branch_named(body)
        if named is not None:
            return named
        try:
            oid = (json.loads(body).get("variables") or {}).get("oid")
        except (ValueError, AttributeError):
            return None
        if not oid:
            return None
        try:
            holders = self.repository.text(
                "for-each-ref", "--contains", str(oid), "--format=%(refname:short)", "refs/heads"
            ).split()
        except subprocess.CalledProcessError:
            return None  # not a commit of this repository
        return holders[0] if holders else None

    @contextmanager
    def counting(self) -> Iterator[Counter[str]]:
        """The requests made inside the block, by endpoint."""
        before = Counter(self.requests)
        counted: Counter[str] = Counter()
        yield counted
        counted.update(self.requests - before)

    # -- request handling ------------------------------------------------------------------

    def handle(
        self, method: str, path: str, headers: dict[str, str], body: bytes, branch: str | None
    ) -> tuple[int, dict[str, str], bytes]:
        """The answer to one request; `branch` is the one a GraphQL call names, if any."""
        label, route = self._label(method, path, body)
        self.requests[label] += 1
        if self.latency:
            time.sleep(self.latency)
        refused = self._refused(headers.get("authorization", ""), route)
        if refused is not None:
            return self._json(refused.status, refused.body)
        fault = self._take_fault(label, branch)
        if fault is not None and not fault.apply_first:
            return self._fault(fault)
        try:
            status, extra, payload = self._dispatch(method, path, route, headers, body)
        except _HTTPError as error:
            status, extra, payload = self._json(error.status, error.body)
        if fault is not None:  # the work is done; the answer is lost on the way back
            return self._fault(fault)
        return status, extra, payload

    def _refused(self, auth: str, route: tuple[re.Match[str], str] | None) -> _HTTPError | None:
        """Why a request's credentials do not let it through, if they do not."""
        if not auth and route is not None and route[1] in _ANONYMOUS_ROUTES:
            return _HTTPError(404, "Not Found") if self.private else None
        if not auth:
            return _HTTPError(401, "Requires authentication")
        if route is not None and route[1] in _APP_ROUTES:
            try:
                if self.app is None:
                    raise JWTRejected("A JSON web token could not be decoded")
                self.app.verify(auth)
            except JWTRejected as error:
                return _HTTPError(401, str(error))
            return None
        token = auth.split(" ", 1)[-1]
        if token != self.token and not (self.app is not None and self.app.accepts(token)):
            return _HTTPError(401, "Bad credentials")
        return None

    def _label(
        self, method: str, path: str, body: bytes
    ) -> tuple[str, tuple[re.Match[str], str] | None]:
        if method == "POST" and path == "/graphql":
            try:
                document = json.loads(body).get("query", "")
            except (ValueError, AttributeError):
                document = ""
            return f"graphql {graphql.operation_name(document)}", None
        for verb, pattern, template in _ROUTES:
            match = pattern.match(path.split("?", 1)[0])
            if verb == method and match:
                return f"{method} {template}", (match, template)
        return f"{method} {path}", None

    def _fault(self, fault: Fault) -> tuple[int, dict[str, str], bytes]:
        body = fault.body or {"message": "Server Error", "documentation_url": DOCS}
        return self._json(fault.status, body, fault.headers)

    def _json(
        self, status: int, body: Any, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        return (
            status,
            {"Content-Type": "application/json; charset=utf-8", **(headers or {})},
            json.dumps(body).encode(),
        )

    def _dispatch(
        self,
        method: str,
        path: str,
        route: tuple[re.Match[str], str] | None,
        headers: dict[str, str],
        body: bytes,
    ) -> tuple[int, dict[str, str], bytes]:
        if method == "POST" and path == "/graphql":
            return self._json(200, graphql.execute(self, json.loads(body)))
        if route is None:
            raise _HTTPError(404, "Not Found")
        match, template = route
        if "repo" in match.groupdict() and match["repo"] != self.full_name:
            raise _HTTPError(404, "Not Found")
        call = _Call(match, json.loads(body) if body else {}, headers, path.partition("?")[2])
        try:
            return self._handlers[(method, template)](call)
        except IssueError as error:
            return self._json(error.status, error.body)

    @functools.cached_property
    def _handlers(
        self,
    ) -> dict[tuple[str, str], Callable[[_Call], tuple[int, dict[str, str], bytes]]]:
        repo = "/repos/{repo}"
        tracker = self.tracker
        return {
            ("GET", f"{repo}/git/blobs/{{sha}}"): lambda c: self._blob(
                c.match["sha"], c.headers.get("accept", "")
            ),
            ("GET", f"{repo}/git/ref/heads/{{branch}}"): lambda c: self._get_ref(
                c.match["branch"], c.headers.get("if-none-match")
            ),
            ("GET", repo): lambda c: self._repository(),
            ("GET", f"{repo}/installation"): lambda c: self._installation(),
            ("POST", "/app/installations/{installation_id}/access_tokens"): lambda c: (
                self._access_token(int(c.match["installation_id"]))
            ),
            ("POST", f"{repo}/git/blobs"): lambda c: self._create_blob(c.request),
            ("POST", f"{repo}/git/trees"): lambda c: self._create_tree(c.request),
            ("POST", f"{repo}/git/commits"): lambda c: self._create_commit(c.request),
            ("POST", f"{repo}/git/refs"): lambda c: self._create_ref(c.request),
            ("GET", f"{repo}/labels/{{name}}"): lambda c: self._json(
                200, tracker.get_label(c.match["name"])
            ),
            ("POST", f"{repo}/labels"): lambda c: self._json(201, tracker.create_label(c.request)),
            ("GET", f"{repo}/issues"): lambda c: self._page(*tracker.list_issues(c.query)),
            ("POST", f"{repo}/issues"): lambda c: self._json(201, tracker.create_issue(c.request)),
            ("GET", f"{repo}/issues/{{number}}"): lambda c: self._json(
                200, tracker.get_issue(int(c.match["number"]))
            ),
            ("PATCH", f"{repo}/issues/{{number}}"): lambda c: self._json(
                200, tracker.update_issue(int(c.match["number"]), c.request)
            ),
            ("POST", f"{repo}/issues/{{number}}/comments"): lambda c: self._json(
                201, tracker.comment(int(c.match["number"]), c.request)
            ),
            ("GET", f"{repo}/actions/workflows/{{workflow}}"): lambda c: self._workflow(
                c.match["workflow"]
            ),
            ("PUT", f"{repo}/actions/workflows/{{workflow}}/enable"): lambda c: self._enable(
                c.match["workflow"]
            ),
            ("DELETE", f"{repo}/issues/{{number}}/labels/{{name}}"): lambda c: self._json(
                200, tracker.remove_label(int(c.match["number"]), c.match["name"])
            ),
        }

    def _workflow(self, name: str) -> tuple[int, dict[str, str], bytes]:
        if name not in self.workflows:
            raise _HTTPError(404, "Not Found", docs=f"{DOCS}/actions/workflows#get-a-workflow")
        number = sorted(self.workflows).index(name) + 1
        return self._json(
            200,
            {
                "id": number,
                "node_id": f"W_{number}",
                "name": name.removesuffix(".yml"),
                "path": f".github/workflows/{name}",
                "state": self.workflows[name],
                "created_at": NOW,
                "updated_at": NOW,
                "url": self._url(f"actions/workflows/{number}"),
                "html_url": self._html(f"blob/main/.github/workflows/{name}"),
                "badge_url": self._html(f"workflows/{name}/badge.svg"),
            },
        )

    def _enable(self, name: str) -> tuple[int, dict[str, str], bytes]:
        """204 with no body, as documented for enabling a workflow."""
        if name not in self.workflows:
            raise _HTTPError(404, "Not Found", docs=f"{DOCS}/actions/workflows#enable-a-workflow")
        self.workflows[name] = "active"
        return 204, {}, b""

    def _page(
        self, items: list[dict[str, Any]], link: str | None
    ) -> tuple[int, dict[str, str], bytes]:
        return self._json(200, items, {"Link": link} if link else None)

    def _get_ref(self, branch: str, if_none_match: str | None) -> tuple[int, dict[str, str], bytes]:
        """With an ETag, as "Conditional requests" documents (docs.github.com/rest/using-the-
        rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate):
        `If-None-Match` naming the current one answers 304 with no body, which does not count
        against the primary rate limit."""
        head = self.repository.head_of(branch)
        if head is None:
            raise _HTTPError(404, "Not Found", docs=f"{DOCS}/git/refs#get-a-reference")
        status, headers, payload = self._json(200, self._ref_json(branch, head))
        etag = f'"{hashlib.sha256(payload).hexdigest()}"'
        if if_none_match == etag:
            self.not_modified += 1
            return 304, {"ETag": etag}, b""
        return status, {**headers, "ETag": etag}, payload

    def _repository(self) -> tuple[int, dict[str, str], bytes]:
        """GitHub's documented example answer, made this repository's."""
        owner, name = self.full_name.split("/")
        answer = documented_example("/repos/{owner}/{repo}", "get", "200")
        # The example leaves out `language`, which the schema requires, and names a parent,
        # source and template: here a repository of its own, with no language detected.
        for other in ("parent", "source", "template_repository"):
            answer.pop(other, None)
        answer["language"] = None
        answer.update(
            name=name, full_name=self.full_name, private=self.private, default_branch="main",
            visibility="private" if self.private else "public",
            html_url=f"https://github.example/{self.full_name}",
            url=f"{self.api_url}/repos/{self.full_name}",
        )  # fmt: skip
        answer["owner"] = {**answer["owner"], "login": owner}
        return self._json(200, answer)

    def _installation(self) -> tuple[int, dict[str, str], bytes]:
        assert self.app is not None  # the JWT was verified against it
        return self._json(200, self.app.installation(self.api_url, self.full_name.split("/")[0]))

    def _access_token(self, installation_id: int) -> tuple[int, dict[str, str], bytes]:
        assert self.app is not None
        if installation_id != self.app.installation_id:
            raise _HTTPError(404, "Not Found", docs=f"{DOCS}/apps/apps")
        return self._json(201, self.app.issue_token())

    def _html(self, suffix: str) -> str:
        return f"https://github.example/{self.full_name}/{suffix}"

    def _url(self, suffix: str) -> str:
        return f"{self.api_url}/repos/{self.full_name}/{suffix}"

    def _blob(self, sha: str, accept: str) -> tuple[int, dict[str, str], bytes]:
        data = self.repository.blob(sha)
        if data is None:
            raise _HTTPError(404, "Not Found", docs=f"{DOCS}/git/blobs#get-a-blob")
        if "application/vnd.github.raw" in accept:
            return 200, {"Content-Type": "application/vnd.github.raw"}, data
        return self._json(
            200,
            {
                "sha": sha,
                "node_id": f"B_{sha[:12]}",
                "size": len(data),
                "url": self._url(f"git/blobs/{sha}"),
                "content": base64.encodebytes(data).decode(),
                "encoding": "base64",
            },
        )

    def _create_blob(self, request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        content, encoding = request.get("content"), request.get("encoding", "utf-8")
        if not isinstance(content, str) or encoding not in ("utf-8", "base64"):
            raise _HTTPError(422, "Validation Failed", docs=f"{DOCS}/git/blobs#create-a-blob")
        try:
            data = (
                base64.b64decode(content, validate=True)
                if encoding == "base64"
                else (content.encode())
            )
        except ValueError:
            raise _HTTPError(
                422, "Validation Failed", docs=f"{DOCS}/git/blobs#create-a-blob"
            ) from None
        sha = self.repository.write_blob(data)
        return self._json(201, {"url": self._url(f"git/blobs/{sha}"), "sha": sha})

    def _create_tree(self, request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        self.run_before_write()
        entries = request.get("tree")
        if not isinstance(entries, list) or not entries:
            raise _HTTPError(422, "Invalid tree info", docs=f"{DOCS}/git/trees#create-a-tree")
        files = {}
        for entry in entries:
            if "content" in entry:
                files[entry["path"]] = self.repository.write_blob(entry["content"].encode())
            elif self.repository.exists(entry.get("sha", ""), "blob"):
                files[entry["path"]] = entry["sha"]
            else:
                raise _HTTPError(422, "Invalid tree info", docs=f"{DOCS}/git/trees#create-a-tree")
        sha = self.repository.write_tree(files, base_tree=request.get("base_tree"))
        return self._json(
            201,
            {
                "sha": sha,
                "url": self._url(f"git/trees/{sha}"),
                "truncated": False,
                "tree": [
                    {"path": p, "mode": "100644", "type": "blob", "sha": o}
                    for p, o in files.items()
                ],
            },
        )

    def _create_commit(self, request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        self.run_before_write()
        tree, parents = request.get("tree", ""), request.get("parents", [])
        if not self.repository.exists(tree, "tree") or not all(
            self.repository.exists(parent, "commit") for parent in parents
        ):
            raise _HTTPError(
                422, "Tree SHA does not exist", docs=f"{DOCS}/git/commits#create-a-commit"
            )
        sha = self.repository.write_commit(tree, parents, request.get("message", ""))
        person = {
            "name": IDENTITY["GIT_AUTHOR_NAME"],
            "email": IDENTITY["GIT_AUTHOR_EMAIL"],
            "date": NOW,
        }
        return self._json(
            201,
            {
                "sha": sha,
                "node_id": f"C_{sha[:12]}",
                "url": self._url(f"git/commits/{sha}"),
                "html_url": self._html(f"commit/{sha}"),
                "author": person,
                "committer": person,
                "message": request.get("message", ""),
                "tree": {"sha": tree, "url": self._url(f"git/trees/{tree}")},
                "parents": [
                    {
                        "sha": p,
                        "url": self._url(f"git/commits/{p}"),
                        "html_url": self._html(f"commit/{p}"),
                    }
                    for p in parents
                ],
                # Commits made through the API are not signed: GitHub reports them unverified.
                "verification": {
                    "verified": False,
                    "reason": "unsigned",
                    "signature": None,
                    "payload": None,
                    "verified_at": None,
                },
            },
        )

    def _create_ref(self, request: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        self.run_before_write()
        ref, sha = request.get("ref", ""), request.get("sha", "")
        if not ref.startswith("refs/heads/") or not self.repository.exists(sha, "commit"):
            raise _HTTPError(
                422, "Reference update failed", docs=f"{DOCS}/git/refs#create-a-reference"
            )
        branch = ref.removeprefix("refs/heads/")
        with self.repository.lock:
            if not self.repository.move_branch(branch, sha, None):
                raise _HTTPError(
                    422, "Reference already exists", docs=f"{DOCS}/git/refs#create-a-reference"
                )
        headers = {"Location": self._url(f"git/{ref}")}
        return self._json(201, self._ref_json(branch, sha), headers)

    def _ref_json(self, branch: str, sha: str) -> dict[str, Any]:
        return {
            "ref": f"refs/heads/{branch}",
            "node_id": f"REF_{branch}",
            "url": self._url(f"git/refs/heads/{branch}"),
            "object": {"sha": sha, "type": "commit", "url": self._url(f"git/commits/{sha}")},
        }


def _branch_named(body: bytes) -> str | None:
    """The branch a GraphQL call reads (`ref` variable) or writes (`input.branch.branchName`)."""
    try:
        variables = json.loads(body).get("variables") or {}
    except (ValueError, AttributeError):
        return None
    ref = variables.get("ref") or (variables.get("input") or {}).get("branch", {}).get("branchName")
    return str(ref).removeprefix("refs/heads/") if ref else None
