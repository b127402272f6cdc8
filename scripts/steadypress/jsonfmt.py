"""Deterministic JSON for the state files: the bytes of `json.dumps(indent=2, sort_keys=True)`.

The standard library falls back to its pure-Python encoder whenever `indent` is set, which costs
about 0.85 s for 10^5 published records. State files are objects of flat objects, so this renderer
lets the C string escaper do the work and only joins lines itself; a property test holds it to the
standard library's output for arbitrary JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

__all__ = ["dumps", "dumps_records", "dumps_rendered", "render_value"]

_SCALARS = (str, int, float, bool, type(None))


def dumps(value: Any) -> str:
    """Render `value` exactly as `json.dumps(value, indent=2, sort_keys=True)` does."""
    return _render(value, "")


def dumps_records(
    document: Mapping[str, Any],
    section: str,
    fields: Sequence[str],
    rows: Mapping[str, Sequence[Any]],
) -> str:
    """`dumps` of `document` with `section` set to {key: dict(zip(fields, row))}, for flat rows.

    The large state file (10^5 published records) is written this way: one string template per
    row instead of a dict and a recursive render per record, about four times faster.
    """
    if list(fields) != sorted(fields):
        raise ValueError("fields must be given in sorted order")
    template = (
        "{{\n"
        + ",\n".join(f"      {encode_basestring_ascii(name)}: {{}}" for name in fields)
        + "\n    }}"
    )
    rendered = {key: template.format(*map(_scalar, row)) for key, row in rows.items()}
    return dumps_rendered(document, section, rendered)


def dumps_rendered(document: Mapping[str, Any], section: str, rows: Mapping[str, str]) -> str:
    """`dumps` of `document` with `section` set to {key: value}, each value already rendered by
    `render_value(value, "    ")`: a caller that keeps renderings re-renders only what changed."""
    records = ",\n".join(f"    {encode_basestring_ascii(key)}: {rows[key]}" for key in sorted(rows))
    body = f"{{\n{records}\n  }}" if rows else "{}"
    parts = [
        f"  {encode_basestring_ascii(name)}: "
        + (body if name == section else _render(document[name], "  "))
        for name in sorted({*document, section})
    ]
    return "{\n" + ",\n".join(parts) + "\n}"


def render_value(value: Any, indent: str) -> str:
    """One value as `dumps` renders it at nesting `indent`."""
    return _render(value, indent)


def _render(value: Any, indent: str) -> str:
    if isinstance(value, Mapping):
        return _render_object(value, indent)
    if isinstance(value, Sequence) and not isinstance(value, str):
        if not value:
            return "[]"
        inner = indent + "  "
        items = ",\n".join(inner + _render(item, inner) for item in value)
        return f"[\n{items}\n{indent}]"
    return _scalar(value)


def _render_object(value: Mapping[str, Any], indent: str) -> str:
    if not value:
        return "{}"
    inner = indent + "  "
    keys = sorted(value)
    values = [value[key] for key in keys]
    if all(isinstance(item, _SCALARS) for item in values):
        rendered = [_scalar(item) for item in values]
    else:
        rendered = [_render(item, inner) for item in values]
    body = ",\n".join(
        f"{inner}{encode_basestring_ascii(key)}: {text}"
        for key, text in zip(keys, rendered, strict=True)
    )
    return f"{{\n{body}\n{indent}}}"


def _scalar(value: Any) -> str:
    if type(value) is str:  # the common case first: most values in state files are strings
        return encode_basestring_ascii(value)
    if isinstance(value, str):  # a str subclass
        return encode_basestring_ascii(value)
    # bool, int, float and None: the standard library's spelling (true, 1e+16, NaN refused).
    return _SCALAR_ENCODER.encode(value)


# `json.dumps` with an option builds an encoder a call: one serves every scalar.
_SCALAR_ENCODER = json.JSONEncoder(allow_nan=False)
