"""``EvalContext.shared``: a value several rules read is computed once per evaluation."""

from __future__ import annotations

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest


def test_shared_computes_once_per_context_and_keeps_falsy_values() -> None:
    calls: list[str] = []

    def compute() -> None:
        calls.append("x")

    ctx = EvalContext(EvaluationRequest(output="hello"), EngineConfig())
    assert ctx.shared("k", compute) is None
    assert ctx.shared("k", compute) is None
    assert calls == ["x"]
    other = EvalContext(EvaluationRequest(output="hello"), EngineConfig())
    other.shared("k", compute)
    assert calls == ["x", "x"]
