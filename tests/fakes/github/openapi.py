"""GitHub's REST description (@octokit/openapi, fetched by `make schemas`) as validators of the
fake's answers: an answer must match the response schema GitHub documents for its operation and
status. OpenAPI 3.0's `nullable: true` becomes a JSON Schema "or null"."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from jsonschema import Draft4Validator

SPEC_PATH = Path(__file__).resolve().parents[3] / ".cache" / "octokit" / "api.github.com.json"


@functools.cache
def _spec() -> dict[str, Any]:
    if not SPEC_PATH.exists():
        raise RuntimeError(
            f"GitHub's OpenAPI description is not at {SPEC_PATH}: run `make schemas` "
            "(it fetches @octokit/openapi from the npm registry)"
        )
    converted: dict[str, Any] = _nullable_as_json_schema(
        json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    )
    return converted


def _nullable_as_json_schema(node: Any) -> Any:
    if isinstance(node, list):
        return [_nullable_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _nullable_as_json_schema(value) for key, value in node.items()}
    if converted.pop("nullable", False) is True:
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


def _response_schema(path: str, method: str, status: int) -> dict[str, Any]:
    spec = _spec()
    response = spec["paths"][path][method.lower()]["responses"][str(status)]
    if "$ref" in response:  # a shared response, e.g. #/components/responses/not_found
        response = spec["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    schema: dict[str, Any] = response["content"]["application/json"]["schema"]
    return schema


def response_validator(path: str, method: str, status: int) -> Draft4Validator:
    """The validator of GitHub's documented JSON answer to `method path` with `status`."""
    schema = _response_schema(path, method, status)
    return Draft4Validator({**schema, "components": _spec()["components"]})


def required_fields(path: str, method: str, status: int) -> set[str]:
    """The fields GitHub documents as always present in that answer."""
    schema = _response_schema(path, method, status)
    if "$ref" in schema:
        schema = _spec()["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return set(schema.get("required", []))


def documented_example(path: str, method: str, status: str) -> dict[str, Any]:
    """A copy of the example answer GitHub's description gives for an operation and status."""
    content = _spec()["paths"][path][method]["responses"][status]["content"]["application/json"]
    example = next(iter(content["examples"].values()))
    found = example.get("value", example)
    if "$ref" in found:  # examples are kept in components/examples
        found = _spec()["components"]["examples"][found["$ref"].rsplit("/", 1)[-1]]["value"]
    copied: dict[str, Any] = json.loads(json.dumps(found))
    return copied
