"""The compiled step-input text forms equal their pure-Python references.

``completeness.norm_input`` and ``context.as_text`` run
``_keykernel.norm_input`` / ``_keykernel.sorted_text`` when the extension is
built; ``_norm_input_reference`` and ``jsontext.sorted_text`` are what they
must equal. Values are drawn as JSON trees over arbitrary Unicode (every str
kind, control characters, astral characters, every kind of whitespace),
floats with their edge cases and ints past 64 bits, and taken from the proof
corpus and the bench cases. Anything but a plain tree must be answered None.
"""

from __future__ import annotations

import math
from enum import IntEnum
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators import context
from evaluators.jsontext import sorted_ascii, sorted_text
from evaluators.rules import completeness
from tests.support.texts import bench_cases, corpus_strings

kernel = pytest.importorskip("evaluators.rules._keykernel")

texts = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from(' \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2003\u2028\u3000"\\\b\x00\x7f😀é'),
    ),
    max_size=40,
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63, max_value=2**200)
    | st.floats(allow_nan=True, allow_infinity=True)
    | texts
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)


def _same(value: Any) -> None:
    got = kernel.norm_input(value)
    assert got is not None
    assert got == completeness._norm_input_reference(value)
    if value is not None and not isinstance(value, str):
        text = kernel.sorted_text(value)
        assert text is not None and text == sorted_text(value)
        assert kernel.sorted_ascii(value) == sorted_ascii(value)
        assert context.as_text(value) == sorted_text(value)[: context.TOOL_TEXT_CAP]


@given(values)
@example({"path": "src/a.ts", "skip": None, "x": [None, {"b": None, "a": "q\n  r"}]})
@example({"a": float("nan"), "b": [float("inf"), -float("inf"), -0.0, 1e300, 5e-324]})
@example({"k": " " * 600 + "x" * 600})
@settings(max_examples=1500, deadline=None)
def test_the_kernel_equals_the_references(value: Any) -> None:
    _same(value)


@given(texts)
@settings(max_examples=800, deadline=None)
def test_a_str_input_equals_the_reference(value: str) -> None:
    assert kernel.norm_input(value) == completeness._norm_input_reference(value)


class _Str(str):
    pass


class _Dict(dict):  # type: ignore[type-arg]
    pass


class _Level(IntEnum):
    HIGH = 3


@pytest.mark.parametrize(
    "value",
    [
        (1, 2),
        {1: "int key"},
        {"a": (None,)},
        {_Str("k"): 1},
        [_Str("v")],
        _Dict(a=1),
        [_Level.HIGH],
        [object()],
        {"a": {1, 2}},
        b"bytes",
    ],
)
def test_anything_but_a_plain_tree_is_left_to_the_reference(value: Any) -> None:
    assert kernel.sorted_text(value) is None and kernel.sorted_ascii(value) is None
    if not isinstance(value, str):
        assert kernel.norm_input(value) is None


def test_deep_and_circular_values_are_left_to_the_reference() -> None:
    deep: Any = "x"
    for _ in range(200):
        deep = [deep]
    assert kernel.norm_input(deep) is None and kernel.sorted_text(deep) is None
    assert completeness.norm_input(deep) == completeness._norm_input_reference(deep)
    loop: list[Any] = []
    loop.append(loop)
    assert kernel.norm_input(loop) is None and kernel.sorted_text(loop) is None
    with pytest.raises(RecursionError):  # the reference's own answer (_drop_none)
        completeness.norm_input(loop)
    assert context.as_text(loop) == str(loop)


def test_an_int_too_long_for_str_is_left_to_the_reference() -> None:
    huge = [10**5000]
    assert kernel.norm_input(huge) is None and kernel.sorted_text(huge) is None


@pytest.mark.parametrize(
    "value", [None, "", "   ", "a\u2003b", "x" * 501, " y " * 300, _Str(" s ")]
)
def test_the_kernel_equals_the_reference_on_edges(value: Any) -> None:
    got = kernel.norm_input(value)
    assert got == completeness._norm_input_reference(value) and type(got) is str


def test_the_kernel_equals_the_references_on_the_corpus_and_bench() -> None:
    for text in corpus_strings():
        _same(text)
        _same({"query": text, "n": len(text), "ok": None})
    for case in bench_cases():
        for call in case.tool_calls or ():
            _same(call.input)
            _same(call.output)


def test_the_modules_use_the_kernel_when_built() -> None:
    assert completeness._keykernel is kernel
    assert context._keykernel is kernel


def test_the_fallbacks_give_the_same_text(monkeypatch: pytest.MonkeyPatch) -> None:
    value = {"path": "src/a.ts", "opts": {"deep": None, "n": 1.5}, "list": [None, "a  b"]}
    with_kernel = (completeness.norm_input(value), context.as_text(value))
    monkeypatch.setattr(completeness, "_keykernel", None)
    monkeypatch.setattr(context, "_keykernel", None)
    assert (completeness.norm_input(value), context.as_text(value)) == with_kernel
    assert with_kernel[0] == '{"list":[null,"a b"],"opts":{"n":1.5},"path":"src/a.ts"}'
    assert math.isfinite(value["opts"]["n"])  # type: ignore[index]


def test_schema_keys_are_the_encoder_text() -> None:
    from evaluators.model import ToolDef

    schema = {"type": "object", "properties": {"q": {"type": "string", "title": "Ω 😀"}}}
    assert kernel.sorted_ascii(schema) == sorted_ascii(schema)
    v = completeness._validator(schema)
    assert completeness._VALIDATORS[sorted_ascii(schema)] is v
    assert ToolDef("t", "d", schema).input_schema is schema
