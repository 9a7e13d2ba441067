"""Requests and their frozen parts survive pickling (the engine pool sends
requests to its processes pickled), compiled or not (evaluators.model.Frozen)."""

from __future__ import annotations

import pickle

from evaluators.model import (
    ExpectedToolCall,
    ExpectedTrajectory,
    Span,
    SpanEvent,
    TokenUsage,
    ToolCall,
    ToolDef,
)
from evaluators.request import EvaluationRequest


def test_a_full_request_round_trips() -> None:
    req = EvaluationRequest(
        output="done",
        input="do it",
        tool_calls=(ToolCall("search", {"q": "x"}, "ok", latency_ms=3.5),),
        tools=(ToolDef("search", input_schema={"type": "object"}),),
        expected_trajectory=ExpectedTrajectory(tool_calls=(ExpectedToolCall("search"),)),
        spans=(Span("s", "a" * 16, events=(SpanEvent("e", attributes={"k": 1}),)),),
        cost_usd=0.25,
        token_usage=TokenUsage(10, 5, 15),
        metadata={"m": [1, 2]},
    )
    back = pickle.loads(pickle.dumps(req))
    assert back == req and back is not req
    assert type(back.tool_calls[0]) is ToolCall  # type: ignore[index]
