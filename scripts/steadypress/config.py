"""`steadypress.yml`: read, validated key by key, with the embedded defaults filled in.

An unknown key or a bad value is refused with the key named (exit code 2): a typo in a timing
must not silently become the default.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path, PurePosixPath
from typing import Any

from steadypress.durations import parse_duration
from steadypress.errors import ConfigError, GitFailed
from steadypress.gitio import SYMLINK_MODE, Git
from steadypress.ledger import RetryPolicy
from steadypress.options import reject_unknown_keys, text_option
from steadypress.pageplaces import DEFAULT_PAGES
from steadypress.targets.registry import TargetSpec, check_target_options

__all__ = [
    "CONFIG_FILE",
    "TIMING_KEYS",
    "TOP_LEVEL_KEYS",
    "Config",
    "Timings",
    "committed_config",
    "load_config",
    "parse_config",
]

_TARGET_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class Timings:
    """How long a lease lasts, the grace before an unleased item is stale, and the retries'
    backoff (`timings:` in steadypress.yml)."""

    lease: timedelta = timedelta(minutes=10)
    grace: timedelta = timedelta(minutes=5)
    backoff_initial: timedelta = timedelta(seconds=30)
    backoff_max: timedelta = timedelta(minutes=30)


def _default_targets() -> dict[str, TargetSpec]:
    return {"site": TargetSpec(name="site", kind="site", options={})}


@dataclass(frozen=True)
class Config:
    """steadypress.yml as read and checked (the embedded defaults where it is silent), with
    `source` naming where it came from in messages."""

    source: str = "embedded defaults"
    content_dir: str = "content"
    content_branch: str | None = None  # None: the repository's default branch
    state_branch: str = "steadypress-state"
    dead_letter_dir: str = ".steadypress/dead-letters"
    max_attempts: int = 5
    timings: Timings = field(default_factory=Timings)
    targets: Mapping[str, TargetSpec] = field(default_factory=_default_targets)
    # The files and folders of the content folder that hold pages beside the articles (an
    # "About"), as Pelican's `content/pages/` does: on the site alone, in no listing or feed.
    pages: tuple[str, ...] = DEFAULT_PAGES

    @property
    def retry_policy(self) -> RetryPolicy:
        return RetryPolicy(
            max_attempts=self.max_attempts,
            backoff_initial=self.timings.backoff_initial.total_seconds(),
            backoff_max=self.timings.backoff_max.total_seconds(),
        )


def _mapping(value: Any, *, key: str, source: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(source, f"{key}: expected a mapping, got {type(value).__name__}")
    return value


def _targets(raw: Any, source: str) -> dict[str, TargetSpec]:
    targets = {}
    for name, spec in _mapping(raw, key="targets", source=source).items():
        if not isinstance(name, str) or not _TARGET_NAME.match(name):
            raise ConfigError(
                source, f"targets: name {name!r} must be lowercase letters, digits, - or _"
            )
        options = dict(_mapping(spec, key=f"targets.{name}", source=source))
        kind = options.pop("kind", None)
        if not isinstance(kind, str):
            raise ConfigError(source, f"targets.{name}.kind: required (for example: site)")
        unpublish = options.pop("unpublish", True)
        if not isinstance(unpublish, bool):
            raise ConfigError(
                source, f"targets.{name}.unpublish: expected true or false, got {unpublish!r}"
            )
        target = TargetSpec(name=name, kind=kind, options=options, unpublish=unpublish)
        check_target_options(target, source=source)
        targets[name] = target
    if not targets:
        raise ConfigError(source, "targets: at least one target is needed")
    return targets


# The keys of steadypress.yml, and of its `timings:` (docs/configuration.md names each).
TOP_LEVEL_KEYS = frozenset({
    "content_dir", "content_branch", "state_branch", "dead_letter_dir", "max_attempts",
    "timings", "targets", "pages",
})  # fmt: skip
TIMING_KEYS = frozenset({"lease", "grace", "backoff_initial", "backoff_max"})


def parse_config(raw: Any, *, source: str) -> Config:
    if raw is None:
        raw = {}
    raw = _mapping(raw, key="the configuration", source=source)
    defaults = Config()
    reject_unknown_keys(raw, TOP_LEVEL_KEYS, prefix="", source=source)
    timings_raw = _mapping(raw.get("timings", {}), key="timings", source=source)
    reject_unknown_keys(timings_raw, TIMING_KEYS, prefix="timings.", source=source)
    durations = {
        name: parse_duration(timings_raw[name], key=f"timings.{name}", source=source)
        for name in TIMING_KEYS & timings_raw.keys()
    }
    timings = Timings(**durations)
    if timings.lease <= timedelta(0):
        raise ConfigError(source, "timings.lease: must be longer than zero")
    if timings.backoff_max < timings.backoff_initial:
        raise ConfigError(source, "timings.backoff_max: must not be shorter than backoff_initial")
    max_attempts = raw.get("max_attempts", defaults.max_attempts)
    if type(max_attempts) is not int or max_attempts < 1:
        raise ConfigError(
            source, f"max_attempts: expected a whole number >= 1, got {max_attempts!r}"
        )
    content_dir = text_option(
        raw, "content_dir", defaults.content_dir, prefix="", source=source
    ).strip("/")
    if ".." in Path(content_dir).parts or Path(content_dir).is_absolute():
        raise ConfigError(
            source, f"content_dir: must be a folder inside the repository, got {content_dir!r}"
        )
    content_branch = raw.get("content_branch")
    if content_branch is not None and (
        not isinstance(content_branch, str) or not content_branch or content_branch.startswith("-")
    ):
        raise ConfigError(source, f"content_branch: expected a branch name, got {content_branch!r}")
    return Config(
        pages=_pages(raw.get("pages", list(defaults.pages)), source),
        source=source,
        content_dir=content_dir,
        content_branch=content_branch,
        state_branch=text_option(
            raw, "state_branch", defaults.state_branch, prefix="", source=source
        ),
        dead_letter_dir=text_option(
            raw, "dead_letter_dir", defaults.dead_letter_dir, prefix="", source=source
        ),
        max_attempts=max_attempts,
        timings=timings,
        targets=_targets(raw["targets"], source) if "targets" in raw else _default_targets(),
    )


def _pages(value: Any, source: str) -> tuple[str, ...]:
    """Paths inside the content folder (`about.md`, `pages/`), each a file or a folder."""
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(
            source, f"pages: a list of files and folders (pages/, about.md), got {value!r}"
        )
    found = []
    for item in value:
        path = item.strip().strip("/")
        if not path or ".." in PurePosixPath(path).parts or item.strip().startswith("/"):
            raise ConfigError(source, f"pages: {item!r} is not a path inside the content folder")
        found.append(path)
    return tuple(found)


CONFIG_FILE = "steadypress.yml"


def load_config(path: Path) -> Config:
    """An explicit configuration file (`--config`): it must exist."""
    if not path.is_file():
        raise ConfigError(str(path), "no such configuration file")
    return _parse_text(path.read_bytes(), source=str(path))


def committed_config(git: Git, revision: str = "HEAD") -> Config:
    """`steadypress.yml` as committed at `revision`, like the articles: what runs is what is
    committed. None committed means the embedded defaults; a symlink is refused, unread."""
    try:
        found = git.read_file(revision, CONFIG_FILE)
    except GitFailed:  # no commit yet: nothing is configured
        return Config()
    if found is None:
        return Config()
    mode, _oid, data = found
    if mode == SYMLINK_MODE:
        raise ConfigError(CONFIG_FILE, "is a symlink; the configuration is read from the file only")
    return _parse_text(data, source=CONFIG_FILE)


def _parse_text(data: bytes, *, source: str) -> Config:
    # Imported when there is a file to parse: PyYAML compiles its scanner's patterns as it is
    # imported, some 10 ms that `status` on the embedded default need not spend.
    import yaml  # noqa: PLC0415

    try:
        raw = yaml.safe_load(data.decode("utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigError(source, f"not valid YAML: {error}") from None
    return parse_config(raw, source=source)
