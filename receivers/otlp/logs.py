"""OTLP log records carrying GenAI events → span events.

With ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=event_only`` (and the
older event-based GenAI conventions) the prompt and completion never reach the
spans: they arrive as *log records* stamped with the trace and span id of the
model call. We turn each such record into a ``SpanEventRecord`` on the span it
names, so the convention mapping reads the content exactly as if the SDK had
recorded span events. Logs and traces travel in separate requests; the caller
holds the events (keyed by span) until the spans are together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from receivers.otlp.decode import json_list, json_obj, json_str, load_json_body
from receivers.otlp.errors import OtlpDecodeError
from receivers.otlp.ids import json_id, pb_id
from receivers.otlp.values import json_any, json_attributes, json_uint, pb_any, pb_attributes
from receivers.otlp.wire import locate_error
from receivers.spans import SpanEventRecord, SpanRecord

SpanKey = tuple[str, str]

# Log records are GenAI events when their event name (or legacy ``event.name``
# attribute) is in this namespace; other application logs are not our business.
GENAI_EVENT_PREFIX = "gen_ai."


@dataclass(frozen=True, slots=True)
class LogEvent:
    """One GenAI event taken from a log record, tied to the span it belongs to."""

    trace_id: str
    span_id: str
    name: str
    time_unix_nano: int
    attributes: dict[str, Any] = field(default_factory=dict)
    body: Any = None

    def as_span_event(self) -> SpanEventRecord:
        """The event as the span would have carried it: body fields merged under attributes."""
        attrs = dict(self.attributes)
        if isinstance(self.body, dict):
            for key, val in self.body.items():
                attrs.setdefault(key, val)
        elif self.body is not None:
            attrs.setdefault("body", self.body)
        return SpanEventRecord(self.name, self.time_unix_nano, attrs)


@dataclass(slots=True)
class DecodedLogs:
    """GenAI events of one logs request, and how many records could not be used."""

    events: list[LogEvent] = field(default_factory=list)
    skipped_records: int = 0

    def by_span(self) -> dict[SpanKey, list[LogEvent]]:
        return events_by_span(self.events)


def _event_name(event_name: str, attributes: dict[str, Any]) -> str:
    if event_name:
        return event_name
    legacy = attributes.get("event.name")
    return legacy if isinstance(legacy, str) else ""


def decode_logs_protobuf(body: bytes) -> DecodedLogs:
    """Decode an ``ExportLogsServiceRequest`` protobuf body into GenAI events."""
    try:
        req = ExportLogsServiceRequest.FromString(body)
    except (DecodeError, RuntimeError, ValueError) as exc:
        message, offset = locate_error(body, ExportLogsServiceRequest.DESCRIPTOR, "request")
        raise OtlpDecodeError(f"invalid ExportLogsServiceRequest: {message}", offset) from exc
    out = DecodedLogs()
    for rl in req.resource_logs:
        for sl in rl.scope_logs:
            for rec in sl.log_records:
                attrs = pb_attributes(rec.attributes)
                name = _event_name(rec.event_name, attrs)
                trace_id = pb_id(rec.trace_id, 16)
                span_id = pb_id(rec.span_id, 8)
                if not name.startswith(GENAI_EVENT_PREFIX) or trace_id is None or span_id is None:
                    out.skipped_records += 1
                    continue
                body_val = pb_any(rec.body) if rec.HasField("body") else None
                when = rec.time_unix_nano or rec.observed_time_unix_nano
                out.events.append(LogEvent(trace_id, span_id, name, when, attrs, body_val))
    return out


def decode_logs_json(body: bytes) -> DecodedLogs:
    """Decode an OTLP/JSON ``ExportLogsServiceRequest`` body into GenAI events."""
    doc = load_json_body(body)
    if not isinstance(doc, dict):
        raise OtlpDecodeError("request: expected a JSON object")
    out = DecodedLogs()
    try:
        for ri, rl in enumerate(json_list(doc, "resourceLogs", "resource_logs", "")):
            rpath = f"resourceLogs[{ri}]"
            rl = json_obj(rl, rpath)
            for si, sl in enumerate(json_list(rl, "scopeLogs", "scope_logs", rpath)):
                spath = f"{rpath}.scopeLogs[{si}]"
                sl = json_obj(sl, spath)
                for i, rec in enumerate(json_list(sl, "logRecords", "log_records", spath)):
                    path = f"{spath}.logRecords[{i}]"
                    event = _json_record(json_obj(rec, path), path)
                    if event is None:
                        out.skipped_records += 1
                    else:
                        out.events.append(event)
    except RecursionError:
        raise OtlpDecodeError("request: nesting too deep") from None
    return out


def _json_record(rec: dict[str, Any], path: str) -> LogEvent | None:
    attrs = json_attributes(rec.get("attributes"), f"{path}.attributes")
    raw_name = rec.get("eventName", rec.get("event_name"))
    name = _event_name(json_str(raw_name, f"{path}.eventName"), attrs)
    trace_id = json_id(rec.get("traceId", rec.get("trace_id")), 16)
    span_id = json_id(rec.get("spanId", rec.get("span_id")), 8)
    if not name.startswith(GENAI_EVENT_PREFIX) or trace_id is None or span_id is None:
        return None
    when = json_uint(rec.get("timeUnixNano", rec.get("time_unix_nano")), f"{path}.timeUnixNano")
    if not when:
        when = json_uint(
            rec.get("observedTimeUnixNano", rec.get("observed_time_unix_nano")),
            f"{path}.observedTimeUnixNano",
        )
    body_val = json_any(rec.get("body"), f"{path}.body")
    return LogEvent(trace_id, span_id, name, when, attrs, body_val)


def events_by_span(events: Iterable[LogEvent]) -> dict[SpanKey, list[LogEvent]]:
    """Group events under their (trace_id, span_id), keeping arrival order."""
    grouped: dict[SpanKey, list[LogEvent]] = {}
    for ev in events:
        grouped.setdefault((ev.trace_id, ev.span_id), []).append(ev)
    return grouped


def attach_log_events(
    spans: Iterable[SpanRecord], events: dict[SpanKey, list[LogEvent]] | Iterable[LogEvent]
) -> list[LogEvent]:
    """Append each event to its span's ``events``; return the events whose span is absent.

    Attaching twice is harmless: an event already present (same name, time and
    attributes) is not added again, since logs can be retried by exporters.
    """
    grouped = events if isinstance(events, dict) else events_by_span(events)
    seen: set[SpanKey] = set()
    for span in spans:
        key = (span.trace_id, span.span_id)
        pending = grouped.get(key)
        if not pending:
            continue
        seen.add(key)
        for ev in pending:
            rec = ev.as_span_event()
            if rec not in span.events:
                span.events.append(rec)
    return [ev for key, evs in grouped.items() if key not in seen for ev in evs]
