"""One HTTP exchange with a platform, a webhook or GitHub, bounded as a whole: a deadline for
the whole answer, a cap on its size, and no redirect followed (GitHub's client reads its
redirects itself).

`requests` gives neither bound by itself: its `timeout` is per read, so a server that drips one
byte a second keeps a run waiting forever, and it reads a body of any size into memory. And it
follows redirects with every header but `Authorization`: dev.to's `api-key` would go to any
host a 307 names, and a 307 re-sends a body (Bluesky's app password) as it is.

The deadline is kept by a watchdog thread: when it passes, the socket the exchange is using is
shut down, which wakes the read blocked on it. It is measured on the real clock, since the
network it bounds runs on the real clock (an injected test clock does not move a server).
"""

from __future__ import annotations

import socket
import threading
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

__all__ = [
    "MAX_ANSWER_BYTES",
    "AnswerTooLarge",
    "AnswerTooSlow",
    "Redirected",
    "bounded_adapter",
    "bounded_session",
    "describe",
    "exchange",
    "same_origin",
]

# The largest answer read: dev.to's listing of 1,000 posts with their markdown is a few MB.
MAX_ANSWER_BYTES = 64 * 1024 * 1024
_CHUNK = 64 * 1024


class AnswerTooSlow(requests.Timeout):
    """The whole answer did not arrive within the deadline."""


class AnswerTooLarge(requests.ConnectionError):
    """The answer was larger than the cap; the rest was not read (for a caller, an answer not
    had: as a dropped connection is)."""


class Redirected(requests.RequestException):
    """The server answered with a redirect, which is not followed."""

    def __init__(self, status: int, location: str) -> None:
        super().__init__(f"answered {status}, redirecting to {location or 'nowhere'}")
        self.status = status
        self.location = location


class _Deadline:
    """The end of one exchange: when it passes, the socket the exchange is using is shut down,
    whatever state the exchange is in."""

    def __init__(self) -> None:
        self.expired = False
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._done = False

    def watch(self, connection: HTTPConnection) -> None:
        """Put the connection's socket under this deadline. The socket itself is kept: an
        answer that closes its connection leaves `connection.sock` empty while its body is
        still read from that socket."""
        with self._lock:
            if isinstance(connection.sock, socket.socket):  # not TLS inside a proxy's TLS
                self._socket = connection.sock
            if self.expired:
                self._shut()

    def expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            self._shut()

    def finish(self) -> None:
        with self._lock:
            self._done = True

    def _shut(self) -> None:
        """Wake whatever reads or writes the socket. The plain socket's shutdown, not a TLS
        socket's own, which unwraps it under a reader in another thread."""
        if self._socket is not None:
            with suppress(OSError):
                socket.socket.shutdown(self._socket, socket.SHUT_RDWR)


_current = threading.local()  # the deadline of the exchange this thread is making


def _watched(cls: type[HTTPConnection]) -> type[HTTPConnection]:
    class Watched(cls):  # type: ignore[valid-type,misc]
        """A connection that puts itself under the deadline of the exchange using it, at
        each request on it (a kept-alive connection serves several exchanges)."""

        def request(self, *args: Any, **kwargs: Any) -> None:
            deadline: _Deadline | None = getattr(_current, "deadline", None)
            if deadline is not None:
                deadline.watch(self)
            super().request(*args, **kwargs)

        def getresponse(self) -> Any:
            deadline: _Deadline | None = getattr(_current, "deadline", None)
            if deadline is not None:  # a new connection has its socket now the request is sent
                deadline.watch(self)
            return super().getresponse()

    return Watched


class _WatchedPool(HTTPConnectionPool):
    ConnectionCls = _watched(HTTPConnection)


class _WatchedTLSPool(HTTPSConnectionPool):
    ConnectionCls = _watched(HTTPSConnection)  # type: ignore[assignment]


_WATCHED_POOLS = {"http": _WatchedPool, "https": _WatchedTLSPool}


class _WatchedAdapter(HTTPAdapter):
    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = _WATCHED_POOLS

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> Any:
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        if not proxy.lower().startswith("socks"):  # SOCKS makes connections of its own
            manager.pool_classes_by_scheme = _WATCHED_POOLS
        return manager


def bounded_adapter() -> HTTPAdapter:
    """An adapter whose connections `exchange` can bound, for a session made elsewhere."""
    return _WatchedAdapter()


def bounded_session() -> requests.Session:
    """A session whose connections `exchange` can bound."""
    session = requests.Session()
    adapter = bounded_adapter()
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def exchange(
    session: requests.Session,
    method: str,
    url: str,
    *,
    seconds: float,
    follow_redirects: bool = False,
    refuse_redirects: bool = True,
    max_bytes: int = MAX_ANSWER_BYTES,
    **request: Any,
) -> requests.Response:
    """The whole answer to one request within `seconds`, its body read (at most `max_bytes`).
    Raises `AnswerTooSlow`, `AnswerTooLarge`, `Redirected` (a 3xx, unless `follow_redirects`:
    only for requests that carry no credential; or handed back where the caller reads
    redirects itself, `refuse_redirects=False`), or what `requests` raises."""
    deadline = _Deadline()
    timer = threading.Timer(seconds, deadline.expire)
    timer.daemon = True
    _current.deadline = deadline
    timer.start()
    try:
        response = session.request(
            method,
            url,
            stream=True,
            allow_redirects=follow_redirects,
            timeout=seconds,
            **request,
        )
        with response:
            body = _read(response, max_bytes)
    except requests.RequestException:
        if deadline.expired:
            raise AnswerTooSlow(f"no whole answer within {seconds:g} s") from None
        raise
    finally:
        timer.cancel()
        # Gone before the exchange returns: a thread still running would keep the render pool
        # from forking its workers (`renderpool._other_threads`).
        timer.join()
        deadline.finish()
        _current.deadline = None
    if deadline.expired:  # an answer without a length ends at the shutdown as if complete
        raise AnswerTooSlow(f"no whole answer within {seconds:g} s")
    # The body as `requests` keeps one it read itself: `.json()` and `.text` read it there.
    response._content = body
    if response.is_redirect and not follow_redirects and refuse_redirects:
        raise Redirected(response.status_code, response.headers.get("Location", ""))
    return response


def _read(response: requests.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise AnswerTooLarge(f"an answer of {int(declared)} bytes, over {max_bytes}")
    chunks, size = [], 0
    for chunk in response.iter_content(_CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise AnswerTooLarge(f"an answer over {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def same_origin(url: str, root: str) -> bool:
    """Whether `url` goes to the scheme, host and port of `root` (a port that is no number
    goes nowhere)."""
    here, there = urlsplit(url), urlsplit(root)
    try:
        return (here.scheme, here.hostname, here.port) == (there.scheme, there.hostname, there.port)
    except ValueError:
        return False


def describe(error: requests.RequestException) -> str:
    """What went wrong with an exchange, in a few words."""
    if isinstance(error, AnswerTooSlow | AnswerTooLarge | Redirected):
        return str(error)
    return type(error).__name__
