"""How long to wait before the next attempt: one pure, clamped exponential with jitter, and
the server's own `Retry-After` when it gave one."""

from __future__ import annotations

import math
from datetime import UTC, datetime

__all__ = ["backoff_seconds", "reset_seconds", "retry_after_seconds"]


def backoff_seconds(
    attempt: int, *, wait_initial: float, wait_max: float, jitter: float = 0.0
) -> float:
    """Seconds to wait after failed attempt number `attempt` (1-based).

    `wait_initial * 2 ** (attempt - 1)`, plus up to `jitter` of itself so executors that failed
    together do not retry together, never more than `wait_max`. The exponent is computed in log
    space first so attempt 10_000 cannot overflow a float.
    """
    if attempt < 1:
        raise ValueError(f"attempt counts from 1, got {attempt}")
    if not 0.0 <= jitter <= 1.0:
        raise ValueError(f"jitter is a fraction in [0, 1], got {jitter}")
    if wait_initial <= 0 or wait_max <= 0:
        return 0.0
    exponent = attempt - 1
    if exponent * math.log(2) + math.log(wait_initial) >= math.log(wait_max):
        base = wait_max
    else:
        base = wait_initial * 2**exponent
    return min(wait_max, base * (1.0 + jitter))


def retry_after_seconds(value: str | None, *, now: datetime) -> float | None:
    """A server's `Retry-After` in seconds from `now`: RFC 9110 allows delay-seconds or an
    HTTP-date. None when absent or unreadable (the caller's own backoff then decides)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    # Imported here: email's package is some 4 ms of every command's start, and only an
    # HTTP-date in an answer needs it.
    from email.utils import parsedate_to_datetime  # noqa: PLC0415

    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # RFC 9110: an HTTP-date is always GMT
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - now).total_seconds())


def reset_seconds(value: str | None, *, now: datetime) -> float | None:
    """Seconds from `now` until a rate-limit window resets, from a header that names the moment
    rather than the delay: an ISO-8601 time (Mastodon's `X-RateLimit-Reset`) or Unix seconds
    (the AT Protocol's `ratelimit-reset`). None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        if text.isdigit():
            moment = datetime.fromtimestamp(int(text), tz=UTC)
        else:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - now).total_seconds())
