"""JSON bodies: orjson where it is exact, the standard library elsewhere, same values."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from receivers.jsonload import loads, may_hold_wide_integer
from receivers.otlp.decode import load_json_body
from receivers.otlp.errors import OtlpDecodeError

json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False),
        st.text(max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["utf-8", "utf-16"]), st.booleans())
def test_json_bodies_load_as_the_standard_library_loads_them(
    value: Any, encoding: str, ascii_only: bool
) -> None:
    """orjson first, the standard library for what it refuses: same values either way."""
    body = json.dumps(value, ensure_ascii=ascii_only).encode(encoding)
    assert loads(body) == json.loads(body)


@given(st.sampled_from(['{"a": NaN}', '{"a": "\\ud800"}', "[1e400]", '{"a": 1, "a": 2}']))
def test_json_edge_cases_load_as_before(text: str) -> None:
    got, want = loads(text.encode()), json.loads(text)
    assert repr(got) == repr(want)


@given(
    st.integers(min_value=-(2**80), max_value=2**80),
    st.sampled_from(['{"v": %s}', "[1,%s]", '{"s": "%s"}', '{"s": "-%s"}', "[ %s ]"]),
)
def test_wide_integer_literals_are_spotted_and_strings_are_not(n: int, shape: str) -> None:
    body = (shape % n).encode()
    literal = '"%s"' not in shape and '"-%s"' not in shape
    wide = len(str(abs(n))) >= 19
    if literal and wide:
        assert may_hold_wide_integer(body)
    if not literal and not str(n).startswith("-"):
        assert not may_hold_wide_integer(body)
    assert loads(body) == json.loads(body)


def test_the_otlp_loader_words_errors_with_their_position() -> None:
    try:
        load_json_body(b'{"resourceSpans": [}')
    except OtlpDecodeError as exc:
        assert "invalid JSON" in str(exc) and exc.offset == 19
    else:
        raise AssertionError("accepted invalid JSON")
