"""A loopback fake of the Forem (dev.to) API v1 subset steadypress uses."""

from tests.fakes.devto.server import FakeForem

__all__ = ["FakeForem"]
