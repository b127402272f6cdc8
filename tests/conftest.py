from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.fakes.devto import FakeForem
from tests.helpers import Repo

# `HYPOTHESIS_PROFILE=thorough pytest` searches far longer than the default run CI does.
settings.register_profile("thorough", max_examples=3000, stateful_step_count=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "blog")


@pytest.fixture
def forem(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeForem]:
    """The Forem fake with a 2-second rate-limit window, its API key in DEVTO_API_KEY."""
    with FakeForem(window=2.0) as fake:
        monkeypatch.setenv("DEVTO_API_KEY", fake.api_key)
        yield fake
