from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.fakes.bluesky import FakeBluesky
from tests.fakes.devto import FakeForem
from tests.fakes.github import FakeGitHub
from tests.fakes.hashnode import FakeHashnode
from tests.fakes.loopback import serving_folder
from tests.fakes.mastodon import FakeMastodon
from tests.helpers import Repo, github_environment

# `HYPOTHESIS_PROFILE=thorough pytest` searches far longer than the default run CI does.
settings.register_profile("thorough", max_examples=3000, stateful_step_count=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The template's test first: it runs the whole suite again in a copy, for minutes, and
    started first it overlaps the rest of the suite on the other worker instead of running on
    alone after it."""
    items.sort(key=lambda item: item.path.name != "test_template.py")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "blog")


@pytest.fixture
def forem(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeForem]:
    """The Forem fake with a 2-second rate-limit window, its API key in DEVTO_API_KEY."""
    with FakeForem(window=2.0) as fake:
        monkeypatch.setenv("DEVTO_API_KEY", fake.api_key)
        yield fake


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    """The GitHub fake, with the environment a workflow run gives steadypress pointed at it
    (a test module that needs the bare fake defines its own `github`)."""
    with FakeGitHub() as fake:
        for name, value in github_environment(fake).items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
        yield fake


@pytest.fixture
def mastodon(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMastodon]:
    """The Mastodon fake, its access token in MASTODON_TOKEN."""
    with FakeMastodon() as fake:
        monkeypatch.setenv("MASTODON_TOKEN", fake.token)
        yield fake


@pytest.fixture
def bluesky(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeBluesky]:
    """The Bluesky fake, the account's app password in BLUESKY_APP_PASSWORD."""
    with FakeBluesky() as fake:
        monkeypatch.setenv("BLUESKY_APP_PASSWORD", fake.password)
        yield fake


@pytest.fixture
def hashnode(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeHashnode]:
    """The Hashnode fake, its personal access token in HASHNODE_TOKEN."""
    with FakeHashnode() as fake:
        monkeypatch.setenv("HASHNODE_TOKEN", fake.token)
        yield fake


@pytest.fixture
def served(repo: Repo) -> Iterator[str]:
    """The local site folder served over HTTP, as GitHub Pages serves the branch."""
    (repo.root / "_site").mkdir(exist_ok=True)
    with serving_folder(repo.root / "_site") as url:
        yield url
