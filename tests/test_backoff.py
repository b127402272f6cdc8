from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steadypress.backoff import backoff_seconds, reset_seconds, retry_after_seconds


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [(1, 30.0), (2, 60.0), (3, 120.0), (6, 960.0), (7, 1800.0), (50, 1800.0)],
)
def test_doubles_from_the_initial_wait_up_to_the_cap(attempt: int, expected: float) -> None:
    """Without jitter the wait is 30 s, 60 s, 120 s ... and stops at 30 minutes."""
    assert backoff_seconds(attempt, wait_initial=30, wait_max=1800) == expected


def test_a_huge_attempt_number_does_not_overflow() -> None:
    """Attempt 10,000 would wait 2**9999 s; the log-space guard clamps it without overflowing."""
    assert backoff_seconds(10_000, wait_initial=30, wait_max=1800, jitter=1.0) == 1800


@given(
    attempt=st.integers(min_value=1, max_value=100_000),
    initial=st.floats(min_value=0.001, max_value=3600),
    cap=st.floats(min_value=0.001, max_value=86_400),
    jitter=st.floats(min_value=0, max_value=1),
)
def test_backoff_never_exceeds_its_cap(
    attempt: int, initial: float, cap: float, jitter: float
) -> None:
    """Whatever the attempt and the jitter, the wait stays within [0, cap]."""
    wait = backoff_seconds(attempt, wait_initial=initial, wait_max=cap, jitter=jitter)
    assert 0 <= wait <= cap


def test_jitter_spreads_waits_below_the_cap() -> None:
    """Full jitter adds up to the base wait itself: executors that failed together part ways."""
    assert backoff_seconds(2, wait_initial=30, wait_max=1800, jitter=0.5) == 90.0


@pytest.mark.parametrize("attempt", [0, -1])
def test_attempts_count_from_one(attempt: int) -> None:
    """Attempt 0 is a caller's bug, refused rather than silently given a wait."""
    with pytest.raises(ValueError, match="counts from 1"):
        backoff_seconds(attempt, wait_initial=1, wait_max=2)


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("Wed, 21 Oct 2015 07:28:30 GMT", 30.0),  # RFC 9110's HTTP-date
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),  # already past: no wait
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_is_read_as_seconds_or_as_an_http_date(
    header: str | None, seconds: float | None
) -> None:
    """A server may say when to come back either way; an unreadable hint is no hint."""
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert retry_after_seconds(header, now=now) == seconds


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("2015-10-21T07:33:00.000Z", 300.0),  # Mastodon's X-RateLimit-Reset
        ("2015-10-21T07:33:00+00:00", 300.0),
        (str(int(datetime(2015, 10, 21, 7, 29, tzinfo=UTC).timestamp())), 60.0),  # atproto's
        ("2015-10-21T07:00:00Z", 0.0),  # already past: no wait
        ("tomorrow", None),
        (None, None),
    ],
)
def test_a_rate_limit_reset_is_read_as_an_iso_time_or_unix_seconds(
    header: str | None, seconds: float | None
) -> None:
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert reset_seconds(header, now=now) == seconds
