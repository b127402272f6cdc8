"""UTC timestamps as the state files spell them: ISO-8601 with a `Z`, lossless."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["format_time", "parse_time", "utc_now"]


def utc_now() -> datetime:
    """The shell's one clock; the core never calls it."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError(f"naive datetime {moment!r}: steadypress times are UTC")
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    return moment.isoformat().replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """Parse an ISO-8601 time with an explicit offset; naive times are refused, not guessed."""
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no UTC offset")
    return moment.astimezone(UTC)
