"""The JSON column encoder reads back exactly as the standard library's would."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from storage.jsontext import dumps, dumps_utf8

_reference = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)  # beyond 64 bits: the fallback
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text() | st.integers(-5, 5), inner, max_size=5)
    ),
    max_leaves=30,
)


@given(values)
@settings(max_examples=300, deadline=None)
def test_reads_back_like_the_standard_encoder(value: Any) -> None:
    assert json.loads(dumps(value)) == json.loads(_reference(value))


def test_datetimes_keep_their_text_form() -> None:
    when = datetime(2026, 11, 30, 5, 0, 1, 250000)
    assert dumps({"at": when}) == _reference({"at": when}) == '{"at":"2026-11-30 05:00:01.250000"}'


def test_text_is_compact_and_not_ascii_escaped() -> None:
    assert dumps({"a": [1, 2.5, "é ✓"], "b": None}) == '{"a":[1,2.5,"é ✓"],"b":null}'


def _one_pass(value: Any) -> str | None:
    """The encoding before the string-keys fast path: orjson with non-string keys allowed."""
    options = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS
    try:
        return orjson.dumps(value, default=str, option=options | orjson.OPT_NON_STR_KEYS).decode()
    except (orjson.JSONEncodeError, TypeError):
        return None


@given(values)
@settings(max_examples=300, deadline=None)
def test_text_is_what_the_one_pass_encoding_wrote(value: Any) -> None:
    expected = _one_pass(value)
    assert dumps(value) == (expected if expected is not None else _reference(value))


class _Key(str):
    pass


def test_non_string_keys_are_encoded_as_before() -> None:
    value = {1: "a", "b": {2.5: True, _Key("k"): None}}
    assert dumps(value) == '{"1":"a","b":{"2.5":true,"k":null}}'


def test_an_empty_list_is_the_text_orjson_writes() -> None:
    assert dumps([]) == _one_pass([]) == "[]"
    assert dumps([[]]) == _one_pass([[]])


@given(values)
@settings(max_examples=300, deadline=None)
def test_utf8_form_is_the_text_encoded(value: Any) -> None:
    try:
        text = dumps(value).encode()
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 form either way
        return
    assert dumps_utf8(value) == text
