"""The evaluation request: everything one call to :func:`evaluate` judges.

A plain dataclass so the engine stays a library; doors (MCP, REST, CLI, the
proof harness) build it with :meth:`EvaluationRequest.from_trace` or
:meth:`EvaluationRequest.from_payload` (camelCase or snake_case dicts).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evaluators.model import (
    AgentTrace,
    ExpectedToolCall,
    ExpectedTrajectory,
    Frozen,
    Span,
    SpanEvent,
    TokenUsage,
    ToolCall,
    ToolDef,
    slot_init,
)

EVAL_TYPES: tuple[str, ...] = ("completeness", "relevance", "safety", "cost", "custom", "all")
MAX_INLINE_RULES = 10


@dataclass(frozen=True, slots=True)
class EvaluationRequest(Frozen):  # Frozen: pickled to the engine pool's processes
    """Inputs of one evaluation (SPEC §5.2 inputs, minus storage concerns).

    ``tool_calls`` is ``None`` when the caller sent none and ``()`` when the
    caller said "no calls" (SPEC §3.2 Steps). ``judged_at`` is the caller's
    clock; when ``None`` the engine config's clock is used.
    """

    output: str
    input: str | None = None
    expected: str | None = None
    eval_type: str | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    tools: tuple[ToolDef, ...] | None = None
    expected_trajectory: ExpectedTrajectory | None = None
    spans: tuple[Span, ...] = ()
    cost_usd: float | None = None
    token_usage: TokenUsage | None = None
    custom_rules: tuple[Mapping[str, Any], ...] = ()
    custom_config: Mapping[str, Any] = field(default_factory=dict)
    cost_history: tuple[float, ...] | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    judged_at: str | None = None

    def __post_init__(self) -> None:
        if self.eval_type is not None and self.eval_type not in EVAL_TYPES:
            raise ValueError(f"eval_type {self.eval_type!r} is not one of {', '.join(EVAL_TYPES)}")
        if len(self.custom_rules) > MAX_INLINE_RULES:
            raise ValueError(
                f"custom_rules: at most {MAX_INLINE_RULES} inline rules, got "
                f"{len(self.custom_rules)}"
            )

    @classmethod
    def from_trace(
        cls,
        trace: AgentTrace,
        *,
        eval_type: str | None = None,
        expected: str | None = None,
        custom_rules: Sequence[Mapping[str, Any]] = (),
        custom_config: Mapping[str, Any] | None = None,
        cost_history: Sequence[float] | None = None,
        judged_at: str | None = None,
    ) -> EvaluationRequest:
        """Judge a stored trace; the trace's timestamp is not the clock."""
        return cls(
            output=trace.output or "",
            input=trace.input,
            expected=expected,
            eval_type=eval_type,
            tool_calls=trace.tool_calls,
            tools=trace.tools,
            expected_trajectory=trace.expected_trajectory,
            spans=tuple(trace.spans),
            cost_usd=trace.cost_usd,
            token_usage=trace.token_usage,
            custom_rules=tuple(custom_rules),
            custom_config=dict(custom_config or {}),
            cost_history=tuple(cost_history) if cost_history is not None else None,
            metadata=dict(trace.metadata),
            judged_at=judged_at,
        )

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> EvaluationRequest:
        """Build from a JSON-shaped dict (snake_case or the corpus' camelCase).

        ``context`` (an object or a JSON string holding one) is merged in, as
        in the labelled corpus format.
        """
        data: dict[str, Any] = dict(payload)
        ctx = data.pop("context", None)
        if isinstance(ctx, str):
            ctx = json.loads(ctx)
        if isinstance(ctx, Mapping):
            for k, v in ctx.items():
                data.setdefault(k, v)

        def pick(*names: str) -> Any:
            for n in names:
                if n in data and data[n] is not None:
                    return data[n]
            return None

        raw_calls = pick("tool_calls", "toolCalls")
        raw_tools = pick("tools")
        raw_traj = pick("expected_trajectory", "expectedTrajectory")
        raw_usage = pick("token_usage", "tokenUsage")
        history = pick("cost_history", "costHistory")
        cost = pick("cost_usd", "costUsd")
        return cls(
            output=pick("output") or "",
            input=pick("input"),
            expected=pick("expected"),
            eval_type=pick("eval_type", "evalType"),
            tool_calls=tuple(tool_call_from_dict(c) for c in raw_calls)
            if raw_calls is not None
            else None,
            tools=tuple(tool_def_from_dict(t) for t in raw_tools)
            if raw_tools is not None
            else None,
            expected_trajectory=trajectory_from_dict(raw_traj) if raw_traj is not None else None,
            spans=tuple(span_from_dict(s) for s in pick("spans") or ()),
            cost_usd=float(cost)
            if isinstance(cost, int | float) and not isinstance(cost, bool)
            else None,
            token_usage=TokenUsage(
                **{
                    k: raw_usage.get(k)
                    for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                }
            )
            if isinstance(raw_usage, Mapping)
            else None,
            custom_rules=tuple(pick("custom_rules", "customRules") or ()),
            custom_config=dict(pick("custom_config", "customConfig") or {}),
            cost_history=tuple(float(x) for x in history if isinstance(x, int | float))
            if history is not None
            else None,
            metadata=dict(pick("metadata") or {}),
            judged_at=pick("judged_at", "judgedAt"),
        )


slot_init(EvaluationRequest)


def tool_call_from_dict(d: Mapping[str, Any]) -> ToolCall:
    return ToolCall(
        tool_name=str(d.get("tool_name", d.get("toolName", ""))),
        input=d.get("input"),
        output=d.get("output"),
        latency_ms=d.get("latency_ms"),
        error=d.get("error"),
        cost_usd=d.get("cost_usd"),
        started_at=d.get("started_at", d.get("startedAt")),
        call_id=d.get("call_id"),
    )


def tool_def_from_dict(d: Mapping[str, Any]) -> ToolDef:
    return ToolDef(
        name=str(d.get("name", "")),
        description=d.get("description"),
        input_schema=d.get("inputSchema", d.get("input_schema")),
        annotations=d.get("annotations"),
    )


def span_from_dict(d: Mapping[str, Any]) -> Span:
    return Span(
        name=str(d.get("name", "")),
        span_id=d.get("span_id"),
        parent_span_id=d.get("parent_span_id"),
        kind=d.get("kind", "INTERNAL"),
        status_code=d.get("status_code", "UNSET"),
        status_message=d.get("status_message"),
        start_time=d.get("start_time"),
        end_time=d.get("end_time"),
        attributes=dict(d.get("attributes") or {}),
        events=tuple(
            SpanEvent(
                name=str(e.get("name", "")),
                timestamp=e.get("timestamp"),
                attributes=dict(e.get("attributes") or {}),
            )
            for e in d.get("events") or ()
        ),
    )


def _budget(v: Any) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 1:
        return None
    return math.floor(v)


def trajectory_from_dict(d: Mapping[str, Any]) -> ExpectedTrajectory:
    """Lenient read: a malformed budget/tolerance leaves the default standing."""
    calls = tuple(
        ExpectedToolCall(
            tool_name=str(c.get("tool_name", c.get("toolName", ""))), input=c.get("input")
        )
        for c in d.get("tool_calls", d.get("toolCalls")) or ()
        if isinstance(c, Mapping)
    )
    mode = d.get("mode", "ordered_subset")
    if mode not in ("strict", "unordered", "subset", "superset", "ordered_subset"):
        mode = "ordered_subset"
    args = d.get("args", "subset")
    if args not in ("exact", "subset"):
        args = "subset"
    tol = d.get("tolerance")
    tolerance = (
        float(tol)
        if isinstance(tol, int | float)
        and not isinstance(tol, bool)
        and math.isfinite(tol)
        and tol >= 1
        else 1.5
    )
    return ExpectedTrajectory(
        tool_calls=calls,
        mode=mode,
        args=args,
        step_budget=_budget(d.get("step_budget", d.get("stepBudget"))),
        tolerance=tolerance,
    )
