"""A loopback fake of the GitHub REST and GraphQL subset steadypress uses."""

from tests.fakes.github.server import FakeGitHub, Fault

__all__ = ["FakeGitHub", "Fault"]
