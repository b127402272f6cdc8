"""Durations in configuration: seconds as a number, or "90s", "10m", "1h", "2d"."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from steadypress.errors import ConfigError

__all__ = ["parse_duration"]

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(s|m|h|d)?$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, None: 1}


def parse_duration(value: Any, *, key: str, source: str) -> timedelta:
    """Seconds as a number, or a string such as "90s", "10m", "1h", "2d"."""
    if isinstance(value, bool):
        raise ConfigError(source, f"{key}: expected a duration like 90s, 10m or 1h, got {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value).strip())
        if not match:
            raise ConfigError(
                source, f"{key}: expected a duration like 90s, 10m or 1h, got {value!r}"
            )
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if seconds < 0:
        raise ConfigError(source, f"{key}: a duration cannot be negative, got {value!r}")
    return timedelta(seconds=seconds)
