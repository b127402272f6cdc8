"""A loopback fake of the Hashnode GraphQL API subset steadypress uses."""

from tests.fakes.hashnode.server import FakeHashnode

__all__ = ["FakeHashnode"]
