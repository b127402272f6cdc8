"""Test doubles of the remote APIs steadypress talks to, served on loopback."""
