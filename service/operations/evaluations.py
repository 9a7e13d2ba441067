"""Evaluation operations shared by REST and MCP: evaluate_output, list, read."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, func, select

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
from receivers.native import (
    ExpectedTrajectoryBody,
    SpanBody,
    TokenUsageBody,
    ToolCallBody,
    ToolDefBody,
    register_model,
)
from service.errors import IrisError, invalid_argument
from service.evaluation import deployed_entries, trace_from_row
from service.operations.arguments import validate_args
from service.operations.traces import check_trace_id, parse_bound
from service.state import ServiceState
from storage import codec
from storage import traces as trace_store
from storage.evaluations import (
    evaluations,
    evaluations_to_api,
    of_trace,
    rule_results,
    store_evaluation,
)

EvalType = Literal["completeness", "relevance", "safety", "cost", "custom", "all"]


class InlineRuleBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    type: str = Field(min_length=1)
    config: dict[str, Any]
    weight: float = Field(default=1.0, gt=0)


@register_model
class EvaluateBody(BaseModel):
    """evaluate_output inputs (SPEC §5.2), closed."""

    model_config = ConfigDict(extra="forbid")

    output: str
    input: str | None = None
    expected: str | None = None
    eval_type: EvalType | None = None
    trace_id: str | None = None
    tool_calls: list[ToolCallBody] | None = None
    cost_usd: float | None = Field(default=None, ge=0)
    token_usage: TokenUsageBody | None = None
    custom_rules: list[InlineRuleBody] | None = Field(default=None, max_length=10)
    tools: list[ToolDefBody] | None = None
    expected_trajectory: ExpectedTrajectoryBody | None = None
    spans: list[SpanBody] | None = None
    run: str | None = None
    case_key: str | None = None
    session_id: str | None = None


def build_request(
    body: EvaluateBody, stored: Any | None, stored_spans: list[Any]
) -> EvaluationRequest:
    """The engine request: the call's fields, else what the linked trace stored."""
    trace = trace_from_row(stored._mapping, stored_spans) if stored is not None else None
    tool_calls = (
        tuple(ToolCall(**c.model_dump()) for c in body.tool_calls)
        if body.tool_calls is not None
        else (trace.tool_calls if trace else None)
    )
    tools = (
        tuple(ToolDef(t.name, t.description, t.inputSchema, t.annotations) for t in body.tools)
        if body.tools is not None
        else (trace.tools if trace else None)
    )
    spans = (
        tuple(
            Span(
                name=s.name,
                span_id=s.span_id,
                parent_span_id=s.parent_span_id,
                kind=s.kind,
                status_code=s.status_code,
                status_message=s.status_message,
                start_time=s.start_time,
                end_time=s.end_time,
                attributes=dict(s.attributes or {}),
                events=tuple(
                    SpanEvent(e.name, e.timestamp, dict(e.attributes or {})) for e in s.events or ()
                ),
            )
            for s in body.spans
        )
        if body.spans is not None
        else (trace.spans if trace else ())
    )
    trajectory = None
    if body.expected_trajectory is not None:
        et = body.expected_trajectory
        trajectory = ExpectedTrajectory(
            tuple(ExpectedToolCall(c.tool_name, c.input) for c in et.tool_calls),
            et.mode,
            et.args,
            et.step_budget,
            et.tolerance,
        )
    elif trace is not None:
        trajectory = trace.expected_trajectory
    usage = (
        TokenUsage(**body.token_usage.model_dump())
        if body.token_usage is not None
        else (trace.token_usage if trace else None)
    )
    return EvaluationRequest(
        output=body.output,
        input=body.input if body.input is not None else (trace.input if trace else None),
        expected=body.expected,
        eval_type=body.eval_type,
        tool_calls=tool_calls,
        tools=tools,
        expected_trajectory=trajectory,
        spans=spans,
        cost_usd=body.cost_usd
        if body.cost_usd is not None
        else (trace.cost_usd if trace else None),
        token_usage=usage,
        custom_rules=tuple(r.model_dump() for r in body.custom_rules or ()),
    )


async def evaluate_output(state: ServiceState, payload: Any) -> dict[str, Any]:
    """Judge one output now, store the evaluation, return it (SPEC §5.2)."""
    body = validate_args(EvaluateBody, payload, what="evaluation request")
    if body.trace_id is not None:
        check_trace_id(body.trace_id)

    def load() -> tuple[Any, list[Any], list[dict[str, Any]]]:
        with state.engine.connect() as conn:
            stored = None
            spans: list[Any] = []
            if body.trace_id is not None:
                stored = trace_store.get_trace(conn, state.tenant, body.trace_id)
                if stored is not None and stored.tool_calls is None and body.tool_calls is None:
                    spans = trace_store.get_spans(conn, state.tenant, body.trace_id)
            return stored, spans, deployed_entries(conn, state.tenant)

    stored, spans, entries = await asyncio.to_thread(load)
    if body.trace_id is not None and stored is None:
        raise IrisError(
            "IRIS_UNKNOWN_TRACE",
            f"Trace {body.trace_id} is not stored; nothing was scored or written.",
            status=404,
            recovery=["Log the trace first (POST /api/v1/traces), or omit trace_id."],
        )
    request = build_request(body, stored, spans)
    result = await state.engine_pool.evaluate(request, entries)

    def save() -> str:
        with state.engine.begin() as conn:
            return store_evaluation(
                conn,
                tenant_id=state.tenant,
                result=result,
                now=codec.utcnow(),
                trace_id=body.trace_id,
                trace_arrival_us=stored.arrival_us if stored is not None else 0,
                trace_revision=stored.revision if stored is not None else None,
                agent_name=stored.agent_name if stored is not None else None,
                output_text=body.output,
                expected_text=body.expected,
                run=body.run or (stored.run if stored is not None else None),
                case_key=body.case_key or (stored.case_key if stored is not None else None),
                session_id=body.session_id or (stored.session_id if stored is not None else None),
            )

    evaluation_id = await asyncio.to_thread(save)
    out: dict[str, Any] = {"id": evaluation_id}
    if body.trace_id is not None:
        out["trace_id"] = body.trace_id
    out.update(result)
    return out


@register_model
class EvaluationsQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agent_name: str | None = None
    state: Literal["pass", "fail", "unknown"] | None = None
    passed: bool | None = None
    rule_failed: str | None = Field(default=None, min_length=1)
    eval_type: EvalType | None = None
    trace_id: str | None = None
    run: str | None = None
    since: str | None = None
    until: str | None = None
    limit: int = Field(default=50, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)


async def list_evaluations(state: ServiceState, params: Mapping[str, Any]) -> dict[str, Any]:
    q = validate_args(EvaluationsQuery, dict(params), what="query parameters")
    since = parse_bound("since", q.since, upper=False) if q.since else None
    until = parse_bound("until", q.until, upper=True) if q.until else None
    if since is not None and until is not None and since > until:
        raise invalid_argument(
            f"since ({q.since}) is later than until ({q.until}); swap them",
            [{"field": "since", "value": q.since}, {"field": "until", "value": q.until}],
        )
    ev = evaluations.c
    conds: list[Any] = [ev.tenant_id == state.tenant]
    for column, value in (
        (ev.agent_name, q.agent_name),
        (ev.state, q.state),
        (ev.passed, q.passed),
        (ev.eval_type, q.eval_type),
        (ev.run, q.run),
    ):
        if value is not None:
            conds.append(column == value)
    if q.trace_id is not None:
        conds.append(of_trace(state.tenant, q.trace_id))
    if since is not None:
        conds.append(ev.created_at >= since)
    if until is not None:
        conds.append(ev.created_at <= until)
    if q.rule_failed is not None:
        rr = rule_results.c
        conds.append(
            ev.id.in_(
                select(rr.evaluation_id).where(
                    and_(
                        rr.tenant_id == state.tenant,
                        rr.rule == q.rule_failed,
                        rr.outcome == "failed",
                    )
                )
            )
        )

    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            total = conn.execute(
                select(func.count()).select_from(evaluations).where(and_(*conds))
            ).scalar_one()
            rows = conn.execute(
                select(evaluations)
                .where(and_(*conds))
                .order_by(ev.created_at.desc(), ev.id)
                .limit(q.limit)
                .offset(q.offset)
            )
            return {
                "results": evaluations_to_api(conn, rows),
                "total": int(total),
                "limit": q.limit,
                "offset": q.offset,
            }

    return await asyncio.to_thread(run)


async def get_evaluation(state: ServiceState, evaluation_id: str) -> dict[str, Any]:
    def run() -> dict[str, Any] | None:
        with state.engine.connect() as conn:
            row = conn.execute(
                select(evaluations).where(
                    and_(evaluations.c.tenant_id == state.tenant, evaluations.c.id == evaluation_id)
                )
            ).first()
            return evaluations_to_api(conn, [row])[0] if row is not None else None

    result = await asyncio.to_thread(run)
    if result is None:
        raise IrisError(
            "IRIS_NOT_FOUND",
            f"Evaluation {evaluation_id!r} is not stored.",
            status=404,
            recovery=["List evaluations with GET /api/v1/evaluations."],
        )
    return result
