import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steadypress import jsonfmt

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=40,
)


@given(json_values)
def test_output_is_the_standard_librarys_indented_sorted_json(value: object) -> None:
    """The fast renderer writes exactly the bytes of json.dumps(indent=2, sort_keys=True)."""
    assert jsonfmt.dumps(value) == json.dumps(value, indent=2, sort_keys=True)


def test_flat_records_with_awkward_strings_match() -> None:
    """Quotes, newlines, non-ASCII and '-->' in values survive exactly as json.dumps writes them."""
    value = {"b": {"z": 'he said "hi"\n', "a": "café -->", "n": None, "t": True, "i": 3}, "a": []}
    assert jsonfmt.dumps(value) == json.dumps(value, indent=2, sort_keys=True)


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_a_number_json_cannot_spell_is_refused_not_written(number: float) -> None:
    """NaN and infinities are not JSON: a state file holding one would not read back."""
    with pytest.raises(ValueError, match="JSON compliant"):
        jsonfmt.dumps({"attempts": number})


scalars = st.none() | st.booleans() | st.integers() | st.text()


@given(
    rows=st.dictionaries(st.text(), st.tuples(scalars, scalars, scalars)),
    extra=st.dictionaries(st.text(), json_values, max_size=3),
)
def test_flat_records_render_as_the_standard_library_does(
    rows: dict[str, tuple[object, object, object]], extra: dict[str, object]
) -> None:
    """dumps_records, the fast path for published.json, writes json.dumps's exact bytes."""
    fields = ("a", "m", "z")
    document = {k: v for k, v in extra.items() if k != "section"}
    expected = {
        **document,
        "section": {key: dict(zip(fields, row, strict=True)) for key, row in rows.items()},
    }
    assert jsonfmt.dumps_records(document, "section", fields, rows) == json.dumps(
        expected, indent=2, sort_keys=True
    )
