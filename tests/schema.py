"""The JSON Schemas of state/schema, loaded once, to check state files against."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path

from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource

from steadypress.codec import shard_name

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
    for name in (
        "pending",
        "published",
        "dead",
        "reconciled",
        "status",
        "site-index",
        "generated-site",
    )
}


def validate_state_file(path: str, data: bytes) -> None:
    """Raise jsonschema.ValidationError unless `data` is a valid state file at `path` (a shard
    under state/published/ is checked against the published schema)."""
    name = "published" if shard_name(path) else path.removeprefix("state/").removesuffix(".json")
    _validate(name, data)


@functools.lru_cache(maxsize=1024)
def _validate(name: str, data: bytes) -> None:
    """Kept for the files that passed (an exception is not cached): most of a ledger's files
    are the same from one write to the next, and the schema is slow to walk. (The files are
    kept as keys: a thousand of a test's state files are a few megabytes.)"""
    document = json.loads(data)
    items = document.get(name) if name in _ITEMISED and isinstance(document, dict) else None
    if not isinstance(items, dict):
        VALIDATORS[name].validate(document)
        return
    # The file without its items, then each key and item as the schema checks them there.
    VALIDATORS[name].validate({**document, name: {}})
    for key, item in items.items():
        _validate_part(name, "propertyNames", json.dumps(key))
        _validate_part(name, "additionalProperties", json.dumps(item, sort_keys=True))


# The files whose items are checked one by one, each distinct one once: `pending.json` and
# `dead.json` change at nearly every write by an item or two, and walking every item of each
# took a seventh of a chaos story. Their schemas say nothing of an item but by its own
# subschema (`properties/SECTION/propertyNames` and `additionalProperties`), so the check is
# the whole file's.
_ITEMISED = ("pending", "dead")


_PARTS = {
    (name, part): Draft202012Validator(
        {"$ref": f"{json.loads((SCHEMA_DIR / f'{name}.schema.json').read_text())['$id']}"
                 f"#/properties/{name}/{part}"},
        registry=_REGISTRY,
    )
    for name in _ITEMISED
    for part in ("propertyNames", "additionalProperties")
}  # fmt: skip


@functools.lru_cache(maxsize=8192)
def _validate_part(name: str, part: str, value: str) -> None:
    _PARTS[name, part].validate(json.loads(value))


def invalid_state_files(root: Path, branch: str) -> list[str]:
    """Every state file each commit of `branch` wrote (each distinct blob checked once) that is
    not valid against state/schema, as "COMMIT PATH"; and a commit without pending.json or
    dead.json is invalid too."""
    log = subprocess.run(
        ["git", "-C", str(root), "log", "--raw", "--root", "--no-abbrev", "--format=commit %H",
         "--no-renames", branch], capture_output=True, check=True, text=True,
    ).stdout  # fmt: skip
    written: list[tuple[str, str, str]] = []
    commit = ""
    for line in log.splitlines():
        if line.startswith("commit "):
            commit = line.split()[1]
        elif line.startswith(":"):
            info, path = line.split("\t", 1)
            blob, status = info.split()[3], info.split()[4]
            if status != "D":
                written.append((commit, path, blob))
    blobs = list(dict.fromkeys(blob for _, _, blob in written))
    output = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch"],
        input="".join(f"{blob}\n" for blob in blobs).encode(), capture_output=True, check=True,
    ).stdout  # fmt: skip
    contents, offset = {}, 0
    for blob in blobs:
        end = output.index(b"\n", offset)
        size = int(output[offset:end].split()[2])
        contents[blob] = output[end + 1 : end + 1 + size]
        offset = end + 1 + size + 1
    invalid, checked = [], {}
    for commit, path, blob in written:
        if blob not in checked:
            try:
                validate_state_file(path, contents[blob])
                checked[blob] = True
            except (ValidationError, ValueError, KeyError):  # not JSON, the schema's, or ours
                checked[blob] = False
        if not checked[blob]:
            invalid.append(f"{commit[:12]} {path}")
    heads = subprocess.run(["git", "-C", str(root), "rev-list", branch], capture_output=True,
                           check=True, text=True).stdout.split()  # fmt: skip
    for head in heads:
        listing = subprocess.run(
            ["git", "-C", str(root), "ls-tree", "--name-only", head, "state/"],
            capture_output=True, check=True, text=True,
        ).stdout.split()  # fmt: skip
        invalid += [f"{head[:12]} {name} missing" for name in ("state/pending.json",
                    "state/dead.json") if name not in listing]  # fmt: skip
    return invalid
