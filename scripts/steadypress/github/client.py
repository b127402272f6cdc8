"""A small GitHub API client: REST and GraphQL, every request timed out, counted and classified.

Written on `requests` rather than PyGithub, for two reasons that are about correctness and cost:
PyGithub re-sends a POST after a 5xx (a commit whose answer was lost would be applied twice),
and its object model fetches objects before acting on them. Here:
- reads (GET, GraphQL queries) are retried after connection errors and 5xx, with backoff;
- writes (POST, PATCH, GraphQL mutations) are never re-sent blindly: a lost answer raises
  `AmbiguousWrite`, and the caller finds out from the data whether the write happened;
- rate limits are honoured as GitHub documents them ("Rate limits for the REST API", section
  "Exceeding the rate limit"): wait `retry-after` seconds if given, else until
  `x-ratelimit-reset` when `x-ratelimit-remaining` is 0, else at least a minute, doubling on
  repeats; a wait longer than the budget is a `RateLimited` failure of this run, not a hang.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import requests

from steadypress.backoff import backoff_seconds, retry_after_seconds
from steadypress.clock import Clock, SystemClock
from steadypress.errors import AmbiguousWrite, AuthFailed, GitHubError, GraphQLErrors, RateLimited

__all__ = ["GitHubClient"]

# Worth retrying a read: the server or the path to it failed, not the request.
RETRYABLE_STATUS = frozenset({500, 502, 503, 504})
_SECONDARY_LIMIT_WAIT = 60.0  # GitHub: "wait for at least one minute before retrying"
_OPERATION = re.compile(r"\b(?:query|mutation)\s+(\w+)")


@dataclass
class GitHubClient:
    token: str
    api_url: str = "https://api.github.com"
    graphql_url: str = "https://api.github.com/graphql"
    timeout: tuple[float, float] = (5.0, 30.0)
    read_attempts: int = 4
    wait_budget: float = 120.0
    clock: Clock = field(default_factory=SystemClock)
    session: requests.Session = field(default_factory=requests.Session)
    requests_made: Counter[str] = field(default_factory=Counter)

    def rest(
        self,
        method: str,
        path: str,
        *,
        json: Mapping[str, Any] | None = None,
        accept: str = "application/vnd.github+json",
        endpoint: str | None = None,
    ) -> requests.Response:
        """One REST call; returns the response for any 2xx, raises for anything else.

        `path` is relative to the API root, or an absolute URL on it (a pagination link);
        `endpoint` names the call in `requests_made` (a template, not the concrete path)."""
        root = self.api_url.rstrip("/")
        if path.startswith(("http://", "https://")):
            if not path.startswith(f"{root}/"):  # the token goes nowhere but the API it is for
                raise GitHubError(0, f"refusing to follow a link off {root}: {path}")
            url = path
        else:
            url = f"{root}{path}"
        response = self._send(
            method, url, json=json, accept=accept,
            idempotent=method in ("GET", "HEAD"), label=f"{method} {endpoint or path}",
        )  # fmt: skip
        if response.status_code >= 400:
            raise _error(response, method, path)
        return response

    def graphql(self, document: str, variables: Mapping[str, Any], *, mutation: bool) -> Any:
        """One GraphQL operation; returns `data`, raises GraphQLErrors when `errors` came back."""
        named = _OPERATION.search(document)
        operation = named.group(1) if named else "anonymous"
        response = self._send(
            "POST", self.graphql_url, json={"query": document, "variables": dict(variables)},
            accept="application/json", idempotent=not mutation, label=f"graphql {operation}",
        )  # fmt: skip
        if response.status_code >= 400:
            raise _error(response, "POST", "/graphql")
        body = _json(response)
        if body.get("errors"):
            raise GraphQLErrors(body["errors"])
        return body.get("data")

    def _send(
        self,
        method: str,
        url: str,
        *,
        json: Mapping[str, Any] | None,
        accept: str,
        idempotent: bool,
        label: str,
    ) -> requests.Response:
        headers = {
            "Accept": accept,
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "steadypress",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        waited = 0.0
        failures = 0
        limited = 0
        while True:
            self.requests_made[label] += 1
            try:
                response = self.session.request(
                    method, url, json=json, headers=headers, timeout=self.timeout
                )
            except (requests.ConnectionError, requests.Timeout) as error:
                if not idempotent:
                    raise AmbiguousWrite(f"{label}: no answer ({type(error).__name__})") from None
                failures += 1
                if failures >= self.read_attempts:
                    raise
                waited += self._pause(
                    backoff_seconds(failures, wait_initial=0.5, wait_max=8), waited
                )
                continue
            wait = self._rate_limit_wait(response, limited)
            if wait is not None:
                limited += 1
                waited += self._pause(wait, waited)
                continue
            if response.status_code in RETRYABLE_STATUS:
                if not idempotent:
                    raise AmbiguousWrite(f"{label}: GitHub answered {response.status_code}")
                failures += 1
                if failures < self.read_attempts:
                    delay = backoff_seconds(failures, wait_initial=0.5, wait_max=8)
                    waited += self._pause(delay, waited)
                    continue
            return response

    def _pause(self, seconds: float, waited: float) -> float:
        if waited + seconds > self.wait_budget:
            raise RateLimited(seconds)
        self.clock.sleep(seconds)
        return seconds

    def _rate_limit_wait(self, response: requests.Response, earlier: int) -> float | None:
        """Seconds to wait before repeating a rate-limited request; None if it was not limited."""
        status = response.status_code
        headers = response.headers
        graphql_limited = status == 200 and _is_graphql_rate_limited(response)
        if status not in (403, 429) and not graphql_limited:
            return None
        now = self.clock.now()
        retry_after = retry_after_seconds(headers.get("retry-after"), now=now)
        if retry_after is not None:
            return retry_after
        reset = headers.get("x-ratelimit-reset", "")
        if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
            return max(0.0, float(reset) - now.timestamp()) + 1.0
        if status == 403 and not _mentions_rate_limit(response):
            return None  # a plain 403: forbidden, not limited
        return _SECONDARY_LIMIT_WAIT * 2.0**earlier


def _json(response: requests.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        raise GitHubError(response.status_code, f"not JSON: {response.text[:200]!r}") from None
    if not isinstance(body, dict):
        raise GitHubError(response.status_code, f"unexpected JSON: {response.text[:200]!r}")
    return body


def _mentions_rate_limit(response: requests.Response) -> bool:
    return "rate limit" in response.text.lower()


def _is_graphql_rate_limited(response: requests.Response) -> bool:
    if "json" not in response.headers.get("content-type", ""):
        return False
    try:
        errors = response.json().get("errors") or []
    except (ValueError, AttributeError):
        return False
    return any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in errors)


def _error(response: requests.Response, method: str, path: str) -> GitHubError:
    try:
        message = str(response.json().get("message", response.text[:200]))
    except (ValueError, AttributeError):
        message = response.text[:200]
    kind = AuthFailed if response.status_code == 401 else GitHubError
    return kind(response.status_code, message, method=method, path=path)
