"""Trace operations shared by REST and MCP: log, query, read, delete.

Each function validates its input, talks to storage and returns the plain
dict both doors send back, or raises :class:`IrisError`. Neither door
re-implements any of this, so they cannot drift.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from datetime import datetime, time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from evaluators.model import AgentTrace
from evaluators.request import EvaluationRequest
from receivers.native import (
    NativeValidationError,
    parse_trace_body,
    register_model,
    to_agent_trace,
)
from service.errors import IrisError, invalid_argument
from service.evaluation import deployed_entries
from service.operations.arguments import validate_args
from service.state import ServiceState
from storage import assembly, codec
from storage import traces as trace_store
from storage.evaluations import evaluations_for_trace
from storage.ingest import NativeTraceWrite

TRACE_ID_RE = re.compile(r"[0-9a-f]{32}")
_TRACEPARENT_RE = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")


def trace_context(headers: Mapping[str, str]) -> dict[str, Any] | None:
    """SEP-414 / W3C trace context from headers; a malformed traceparent is
    ignored, never refused (SPEC §5.1)."""
    context: dict[str, Any] = {}
    parent = headers.get("traceparent")
    if parent:
        match = _TRACEPARENT_RE.fullmatch(parent.strip().lower())
        if (
            match
            and match.group(1) != "ff"
            and match.group(2) != "0" * 32
            and match.group(3) != "0" * 16
        ):
            context.update(
                traceparent=parent.strip(),
                trace_id=match.group(2),
                parent_span_id=match.group(3),
                sampled=bool(int(match.group(4), 16) & 1),
            )
    for key in ("tracestate", "baggage"):
        if headers.get(key):
            context[key] = headers[key]
    if headers.get("mcp-session-id"):
        context["mcp_session_id"] = headers["mcp-session-id"]
    return context or None


async def log_trace(
    state: ServiceState,
    body: Any,
    *,
    source: str,
    headers: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Validate and store one native trace; answer ``{trace_id, status}``."""
    try:
        parsed = parse_trace_body(body)
    except NativeValidationError as exc:
        raise IrisError(
            "IRIS_INVALID_ARGUMENT",
            "Invalid trace payload: "
            + "; ".join(f"{d['field']}: {d['message']}" for d in exc.details),
            status=400,
            recovery=["Fix the fields named in details and send the trace again."],
            details=exc.details,
        ) from None
    now = codec.utcnow()
    trace = to_agent_trace(parsed, now=now)
    context = trace_context(headers or {})
    if context is not None:
        trace.metadata = {**trace.metadata, "trace_context": context}
    trace_id = codec.new_trace_id()
    row = codec.trace_row(trace, trace_id=trace_id, tenant_id=state.tenant, source=source, now=now)
    spans = codec.native_spans(trace.spans)
    evaluation = None
    if parsed.evaluate:
        # Judged before anything is stored: a failure here stores nothing.
        evaluation = await evaluate_trace(state, trace, parsed.eval_type)
    job = NativeTraceWrite(
        row=row,
        span_rows=spans,
        index=state.settings.search_index == "on",
        enqueue=evaluation is None and state.settings.evaluate_on_ingest,
        evaluation=evaluation,
    )
    job.nbytes = len(str(body)) if not isinstance(body, bytes | str) else len(body)
    _, evaluation_id = await state.writer.submit(job)
    answer: dict[str, Any] = {"trace_id": trace_id, "status": "stored"}
    if evaluation is not None:
        answer["evaluation"] = {"id": evaluation_id, "trace_id": trace_id, **evaluation}
    return answer


async def evaluate_trace(
    state: ServiceState, trace: AgentTrace, eval_type: str | None
) -> dict[str, Any]:
    """Run the engine on a trace in the pool, with the tenant's deployed rules."""

    def entries() -> list[dict[str, Any]]:
        with state.engine.connect() as conn:
            return deployed_entries(conn, state.tenant)

    request = EvaluationRequest.from_trace(trace, eval_type=eval_type)
    return await state.engine_pool.evaluate(request, await asyncio.to_thread(entries))


@register_model
class TracesQueryParams(BaseModel):
    """get_traces inputs (SPEC §5.3) as they arrive from REST or MCP."""

    model_config = ConfigDict(extra="forbid")

    agent_name: str | None = Field(default=None, min_length=1)
    framework: str | None = Field(default=None, min_length=1)
    since: str | None = None
    until: str | None = None
    min_score: float | None = Field(default=None, ge=0, le=1)
    max_score: float | None = Field(default=None, ge=0, le=1)
    limit: int = Field(default=50, ge=1, le=1000)
    offset: int = Field(default=0, ge=0)
    sort_by: Literal["timestamp", "latency_ms", "cost_usd"] | None = None
    sort_order: Literal["asc", "desc"] = "desc"
    include_summary: bool = False
    q: str | None = Field(default=None, min_length=1, max_length=1000)
    run: str | None = None
    session: str | None = None
    case_key: str | None = None


_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_bound(name: str, value: str, *, upper: bool) -> datetime:
    """An ISO 8601 timestamp or a calendar date, as naive UTC.

    A bare date as ``since`` means the start of that day; as ``until`` the end
    of that day, so ``until=2026-11-30`` includes the whole of the 30th.
    Anything else is refused, never read as "no bound".
    """
    text = value.strip()
    if _DATE_RE.fullmatch(text):
        try:
            day = datetime.fromisoformat(text)
        except ValueError:
            raise _bad_bound(name, value) from None
        return datetime.combine(day.date(), time.max) if upper else day
    if "T" not in text and " " not in text:
        raise _bad_bound(name, value)
    try:
        return codec.iso_to_datetime(text)
    except ValueError:
        raise _bad_bound(name, value) from None


def _bad_bound(name: str, value: str) -> IrisError:
    return invalid_argument(
        f"{name} must be an ISO 8601 timestamp or a calendar date, got {value!r}",
        [
            {
                "field": name,
                "value": value,
                "message": "expected e.g. 2026-11-30 or 2026-11-30T12:00:00Z",
            }
        ],
    )


def validate_query(
    state: ServiceState, params: Mapping[str, Any]
) -> tuple[trace_store.TraceQuery, bool]:
    p = validate_args(TracesQueryParams, dict(params), what="query parameters")
    since = parse_bound("since", p.since, upper=False) if p.since else None
    until = parse_bound("until", p.until, upper=True) if p.until else None
    if since is not None and until is not None and since > until:
        raise invalid_argument(
            f"since ({p.since}) is later than until ({p.until}); swap them",
            [{"field": "since", "value": p.since}, {"field": "until", "value": p.until}],
        )
    if p.min_score is not None and p.max_score is not None and p.min_score > p.max_score:
        raise invalid_argument(
            f"min_score ({p.min_score}) is greater than max_score ({p.max_score}); swap them",
            [
                {"field": "min_score", "value": p.min_score},
                {"field": "max_score", "value": p.max_score},
            ],
        )
    query = trace_store.TraceQuery(
        tenant_id=state.tenant,
        agent_name=p.agent_name,
        framework=p.framework,
        since=since,
        until=until,
        min_score=p.min_score,
        max_score=p.max_score,
        limit=p.limit,
        offset=p.offset,
        sort_by=p.sort_by,
        sort_order=p.sort_order,
        q=p.q,
        run=p.run,
        session=p.session,
        case_key=p.case_key,
    )
    return query, p.include_summary


async def get_traces(state: ServiceState, params: Mapping[str, Any]) -> dict[str, Any]:
    query, include_summary = validate_query(state, params)

    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            scan = state.settings.search_index == "off"
            page = trace_store.list_traces(
                conn, query, scan_budget_ms=state.settings.search_budget_ms if scan else None
            )
            items = []
            for row in page.rows:
                item = codec.trace_to_api(row)
                if query.q:
                    item["highlights"] = page.highlights.get(row.trace_id, [])
                items.append(item)
            result: dict[str, Any] = {
                "traces": items,
                "total": page.total,
                "limit": query.limit,
                "offset": query.offset,
            }
            if page.search is not None:
                result["search"] = page.search
            if include_summary:
                result["summary"] = trace_store.summary(
                    conn, state.tenant, hours=1, now=codec.utcnow()
                )
            return result

    return await asyncio.to_thread(run)


def check_trace_id(trace_id: str) -> None:
    if not TRACE_ID_RE.fullmatch(trace_id):
        raise invalid_argument(
            f"trace_id must be 32 lowercase hex characters, got {trace_id!r}",
            [{"field": "trace_id", "value": trace_id, "message": "expected 32 lowercase hex"}],
        )


async def get_trace(state: ServiceState, trace_id: str) -> dict[str, Any]:
    check_trace_id(trace_id)

    def run() -> dict[str, Any] | None:
        with state.engine.connect() as conn:
            row = trace_store.get_trace(conn, state.tenant, trace_id)
            if row is None:
                return None
            spans = trace_store.get_spans(conn, state.tenant, trace_id)
            evals = evaluations_for_trace(conn, state.tenant, trace_id)
            return {
                "trace": codec.trace_to_api(row),
                "spans": [codec.span_to_api(s) for s in spans],
                "evals": evals,
            }

    result = await asyncio.to_thread(run)
    if result is None:
        raise IrisError(
            "IRIS_UNKNOWN_TRACE",
            f"Trace {trace_id} is not stored (never logged, deleted, or another tenant's).",
            status=404,
            recovery=["List stored traces with GET /api/v1/traces to find the id."],
        )
    return result


async def delete_trace(
    state: ServiceState, trace_id: str, *, actor: str | None = None
) -> dict[str, Any]:
    check_trace_id(trace_id)

    def run() -> bool:
        with state.engine.begin() as conn:
            return trace_store.delete_trace(
                conn, state.tenant, trace_id, now=codec.utcnow(), actor=actor
            )

    deleted = await asyncio.to_thread(run)
    return {"deleted": deleted, "trace_id": trace_id}


__all__ = [
    "delete_trace",
    "get_trace",
    "get_traces",
    "log_trace",
    "trace_context",
]


async def finalize_trace(state: ServiceState, trace_id: str) -> dict[str, Any]:
    """Ask the assembler to treat a trace as complete on its next sweep."""
    check_trace_id(trace_id)

    def run() -> bool:
        with state.engine.begin() as conn:
            return assembly.request_finalize(conn, state.tenant, trace_id)

    if not await asyncio.to_thread(run):
        raise IrisError(
            "IRIS_UNKNOWN_TRACE",
            f"Trace {trace_id} is not stored.",
            status=404,
            recovery=["Send its spans first; finalize applies to stored traces."],
        )
    return {"trace_id": trace_id, "finalize": "requested"}
