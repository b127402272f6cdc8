"""Dead-letter channels: where what keeps failing is handed to a human."""

from steadypress.alerts.base import AlertChannel, find_marker, marker_for
from steadypress.alerts.localfiles import LocalDeadLetters

__all__ = ["AlertChannel", "LocalDeadLetters", "find_marker", "marker_for"]
