"""Derive a stored OTLP trace from all its spans and log events."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from receivers.mapping import DerivedTrace, derive_trace
from receivers.otlp.decode import expand_stored_span
from receivers.otlp.logs import LogEvent, attach_log_events
from receivers.spans import SpanEventRecord, SpanRecord
from storage import codec


def record_from_row(row: Mapping[str, Any]) -> SpanRecord:
    """A stored span (a ``spans`` row as a mapping) back in the receivers'
    record shape, whichever way it was stored: protobuf wire bytes
    (``otlp_span``) or JSON columns."""
    span_bytes = row.get("otlp_span")
    if span_bytes is not None:
        resource_bytes = row["otlp_resource"]
        # ``bytes()`` only when the driver gave a buffer (memoryview): it
        # copies, and the read side already hands over ``bytes``.
        attributes, events, resource = expand_stored_span(
            span_bytes if type(span_bytes) is bytes else bytes(span_bytes),
            (resource_bytes if type(resource_bytes) is bytes else bytes(resource_bytes))
            if resource_bytes
            else None,
        )
    else:
        attributes = row["attributes"] or {}
        events = [
            SpanEventRecord(e["name"], int(e.get("time_unix_nano") or 0), e.get("attributes") or {})
            for e in row["events"] or []
        ]
        resource = row["resource"] or {}
    # Positional: the dataclass's keyword parsing cost more than the rest of
    # building the record (the order is ``SpanRecord``'s field order).
    return SpanRecord(
        row["trace_id"],
        row["span_id"],
        row["name"],
        row["parent_span_id"],
        row["kind"],
        row["start_unix_nano"],
        row["end_unix_nano"],
        row["status_code"],
        row["status_message"],
        attributes,
        events,
        resource,
        row["scope_name"],
    )


def derive_rows(
    span_rows: Sequence[Mapping[str, Any]], log_rows: Sequence[Mapping[str, Any]]
) -> DerivedTrace | None:
    """Derive from stored span and log-event rows (mappings); None when there are no spans."""
    records = [record_from_row(r) for r in span_rows]
    if not records:
        return None
    events = [
        LogEvent(
            e["trace_id"],
            e["span_id"],
            e["name"],
            e["time_unix_nano"],
            e["attributes"] or {},
            e["body"],
        )
        for e in log_rows
    ]
    if events:
        attach_log_events(records, events)
    # The worker stores the fields and judges the stored row, whose spans it
    # reads from storage: the derivation's own span models would go unused.
    return derive_trace(records, model_spans=False)


def derived_fields(derived: DerivedTrace, *, now: Any) -> dict[str, Any]:
    """Row columns from a derivation: content plus the assembly facts."""
    fields = codec.agent_fields(derived, now=now)
    fields["root_span_id"] = derived.root_span_id
    fields["has_root"] = derived.has_root
    fields["error"] = derived.status == "error"
    fields["finalize_requested"] = derived.finalize_requested
    return fields


def derived_extras(derived: DerivedTrace) -> dict[str, Any]:
    return {
        "evaluate": derived.evaluate,
        "eval_type": derived.eval_type,
        "lacked": list(derived.lacked),
    }
