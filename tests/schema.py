"""The JSON Schemas of state/schema, loaded once, to check state files against."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "state" / "schema"


def _registry() -> Registry:
    resources = []
    for path in SCHEMA_DIR.glob("*.schema.json"):
        schema = json.loads(path.read_text())
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


_REGISTRY = _registry()
VALIDATORS = {
    name: Draft202012Validator(
        json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text()), registry=_REGISTRY
    )
    for name in ("pending", "published", "dead", "status")
}


def validate_state_file(name: str, data: bytes) -> None:
    """Raise jsonschema.ValidationError unless `data` is a valid state/NAME.json."""
    VALIDATORS[name].validate(json.loads(data))
