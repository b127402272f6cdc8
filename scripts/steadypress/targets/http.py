"""What every target that talks to a platform over HTTP shares: reading an answer as success,
weather (transient) or a refusal (permanent); pacing under a platform's documented limits; and
checking that an image or a page is served before a platform is told to fetch it.

One reading for every platform, so dev.to, Mastodon, Bluesky and Hashnode fail alike:
- not reached (connection refused or dropped, no whole answer within the platform's timeout,
  an answer too large to read): transient. This is also a write whose
  answer was lost; each target looks for what it wrote before writing again;
- 401/403: the credential is wrong, a dead letter naming the secret to fix;
- 429: transient, after `Retry-After`, or the reset moment the platform names instead;
- a redirect: a dead letter naming where it pointed (no credential follows it, see
  `exchange.py`);
- 5xx: transient; 404 is handed back (a post deleted by hand means different things per call);
- any other 4xx: the platform refuses this article, a dead letter with the platform's words.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import requests

from steadypress.backoff import reset_seconds, retry_after_seconds
from steadypress.clock import Clock
from steadypress.errors import ConfigError, PermanentError, TransientError
from steadypress.exchange import (
    Redirected,
    bounded_session,
    describe,
    exchange,
    same_origin,
)

__all__ = ["Pace", "Platform", "PlatformApi", "whole_number"]


def whole_number(value: str, *, key: str, source: str) -> int:
    """A setting that counts something (requests per window, seconds): a whole number >= 1."""
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(source, f"{key}: a whole number >= 1, got {value!r}")
    return int(value)


class Pace:
    """At most `limit` requests in any `window` seconds, as the server counts them: each request
    is recorded when its answer has arrived (the server saw it no later than that), and a new
    one waits until the oldest of the last `limit` is a full window old, measured on the
    monotonic clock (a UTC time stepped forward meanwhile would send it early: a 429)."""

    def __init__(self, limit: int, window: float, *, clock: Clock) -> None:
        self._limit, self._window, self._clock = limit, window, clock
        self._done: deque[float] = deque()

    def wait(self) -> None:
        while len(self._done) >= self._limit:
            delay = self._done[0] + self._window - self._clock.monotonic()
            if delay > 0:
                self._clock.sleep(delay)
            self._done.popleft()

    def record(self) -> None:
        self._done.append(self._clock.monotonic())


@dataclass(frozen=True)
class Platform:
    name: str  # as messages name it: "dev.to", "Mastodon"
    root: str  # the API's root URL; a request's path is appended to it
    secret_env: str  # the secret a 401/403 blames
    timeout: float  # seconds for a whole answer, not for each read of it


class PlatformApi:
    """Requests to one platform, each answer read the same way (see the module's text)."""

    def __init__(
        self,
        platform: Platform,
        *,
        clock: Clock,
        headers: Mapping[str, str],
        session: requests.Session | None = None,
    ) -> None:
        self.platform = platform
        self._clock = clock
        self._headers = {"User-Agent": "steadypress", **headers}
        self._session = session or bounded_session()
        self._served: set[str] = set()  # URLs seen served in this run

    def send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        data: bytes | None = None,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
        passing: Collection[int] = (404,),
    ) -> requests.Response:
        """The platform's answer, or the error it means; statuses in `passing` are handed back
        for the caller to read."""
        name = self.platform.name
        url = f"{self.platform.root.rstrip('/')}{path}"
        if not same_origin(url, self.platform.root):  # the credential goes to its host only
            raise PermanentError(f"{name}: refusing to send a request off {self.platform.root}")
        try:
            response = exchange(
                self._session,
                method,
                url,
                seconds=self.platform.timeout,
                json=json,
                data=data,
                params=params,
                headers={**self._headers, **(headers or {})},
            )
        except Redirected as redirect:
            raise PermanentError(
                f"{name} {redirect}; steadypress sends a credential to no other address: "
                f"set the API root to the address the platform answers at"
            ) from None
        except requests.RequestException as error:
            raise TransientError(f"{name} not reached: {describe(error)}") from None
        status = response.status_code
        if status < 300 or status in passing:
            return response
        if status in (401, 403):
            raise PermanentError(
                f"{name} refused the credential in {self.platform.secret_env} ({status}): "
                f"check the secret ({error_text(response)})"
            )
        if status == 429:
            now = self._clock.now()
            waits = (
                retry_after_seconds(response.headers.get("Retry-After"), now=now),
                reset_seconds(response.headers.get("X-RateLimit-Reset"), now=now),  # Mastodon
                reset_seconds(response.headers.get("RateLimit-Reset"), now=now),  # atproto
            )
            wait = next((seconds for seconds in waits if seconds is not None), None)
            raise TransientError(f"{name} rate limit", retry_after=wait)
        if status >= 500:
            raise TransientError(f"{name} answered {status}")
        if status == 422:
            raise PermanentError(f"{name} refused the article: {error_text(response)}")
        raise PermanentError(f"{name} answered {status}: {error_text(response)}")

    def json(self, response: requests.Response) -> Any:
        """The answer's JSON document; an answer that is not JSON is weather (a proxy's page)."""
        try:
            return response.json()
        except ValueError:
            raise TransientError(
                f"{self.platform.name} answered {response.status_code} without JSON"
            ) from None

    def require_served(self, what: str, url: str) -> None:
        """Transient unless `url` is served now: a platform keeps what it first fetched (a 404
        too), so it is told of an image or a page only once that is there."""
        if url in self._served:
            return
        try:  # a public page, asked with no credential: a redirect (to a folder's /) is followed
            answer = exchange(
                self._session, "HEAD", url, seconds=self.platform.timeout, follow_redirects=True
            )
        except requests.RequestException as error:
            raise TransientError(f"{what} not reachable yet at {url} ({describe(error)})") from None
        if answer.status_code != 200:
            raise TransientError(f"{what} not served yet at {url} (HTTP {answer.status_code})")
        self._served.add(url)


def error_text(response: requests.Response) -> str:
    """What the platform said was wrong: the `error` or `message` of a JSON answer, else the
    start of its text."""
    try:
        document = response.json()
    except ValueError:
        return response.text[:200]
    if isinstance(document, Mapping):
        parts = [str(document[key]) for key in ("error", "message") if document.get(key)]
        if parts:
            return ": ".join(dict.fromkeys(parts))[:500]
    return response.text[:200]
