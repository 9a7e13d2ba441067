"""Conversions between the engine's trace model, table rows and API dicts."""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from evaluators.model import AgentTrace, Span, ToolCall
from storage.arrival import arrival_key

_EPOCH = datetime(1970, 1, 1)
# "00" to "99", for ``iso``.
_TWO_DIGITS: Final[tuple[str, ...]] = tuple(f"{n:02d}" for n in range(100))


def utcnow() -> datetime:
    """Naive UTC now: every stored datetime is naive UTC.

    The epoch plus the clock's microseconds (floored, as ``datetime.now``
    floors them): ``datetime.now(UTC).replace(tzinfo=None)`` looked up two
    methods by name, passed one a keyword and built an aware datetime on the
    way. A worker asks the time about twice a trace."""
    return _EPOCH + timedelta(0, 0, time.time_ns() // 1000)


def new_trace_id() -> str:
    return os.urandom(16).hex()


def new_span_id() -> str:
    return os.urandom(8).hex()


def iso(value: datetime | None) -> str | None:
    """Render a stored naive-UTC datetime as ISO 8601 with ``Z``: exactly
    ``value.isoformat(timespec="microseconds") + "Z"``, assembled from two-digit
    strings (``isoformat`` formats through a general C formatter, and its
    keyword is parsed on every call; a worker renders one a trace)."""
    if value is None:
        return None
    year = value.year
    if year < 1000 or value.tzinfo is not None:  # padded years, offsets: as isoformat writes them
        return value.isoformat(timespec="microseconds") + "Z"
    two = _TWO_DIGITS
    return (
        f"{year}-{two[value.month]}-{two[value.day]}T{two[value.hour]}:{two[value.minute]}:"
        f"{two[value.second]}.{str(1_000_000 + value.microsecond)[1:]}Z"
    )


def iso_to_datetime(text: str) -> datetime:
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def iso_to_ns(text: str | None) -> int:
    if not text:
        return 0
    parsed = iso_to_datetime(text)
    return int(parsed.replace(tzinfo=UTC).timestamp()) * 1_000_000_000 + parsed.microsecond * 1000


def ns_to_datetime(ns: int) -> datetime:
    """Naive UTC, rounded through a float (how span times read back; kept so)."""
    return datetime.fromtimestamp(ns / 1e9, UTC).replace(tzinfo=None)


def ns_to_datetime_floor(ns: int) -> datetime:
    """Naive UTC, the nanoseconds cut to whole microseconds: the value a
    derivation stores as a trace's ``timestamp`` (its root's start through
    ``receivers.timeutil.iso_from_ns``, which truncates). Ingest files a new
    trace's timestamp with this, so the derivation finds it unchanged and its
    UPDATE leaves the two timestamp indexes alone; rounded through a float
    (``ns_to_datetime``) it was 1 µs off in nearly half of all traces."""
    return _EPOCH + timedelta(microseconds=ns // 1000)


def ns_to_iso(ns: int | None) -> str | None:
    if not ns:
        return None
    return iso(ns_to_datetime(ns))


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


_TOOL_CALL_FIELDS = tuple(f.name for f in dataclasses.fields(ToolCall))


def tool_call_to_json(call: ToolCall) -> dict[str, Any]:
    """The call's set fields. Not ``dataclasses.asdict``: its deep copy of the
    input and output was a fifth of deriving a trace, and these values are
    JSON data already, only ever serialised."""
    return {name: value for name in _TOOL_CALL_FIELDS if (value := getattr(call, name)) is not None}


def agent_fields(trace: AgentTrace, *, now: datetime) -> dict[str, Any]:
    """The content columns of a ``traces`` row, from the engine's trace model."""
    usage = trace.token_usage
    return {
        "agent_name": trace.agent_name,
        "framework": trace.framework,
        "input": trace.input,
        "output": trace.output,
        "tool_calls": None
        if trace.tool_calls is None
        else [tool_call_to_json(c) for c in trace.tool_calls],
        "latency_ms": trace.latency_ms,
        "prompt_tokens": usage.prompt_tokens if usage else None,
        "completion_tokens": usage.completion_tokens if usage else None,
        "total_tokens": usage.total_tokens if usage else None,
        "cost_usd": trace.cost_usd,
        "cost_source": trace.cost_source,
        "metadata": trace.metadata or {},
        "tools": None
        if trace.tools is None
        else [
            _drop_none(
                {
                    "name": t.name,
                    "description": t.description,
                    "inputSchema": t.input_schema,
                    "annotations": t.annotations,
                }
            )
            for t in trace.tools
        ],
        "expected_trajectory": None
        if trace.expected_trajectory is None
        else dataclasses.asdict(trace.expected_trajectory),
        "run": trace.run,
        "case_key": trace.case_key,
        "session_id": trace.session_id,
        "timestamp": iso_to_datetime(trace.timestamp) if trace.timestamp else now,
    }


def trace_row(
    trace: AgentTrace, *, trace_id: str, tenant_id: str, source: str, now: datetime
) -> dict[str, Any]:
    """The ``traces`` row for a complete trace (native doors): ready at once."""
    return {
        "tenant_id": tenant_id,
        "trace_id": trace_id,
        **agent_fields(trace, now=now),
        "created_at": now,
        "arrival_us": arrival_key(now),
        "source": source,
        "status": "ready",
        "revision": 1,
        "root_span_id": None,
        "has_root": True,
        "error": any(s.status_code == "ERROR" for s in trace.spans),
        "span_count": len(trace.spans),
        "last_span_at": now,
        "ready_at": now,
        "finalize_requested": False,
        "derived": True,
        "lacked": None,
        "otel_service_name": None,
    }


def native_spans(spans: tuple[Span, ...]) -> list[dict[str, Any]]:
    """A native trace's spans as stored (``storage.spans.JSON_SPAN_KEYS``)."""
    rows = []
    seen: set[str] = set()
    for span in spans:
        span_id = (span.span_id or new_span_id())[:16]
        while span_id in seen:  # a body may repeat ids; never lose a span to that
            span_id = new_span_id()
        seen.add(span_id)
        rows.append(
            {
                "span_id": span_id,
                "parent_span_id": span.parent_span_id,
                "name": span.name,
                "kind": span.kind,
                "iris_kind": span.kind,
                "status_code": span.status_code,
                "status_message": span.status_message,
                "start_unix_nano": iso_to_ns(span.start_time),
                "end_unix_nano": iso_to_ns(span.end_time),
                "attributes": span.attributes or {},
                "events": [dataclasses.asdict(e) for e in span.events],
                "resource": None,
                "scope_name": None,
            }
        )
    return rows


def trace_to_api(row: Any) -> dict[str, Any]:
    """The API shape of a stored trace (SPEC §5.3 output plus stored extras)."""
    usage = None
    if (
        row.prompt_tokens is not None
        or row.completion_tokens is not None
        or row.total_tokens is not None
    ):
        usage = _drop_none(
            {
                "prompt_tokens": row.prompt_tokens,
                "completion_tokens": row.completion_tokens,
                "total_tokens": row.total_tokens,
            }
        )
    return {
        "trace_id": row.trace_id,
        "agent_name": row.agent_name,
        "framework": row.framework,
        "input": row.input,
        "output": row.output,
        "tool_calls": row.tool_calls,
        "latency_ms": row.latency_ms,
        "token_usage": usage,
        "cost_usd": row.cost_usd,
        "cost_source": row.cost_source,
        "metadata": row._mapping["metadata"] or {},
        "tools": row.tools,
        "expected_trajectory": row.expected_trajectory,
        "run": row.run,
        "case_key": row.case_key,
        "session_id": row.session_id,
        "source": row.source,
        "status": row.status,
        "derived": row.derived,
        "revision": row.revision,
        "span_count": row.span_count,
        "score": row.latest_score,
        "timestamp": iso(row.timestamp),
        "created_at": iso(row.created_at),
    }


def span_to_api(span: Mapping[str, Any]) -> dict[str, Any]:
    """The API shape of a stored span (a dict from ``storage.spans.expand``)."""
    attributes, events, resource = _span_payload(span)
    return {
        "span_id": span["span_id"],
        "parent_span_id": span["parent_span_id"],
        "name": span["name"],
        "kind": span["iris_kind"],
        "otel_kind": span["kind"],
        "status_code": span["status_code"],
        "status_message": span["status_message"],
        "start_time": ns_to_iso(span["start_unix_nano"]),
        "end_time": ns_to_iso(span["end_unix_nano"]),
        "attributes": attributes,
        "events": events,
        "resource": resource,
        "scope_name": span["scope_name"],
    }


def _span_payload(
    span: Mapping[str, Any],
) -> tuple[dict[str, Any], list[Any], dict[str, Any] | None]:
    """Attributes, events and resource of a stored span (JSON form or OTLP bytes)."""
    span_bytes = span["otlp_span"]
    if span_bytes is None:
        return span["attributes"] or {}, span["events"] or [], span["resource"]
    # The wire form is decoded by the receivers' own converter, so a span reads
    # back the same whichever way it was stored.
    from receivers.otlp.decode import expand_stored_span

    resource_bytes = span["otlp_resource"]
    attributes, events, resource = expand_stored_span(
        bytes(span_bytes), bytes(resource_bytes) if resource_bytes else None
    )
    return (
        attributes,
        [
            {"name": e.name, "time_unix_nano": e.time_unix_nano, "attributes": e.attributes}
            for e in events
        ],
        resource or None,
    )
