"""The step views are the frozen dataclass's values, however they are built.

``context._make_step`` fills a ``Step``'s ``__dict__`` directly (and the
text forms that need no serialising); a step built so must equal, hash and
read exactly like ``Step(...)`` with its ``as_text`` views computed lazily.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import context
from evaluators.config import EngineConfig
from evaluators.context import TOOL_TEXT_CAP, EvalContext, Step, as_text
from evaluators.model import Span, ToolCall
from evaluators.request import EvaluationRequest

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


class _Str(str):
    pass


@given(json_values, json_values, st.none() | st.text(max_size=10))
@settings(max_examples=300, deadline=None)
def test_a_made_step_is_the_dataclass_step(inp: Any, out: Any, err: str | None) -> None:
    made = context._make_step(3, "read", inp, out, err, "t0", 0.5)
    plain = Step(3, "read", inp, out, err, "t0", 0.5)
    assert made == plain and repr(made) == repr(plain)
    if not isinstance(inp, list | dict) and not isinstance(out, list | dict):
        assert hash(made) == hash(plain)
    assert dataclasses.astuple(made) == dataclasses.astuple(plain)
    assert made.output_text == plain.output_text == as_text(out)
    assert made.input_text == plain.input_text == as_text(inp)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "x"  # type: ignore[misc]


@pytest.mark.parametrize("value", [None, "", "x" * (TOOL_TEXT_CAP + 5), _Str("sub"), {"a": 1}, [1]])
def test_the_text_forms_equal_as_text(value: Any) -> None:
    made = context._make_step(0, "t", value, value, None, None, None)
    assert made.output_text == as_text(value) and type(made.output_text) is str
    assert made.input_text == as_text(value)


def test_the_step_list_from_calls_and_spans() -> None:
    calls = (ToolCall("a", {"p": 1}, "out", error="boom", started_at="s", cost_usd=0.1),)
    ctx = EvalContext(EvaluationRequest(output="x", tool_calls=calls), EngineConfig())
    assert ctx.steps == (Step(0, "a", {"p": 1}, "out", "boom", "s", 0.1),)
    assert ctx.steps is ctx.steps
    span = Span(
        name="tool",
        span_id="s",
        kind="TOOL",
        attributes={"gen_ai.tool.name": "grep", "input.value": '{"q": 1}', "output.value": "ok"},
        start_time="2026",
    )
    ctx = EvalContext(EvaluationRequest(output="x", spans=(span,)), EngineConfig())
    assert ctx.steps == (Step(0, "grep", {"q": 1}, "ok", None, "2026", None),)
