"""The prebuilt JSON encoders return exactly what ``json.dumps`` returns.

``evaluators.jsontext`` skips ``json.dumps``' per-call encoder set-up; the
claim is byte equality on every value, and the very exception ``json.dumps``
raises where it raises (then the encoder must still work afterwards).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import jsontext

DUMPS = [jsontext.sorted_text, jsontext.sorted_ascii, jsontext.canonical]

keys = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["a", "B", "é", "İ", "\u212a", "ß", "\U0001f600", "\ud800", '"', "\\"]),
)
leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),  # nan and infinities included: allow_nan is on
    st.text(),
    st.sampled_from(["\x00", "\n\t", "\u2028", "\ud83d", "e\u0301", "١٢"]),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(keys, inner, max_size=4),
    ),
    max_leaves=20,
)


def _outcome(f: Any, value: Any) -> tuple[str, Any]:
    try:
        return "ok", f(value)
    except Exception as exc:  # the exception type and text must match too
        return type(exc).__name__, str(exc)


@settings(max_examples=400, deadline=None)
@given(values)
def test_equals_json_dumps(value: Any) -> None:
    for d in DUMPS:
        assert _outcome(d, value) == _outcome(d.reference, value)


class Odd:
    def __str__(self) -> str:
        return "odd\u212a"


@pytest.mark.parametrize(
    "value",
    [
        {"b": 1, "a": [1.5, math.inf, -math.inf]},
        {1: "int key", 2.5: "float key", False: "bool key"},
        {None: "none key"},
        {"x": Odd(), "y": {1, 2} - {1, 2}, "z": (1, "t")},
        {"path": "src/mod0.ts"},
        "plain string \u212a",
        [],
        {},
        10**30,
        float("nan"),
    ],
)
def test_edge_values(value: Any) -> None:
    for d in DUMPS:
        assert d(value) == d.reference(value)


def test_errors_are_json_dumps_errors_and_leave_the_encoder_usable() -> None:
    loop: list[Any] = []
    loop.append(loop)
    mixed = {1: "a", "b": 2}  # unsortable keys
    for d in DUMPS:
        for bad in (loop, mixed, {("t",): 1}):
            assert _outcome(d, bad) == _outcome(d.reference, bad)
            assert _outcome(d, bad)[0] != "ok"
        shared = {"k": [1, 2]}
        assert d([shared, shared]) == d.reference([shared, shared])  # not circular
        assert d({"a": 1}) == d.reference({"a": 1})


def test_without_the_c_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsontext._encoder, "c_make_encoder", None)
    d = jsontext.Dumps(ensure_ascii=False, separators=(",", ":"))
    assert d({"b": [1, None], "a": "é"}) == '{"a":"é","b":[1,null]}'
