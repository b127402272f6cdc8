"""docs/configuration.md names every key steadypress.yml may hold, as the code reads them: a
key added to the code and not to the reference fails here, so the reference cannot go stale."""

from __future__ import annotations

import dataclasses
import re
from importlib import import_module
from pathlib import Path

import pytest

from steadypress.config import TIMING_KEYS, TOP_LEVEL_KEYS
from steadypress.targets.registry import KINDS

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"


def settings_keys(kind: str) -> set[str]:
    """The keys a target kind accepts: the fields of its settings' dataclass."""
    module = import_module(KINDS[kind].module)
    classes = [
        value
        for name, value in vars(module).items()
        if name.endswith("Settings") and dataclasses.is_dataclass(value)
    ]
    assert len(classes) == 1, f"{kind}: settings dataclass not found in {module.__name__}"
    return {field.name for field in dataclasses.fields(classes[0])}


def named_in_reference() -> set[str]:
    text = REFERENCE.read_text(encoding="utf-8")
    backticked = re.findall(r"`([a-z_]+)(?:`|: )", text)  # `key` or `key: value`
    in_yaml = re.findall(r"(?:^\s*#?\s*|[{,]\s*)([a-z_]+):", text, re.MULTILINE)  # key: or {key:
    return {*backticked, *in_yaml}


def test_every_top_level_and_timing_key_is_in_the_reference() -> None:
    missing = sorted((TOP_LEVEL_KEYS | TIMING_KEYS | {"kind", "unpublish"}) - named_in_reference())
    assert not missing, f"docs/configuration.md does not name: {missing}"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_key_of_each_target_kind_is_in_the_reference(kind: str) -> None:
    missing = sorted(settings_keys(kind) - named_in_reference())
    assert not missing, f"docs/configuration.md does not name the {kind} keys {missing}"


def test_every_target_kind_is_in_the_reference() -> None:
    text = REFERENCE.read_text(encoding="utf-8")
    assert all(f"`{kind}`" in text for kind in KINDS), sorted(KINDS)
