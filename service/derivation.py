"""Derive a stored OTLP trace from all its spans and log events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

from receivers.mapping import DerivedTrace, derive_trace
from receivers.otlp.decode import expand_stored_span, read_stored_spans, stored_resource
from receivers.otlp.logs import LogEvent, attach_log_events
from receivers.spans import SpanEventRecord, SpanRecord
from storage import codec
from storage.spans import expand


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


_SPAN_ID = attrgetter("span_id")


def records_of_batches(batches: Iterable[Mapping[str, Any]]) -> list[SpanRecord]:
    """One trace's spans as records, ordered by span id, from its stored batch
    rows (``storage.spans.batches_of``): what ``record_from_row`` gives for
    each of ``spans_of``'s dicts of that trace.

    A protobuf batch's spans skip the dict: their records come whole from
    the batch's bytes (``read_stored_spans``), with what ``record_from_row``
    reads from the dicts ``storage.spans.expand`` would have copied them into
    (building and reading those dicts was half of the worker's read). JSON
    batches, rare, go through the dicts."""
    out: list[SpanRecord] = []
    for row in batches:
        packed = row["otlp_spans"]
        if packed is None:
            out.extend(record_from_row(span) for span in expand((row,)))
            continue
        resource = row["otlp_resource"]
        # One resource dict for the batch's spans, as the decoders share one
        # per ``ResourceSpans`` (readers only read it).
        resource_attrs = stored_resource(bytes(resource) if resource else None)
        records = read_stored_spans(bytes(packed), resource_attrs)
        if len(records) != len(row["iris_kinds"].split()):  # as ``expand`` refuses it
            raise ValueError("a span batch's kinds do not match its spans")
        out += records
    out.sort(key=_SPAN_ID)
    return out


def derive_rows(
    span_rows: Sequence[Mapping[str, Any]], log_rows: Sequence[Mapping[str, Any]]
) -> DerivedTrace | None:
    """Derive from stored span and log-event rows (mappings); None when there are no spans."""
    return derive_records([record_from_row(r) for r in span_rows], log_rows)


def derive_records(
    records: list[SpanRecord], log_rows: Sequence[Mapping[str, Any]]
) -> DerivedTrace | None:
    """``derive_rows`` from span records (``records_of_batches``)."""
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
