"""The GitHub client: PyGithub, configured for a ledger; every request timed out, counted and
classified here.

Every request goes through PyGithub's `Requester` (its authentication, base URL, URL checks and
connection handling), set up so that nothing happens behind the ledger's back:
- `retry=None`: PyGithub's default `GithubRetry` re-sends a POST after a 5xx or a read timeout,
  which would apply a commit or an issue twice; and urllib3 sleeps on the real clock, where every
  wait of steadypress is on the pipeline's `Clock`. Retrying is decided here instead:
  - reads (GET, GraphQL queries) are retried after connection errors and 5xx, with backoff;
  - writes (POST, PATCH, DELETE, GraphQL mutations) are never re-sent blindly: a lost answer
    raises `AmbiguousWrite`, and the caller finds out from the data whether the write happened;
  - a rate-limited request is re-sent, read or write, because GitHub said it did not take it
    ("Rate limits for the REST API", "Exceeding the rate limit"): wait `retry-after` seconds if
    given, else until `x-ratelimit-reset` when `x-ratelimit-remaining` is 0, else at least a
    minute, doubling on repeats; a wait longer than the budget is a `RateLimited` failure of
    this run, not a hang.
- no throttle (`seconds_between_requests`/`_writes` None): PyGithub's sleeps are on the real
  clock too, and only issue writes need spacing (`github/issues.py` paces them a second apart).
- `lazy=True`, for the objects callers build from `github` (issues, labels, workflows): no
  fetch before an action.
- its connection bounded as every exchange is (`exchange.py`): a deadline for the whole answer
  (the `timeout`, which PyGithub gives `requests` as a per-read one) and a size cap. PyGithub
  reads redirects itself (it follows one only on the API's own host).
Each call of `rest` or `graphql` is one HTTP request per attempt (no retries below this
layer), counted in `requests_made`.
"""

from __future__ import annotations

import json as jsonlib
import re
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import requests
from github import Auth, Github, GithubException
from github.Requester import (
    HTTPRequestsConnectionClass,
    HTTPSRequestsConnectionClass,
    RequestsResponse,
)

from steadypress.backoff import backoff_seconds, retry_after_seconds
from steadypress.clock import Clock, SystemClock
from steadypress.errors import (
    AmbiguousWrite,
    AuthFailed,
    GitHubError,
    GitHubUnreachable,
    GraphQLErrors,
    RateLimited,
)
from steadypress.exchange import bounded_adapter, exchange

__all__ = ["Answer", "GitHubClient"]

# Worth retrying a read: the server or the path to it failed, not the request.
RETRYABLE_STATUS = frozenset({500, 502, 503, 504})
_SECONDARY_LIMIT_WAIT = 60.0  # GitHub: "wait for at least one minute before retrying"
_OPERATION = re.compile(r"\b(?:query|mutation)\s+(\w+)")
# Copied for every request: PyGithub writes the Authorization header into the dict it is given.
_HEADERS = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
T = TypeVar("T")


@dataclass(frozen=True)
class Answer:
    """What GitHub answered: status, headers (lower-case names, as PyGithub gives them), body."""

    status_code: int
    headers: Mapping[str, str]
    text: str

    def json(self) -> Any:
        return jsonlib.loads(self.text)

    @property
    def links(self) -> dict[str, dict[str, str]]:
        """The `link` header's pagination links by relation (`next`, `last`, ...)."""
        header = self.headers.get("link", "")
        found = requests.utils.parse_header_links(header) if header else []
        return {link["rel"]: link for link in found if "rel" in link}


@dataclass
class GitHubClient:
    token: str
    api_url: str = "https://api.github.com"
    graphql_url: str = "https://api.github.com/graphql"
    timeout: int = 30  # seconds, to connect and to read (PyGithub takes a whole number)
    read_attempts: int = 4
    wait_budget: float = 120.0
    clock: Clock = field(default_factory=SystemClock)
    auth: Auth.Auth | None = None  # default: the token (a GitHub App's installation, say)
    requests_made: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.github = Github(
            auth=self.auth or (Auth.Token(self.token) if self.token else None),
            base_url=self.api_url.rstrip("/"),
            timeout=self.timeout,
            user_agent="steadypress",
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
            lazy=True,
        )
        self._requester = self.github.requester
        # PyGithub makes its connection from the class its Requester keeps (chosen by the URL's
        # scheme); only injectConnectionClasses, which is global and stops connections being
        # kept alive, changes it otherwise. This client's requester alone gets bounded ones.
        bounded = _BoundedHTTPS if self.api_url.startswith("https:") else _BoundedHTTP
        self._requester._Requester__connectionClass = bounded  # type: ignore[attr-defined]

    def rest(
        self,
        method: str,
        path: str,
        *,
        json: Mapping[str, Any] | None = None,
        endpoint: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        """One REST call through PyGithub's requester; returns the answer for any 2xx or 304,
        raises for anything else. `path` is relative to the API root, or an absolute URL on it
        (a pagination link); `endpoint` names the call in `requests_made` (a template);
        `headers` adds to the request's (`If-None-Match`, for a conditional request)."""
        root = self.api_url.rstrip("/")
        if path.startswith(("http://", "https://")):
            if not path.startswith(f"{root}/"):  # the token goes nowhere but the API it is for
                raise GitHubError(0, f"refusing to follow a link off {root}: {path}")
            path = path.removeprefix(root)
        body = dict(json) if json is not None else None
        return self.call(
            lambda: Answer(
                *self._requester.requestJson(
                    method, path, headers={**_HEADERS, **(headers or {})}, input=body
                )
            ),
            write=method not in ("GET", "HEAD"),
            label=f"{method} {endpoint or path}",
        )

    def graphql(self, document: str, variables: Mapping[str, Any], *, mutation: bool) -> Any:
        """One GraphQL operation; returns `data`, raises GraphQLErrors when `errors` came back.
        Sent as PyGithub's `graphql_query` sends it; not through it, which turns GitHub's
        errors (STALE_DATA: a compare-and-swap that lost) into a generic 400."""
        named = _OPERATION.search(document)
        operation = named.group(1) if named else "anonymous"
        request = {"query": document, "variables": dict(variables)}
        answer = self.call(
            lambda: Answer(*self._requester.requestJson(
                "POST", self.graphql_url, headers=dict(_HEADERS), input=request
            )),
            write=mutation,
            label=f"graphql {operation}",
        )  # fmt: skip
        body = _json(answer)
        if body.get("errors"):
            raise GraphQLErrors(body["errors"])
        return body.get("data")

    def call(self, perform: Callable[[], T], *, write: bool, label: str) -> T:
        """Run one PyGithub call (one request per attempt) under the ledger's rules: a read is
        retried after a lost answer or a 5xx, a write never is (`AmbiguousWrite`), and either
        is sent again after a rate limit's wait. GitHub's refusal raises `GitHubError`."""
        waited = 0.0
        failures = 0
        limited = 0
        while True:
            self.requests_made[label] += 1
            try:
                result: T | Answer = perform()
            except GithubException as error:
                result = Answer(error.status, error.headers or {}, jsonlib.dumps(error.data))
            except (requests.ConnectionError, requests.Timeout) as error:
                if write:
                    raise AmbiguousWrite(f"{label}: no answer ({type(error).__name__})") from None
                failures += 1
                if failures >= self.read_attempts:
                    raise GitHubUnreachable(label, failures, type(error).__name__) from None
                waited += self._pause(
                    backoff_seconds(failures, wait_initial=0.5, wait_max=8), waited
                )
                continue
            if not isinstance(result, Answer):
                return result
            wait = self._rate_limit_wait(result, limited)
            if wait is not None:
                limited += 1
                waited += self._pause(wait, waited)
                continue
            if result.status_code in RETRYABLE_STATUS:
                if write:
                    raise AmbiguousWrite(f"{label}: GitHub answered {result.status_code}")
                failures += 1
                if failures < self.read_attempts:
                    delay = backoff_seconds(failures, wait_initial=0.5, wait_max=8)
                    waited += self._pause(delay, waited)
                    continue
            if result.status_code >= 400:
                raise _error(result, label)
            return cast(T, result)

    def _pause(self, seconds: float, waited: float) -> float:
        if waited + seconds > self.wait_budget:
            raise RateLimited(seconds)
        self.clock.sleep(seconds)
        return seconds

    def _rate_limit_wait(self, answer: Answer, earlier: int) -> float | None:
        """Seconds to wait before repeating a rate-limited request; None if it was not limited."""
        status = answer.status_code
        headers = answer.headers
        graphql_limited = status == 200 and _is_graphql_rate_limited(answer)
        if status not in (403, 429) and not graphql_limited:
            return None
        now = self.clock.now()
        retry_after = retry_after_seconds(headers.get("retry-after"), now=now)
        if retry_after is not None:
            return retry_after
        reset = headers.get("x-ratelimit-reset", "")
        if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
            return max(0.0, float(reset) - now.timestamp()) + 1.0
        if status == 403 and "rate limit" not in answer.text.lower():
            return None  # a plain 403: forbidden, not limited
        return _SECONDARY_LIMIT_WAIT * 2.0**earlier


class _Bounded:
    """PyGithub's requests connection, each answer fetched by `exchange` (mixed into PyGithub's
    own classes, which keep the session, the URL and the request being made)."""

    session: requests.Session
    protocol: str
    host: str
    port: int
    url: str
    verb: str
    headers: dict[str, str]
    input: Any
    timeout: int | None
    verify: Any

    def _bound(self) -> None:
        self.session.mount(f"{self.protocol}://", bounded_adapter())

    def getresponse(self) -> RequestsResponse:
        answer = exchange(
            self.session, self.verb.upper(), f"{self.protocol}://{self.host}:{self.port}{self.url}",
            seconds=float(self.timeout or 30), refuse_redirects=False,
            headers=self.headers, data=self.input, verify=self.verify,
        )  # fmt: skip
        return RequestsResponse(answer)


class _BoundedHTTPS(_Bounded, HTTPSRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bound()


class _BoundedHTTP(_Bounded, HTTPRequestsConnectionClass):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._bound()


def _json(answer: Answer) -> dict[str, Any]:
    try:
        body = answer.json()
    except ValueError:
        raise GitHubError(answer.status_code, f"not JSON: {answer.text[:200]!r}") from None
    if not isinstance(body, dict):
        raise GitHubError(answer.status_code, f"unexpected JSON: {answer.text[:200]!r}")
    return body


def _is_graphql_rate_limited(answer: Answer) -> bool:
    if "json" not in answer.headers.get("content-type", ""):
        return False
    try:
        errors = answer.json().get("errors") or []
    except (ValueError, AttributeError):
        return False
    return any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors)


def _error(answer: Answer, label: str) -> GitHubError:
    try:
        message = str(answer.json().get("message", answer.text[:200]))
    except (ValueError, AttributeError):
        message = answer.text[:200]
    kind = AuthFailed if answer.status_code == 401 else GitHubError
    method, _, path = label.partition(" ")
    return kind(answer.status_code, message, method=method, path=path)
