"""What every generator shares: the protocol a generator meets, what a build makes (`Made`: its
pages, and exactly what made them), how a failure names the project's files, and the
environment a generator runs in. Hugo (`hugo.py`) and Jekyll (`jekyll.py`) meet it."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from steadypress.errors import TransientError

__all__ = [
    "BUILD_TIMEOUT",
    "BuildFailed",
    "Generator",
    "Made",
    "Page",
    "error_lines",
    "failed",
    "generator_environment",
    "rfc3339",
    "run_generator",
]

# A generator that has not finished in this long is stuck (Hugo builds 10,000 pages in seconds).
BUILD_TIMEOUT = 600.0
# What the generator's process may read of steadypress's environment. The platforms' secrets
# are not in it: a theme's template or plugin is code, and it has no need of them.
_KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SOURCE_DATE_EPOCH")
_KEPT_PREFIXES = ("HUGO_", "GEM_", "BUNDLE_", "JEKYLL_", "RUBY", "GO")
# An absolute path in a message, up to a quote, a blank or a `:line:column` after it.
_PATH = re.compile(r"(/[^\s\"':]+)")


def generator_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a generator runs in: the process's, less every secret."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if name in _KEPT_VARIABLES or name.startswith(_KEPT_PREFIXES)
    }
    return {**kept, **(extra or {})}


@dataclass(frozen=True)
class Page:
    """What the generator makes of one source file."""

    source: str  # the file, from the project folder (content/post/hello.md)
    url: str  # its address, absolute
    output: str  # the file that holds it in the output (post/hello/index.html)
    left_out: str | None  # why the build leaves it out (a draft, a future date, expired)


@dataclass(frozen=True)
class Made:
    """What a build made: each source file's page, by its path from the project folder, and
    exactly what made them (the generator's version, and its plugins' and theme's where they
    are not the project's own): another maker may make other bytes of the same project."""

    maker: str
    pages: Mapping[str, Page]


class BuildFailed(Exception):
    """The generator stopped with an error; `files` are the project's files its message names
    (first named first), from the project folder."""

    def __init__(self, message: str, files: tuple[str, ...]) -> None:
        super().__init__(message)
        self.message = message
        self.files = files


class Generator(Protocol):
    @property
    def name(self) -> str: ...

    def missing(self) -> str | None:
        """Why it cannot run on this machine (not installed), or None."""
        ...

    def build(self, project: Path, output: Path, clock: datetime) -> Made:
        """The site of `project` made in `output` (empty) as at `clock` (what is due, what a
        template's "now" says: the same maker makes the same bytes of the same project at the
        same clock), or BuildFailed."""
        ...


def run_generator(
    name: str, command: list[str], extra: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            command,
            capture_output=True,
            text=True,
            errors="replace",
            env=generator_environment(extra),
            timeout=BUILD_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise TransientError(f"{command[0]} is gone from this machine") from None
    except subprocess.TimeoutExpired:
        raise TransientError(
            f"{name} did not finish within {BUILD_TIMEOUT:.0f} s; it is tried again later"
        ) from None


def error_lines(text: str) -> str:
    """A generator's error lines (its last lines where none says it is one), one line."""
    lines = [_PLAIN.sub("", line).strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("from /")]
    errors = [line for line in lines if re.match(r"^(ERROR|Error|[\w ]*Exception)\b", line)]
    return " | ".join(errors or lines[-3:])[:2000]


# Terminal colours, which Jekyll writes even into a pipe.
_PLAIN = re.compile(r"\x1b\[[0-9;]*m")


def failed(name: str, output: str, project: Path) -> BuildFailed:
    """The failure `output` describes, its files named as the project names them, not where
    this build ran."""
    message = error_lines(output) or "no message"
    root = os.fspath(project.resolve()) + "/"
    named = []
    for found in _PATH.finditer(message):
        path = os.path.normpath(found.group(1))
        if path.startswith(root):
            named.append(path[len(root) :])
    return BuildFailed(f"{name} failed: {message.replace(root, '')}", tuple(dict.fromkeys(named)))


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
