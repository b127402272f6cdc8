"""The git runner: a streamed command's output as it comes, its failure named, and git stopped
when the reader has what it wanted."""

import contextlib
import subprocess
from typing import Any

import pytest

from steadypress.errors import GitFailed
from steadypress.gitio import Git
from tests.helpers import Repo, article


def test_a_streamed_command_gives_its_whole_output(repo: Repo) -> None:
    repo.commit(**{f"content/{n}.md": article(f"A{n}") for n in range(3)})
    streamed = b"".join(Git(repo.root).stream("log", "--name-only", "--format=%H"))
    assert streamed.decode().strip() == repo.git("log", "--name-only", "--format=%H")


def test_a_streamed_command_that_fails_says_what_git_said(repo: Repo) -> None:
    repo.commit(**{"content/a.md": article("A")})
    with pytest.raises(GitFailed, match="no-such-revision"):
        b"".join(Git(repo.root).stream("log", "--end-of-options", "no-such-revision"))


def test_closing_a_stream_early_stops_git(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reader that has what it wanted closes the stream: git is stopped and reaped, and no
    error is made of it."""
    repo.commit(**{"content/a.md": article("A")})
    started: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        started.append(process := real_popen(*args, **kwargs))
        return process

    monkeypatch.setattr("steadypress.gitio.subprocess.Popen", popen)
    # `yes` through git: output without end, which only stopping it ends.
    with contextlib.closing(Git(repo.root).stream("-c", "alias.y=!yes", "y")) as output:
        assert next(output).startswith(b"y\n")
    (process,) = started
    assert process.returncode is not None, "stopped and reaped"
