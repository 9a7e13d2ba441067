"""OTLP trace request bodies (protobuf or OTLP/JSON) → ``SpanRecord`` lists.

Both decoders produce identical records for the same request, reject spans
with unusable ids individually (OTLP partial success) and raise
``OtlpDecodeError`` for a body that is not an ``ExportTraceServiceRequest``.
The protobuf path is the hot one: it reads message fields directly, converts
each attribute once and shares one resource dict between all spans of a
``ResourceSpans``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from receivers import jsonload
from receivers.conventions import genai_current as gc
from receivers.conventions import iris as iris_conv
from receivers.conventions import langsmith as ls
from receivers.conventions import openinference as oi
from receivers.conventions import precedence as P
from receivers.conventions import traceloop as tl
from receivers.otlp.errors import OtlpDecodeError
from receivers.otlp.ids import json_id, pb_id
from receivers.otlp.values import json_attributes, json_uint, pb_any, pb_attributes
from receivers.otlp.wire import locate_error, read_varint, write_varint
from receivers.spans import OTLP_SPAN_KINDS, OTLP_STATUS_CODES, SpanEventRecord, SpanRecord

# A hostile batch could carry millions of bad spans; the count stays exact but
# we keep only this many human-readable reasons.
MAX_REASONS = 50

_KIND_NAMES: dict[str, str] = {
    **{name: name for name in OTLP_SPAN_KINDS.values()},
    **{f"SPAN_KIND_{name}": name for name in OTLP_SPAN_KINDS.values()},
}
_STATUS_NAMES: dict[str, str] = {
    **{name: name for name in OTLP_STATUS_CODES.values()},
    **{f"STATUS_CODE_{name}": name for name in OTLP_STATUS_CODES.values()},
}


@dataclass(slots=True)
class DecodedBatch:
    """The spans of one export request plus what was refused and why."""

    spans: list[SpanRecord] = field(default_factory=list)
    rejected_spans: int = 0
    rejection_reasons: list[str] = field(default_factory=list)
    # Lean protobuf decoding only (see ``lean_records_from_message``): per span,
    # its serialized ``Span``, ``Resource`` and ``InstrumentationScope`` (the
    # last two one bytes object per ``ResourceSpans`` / ``ScopeSpans``); the
    # records then carry only the attributes in ``INGEST_ATTRIBUTE_KEYS``.
    otlp: list[tuple[bytes, bytes, bytes]] | None = None

    def reject(self, reason: str) -> None:
        self.rejected_spans += 1
        if len(self.rejection_reasons) < MAX_REASONS:
            self.rejection_reasons.append(reason)


# ---------------------------------------------------------------------------
# protobuf


def parse_trace_request(body: bytes) -> ExportTraceServiceRequest:
    """Parse a protobuf body, turning upb's opaque error into one with an offset and field."""
    try:
        return ExportTraceServiceRequest.FromString(body)
    except (DecodeError, RuntimeError, ValueError) as exc:
        message, offset = locate_error(body, ExportTraceServiceRequest.DESCRIPTOR, "request")
        raise OtlpDecodeError(f"invalid ExportTraceServiceRequest: {message}", offset) from exc


def decode_traces_protobuf(body: bytes) -> DecodedBatch:
    """Decode an ``application/x-protobuf`` ``ExportTraceServiceRequest`` body."""
    return records_from_message(parse_trace_request(body))


def _span_ids(s: Span) -> tuple[str, str, str | None] | None:
    """The span's hex ids (trace, span, parent), or None when OTLP calls them
    invalid: wrong width or all zeros. An all-zero parent means "no parent"."""
    pid = s.parent_span_id
    if pid and len(pid) != 8:
        return None
    trace_id = pb_id(s.trace_id, 16)
    span_id = pb_id(s.span_id, 8)
    if trace_id is None or span_id is None:
        return None
    return trace_id, span_id, pid.hex() if pid and pid.strip(b"\x00") else None


def _record(
    s: Span,
    ids: tuple[str, str, str | None],
    attributes: dict[str, Any],
    events: list[SpanEventRecord],
    resource: dict[str, Any],
    scope: Any,
) -> SpanRecord:
    status = s.status
    return SpanRecord(
        ids[0],
        ids[1],
        s.name,
        ids[2],
        OTLP_SPAN_KINDS.get(s.kind, "UNSPECIFIED"),
        s.start_time_unix_nano,
        s.end_time_unix_nano,
        OTLP_STATUS_CODES.get(status.code, "UNSET"),
        status.message or None,
        attributes,
        events,
        resource,
        scope.name or None,
        scope.version or None,
    )


def records_from_message(req: ExportTraceServiceRequest) -> DecodedBatch:
    """Convert an already parsed request (the gRPC server receives it parsed)."""
    batch = DecodedBatch()
    append = batch.spans.append
    for ri, rs in enumerate(req.resource_spans):
        resource = pb_attributes(rs.resource.attributes)
        for si, ss in enumerate(rs.scope_spans):
            for i, s in enumerate(ss.spans):
                ids = _span_ids(s)
                if ids is None:
                    batch.reject(_pb_reason(ri, si, i, s.trace_id, s.span_id, s.parent_span_id))
                    continue
                events = [
                    SpanEventRecord(e.name, e.time_unix_nano, pb_attributes(e.attributes))
                    for e in s.events
                ]
                append(_record(s, ids, pb_attributes(s.attributes), events, resource, ss.scope))
    return batch


# The attributes the request path reads (span classification, ``iris.finalize``).
# Everything else stays in the span's serialized bytes until a worker or the
# API reads the span back (``expand_stored_span``).
INGEST_ATTRIBUTE_KEYS: frozenset[str] = frozenset(
    (
        gc.OPERATION_NAME,
        oi.SPAN_KIND,
        ls.SPAN_KIND,
        tl.SPAN_KIND,
        *P.TOOL_MARKERS,
        *P.MODEL_REQUEST_MARKERS,
        *iris_conv.FINALIZE,
    )
)


def decode_traces_protobuf_lean(body: bytes) -> DecodedBatch:
    """Like ``decode_traces_protobuf`` but without converting attributes (ingest path).

    upb parses the body first, which validates it (wire format, UTF-8) and
    locates errors; the records then come from the C span scanner when it is
    built (``scanned_records``), else from the parsed message.
    """
    req = parse_trace_request(body)
    if _spanscan is not None:
        batch = scanned_records(body, req)
        if batch is not None:
            return batch
    return lean_records_from_message(req)


# The compiled span scanner (receivers/otlp/_spanscan.c); absent when the
# package was installed without a C compiler, and then the parsed message is
# read instead, with the same records.
try:
    from receivers.otlp import _spanscan  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - depends on the build
    _spanscan = None

_SCAN_KEYS: tuple[str, ...] = tuple(sorted(INGEST_ATTRIBUTE_KEYS))


def scanned_records(body: bytes, req: ExportTraceServiceRequest) -> DecodedBatch | None:
    """``lean_records_from_message(req)``'s records, read by the C scanner from ``body``.

    ``req`` is ``body`` parsed (so the body is valid); it still supplies
    what is read once per ``ResourceSpans`` or ``ScopeSpans`` (the resource,
    the scope). Each span's bytes are its slice of the body rather than a
    re-serialization: the same message for every reader. Returns None (the
    caller reads ``req`` instead) if the scanner declines the body (values
    nested deeper than it reads) or its structure disagrees with upb's.
    """
    try:
        scanned = _spanscan.scan(body, _SCAN_KEYS)
    except ValueError:
        return None
    resource_spans = req.resource_spans
    if len(scanned) != len(resource_spans):
        return None
    batch = DecodedBatch(otlp=[])
    append = batch.spans.append
    assert batch.otlp is not None
    blob = batch.otlp.append
    for ri, (rs, scopes) in enumerate(zip(resource_spans, scanned, strict=True)):
        scope_spans = rs.scope_spans
        if len(scopes) != len(scope_spans):
            return None
        resource_pb = rs.resource
        resource = pb_attributes(resource_pb.attributes)
        resource_bytes = resource_pb.SerializeToString()
        for si, (ss, spans) in enumerate(zip(scope_spans, scopes, strict=True)):
            if len(spans) != len(ss.spans):
                return None
            scope = ss.scope
            scope_name, scope_version = scope.name or None, scope.version or None
            scope_bytes = scope.SerializeToString()
            for i, t in enumerate(spans):
                if t[0] is None:
                    batch.reject(_pb_reason(ri, si, i, t[1], t[2], t[3]))
                    continue
                append(_scanned_record(t, resource, scope_name, scope_version))
                blob((t[9], resource_bytes, scope_bytes))
    return batch


def read_resource_spans(
    resource_spans: bytes, *, ingest_attributes: bool = True
) -> list[tuple[SpanRecord, bytes]]:
    """The spans of a serialized ``ResourceSpans`` that this receiver accepted
    earlier (Iris's stored span batches, ``storage.spans``), with each span's
    bytes: the records ``decode_traces_protobuf_lean`` gave on arrival, less
    the resource (stored apart).

    ``ingest_attributes=False`` is for a reader that expands each span's
    attributes itself (``expand_stored_span``): the C scanner then converts
    none of them and leaves each record's attributes empty (the fallback
    decoder still fills them).

    The bytes were validated when they arrived, so the C scanner reads them
    without upb parsing them first; without the scanner, or if it declines,
    the lean decoder does."""
    request = b"\x0a" + write_varint(len(resource_spans)) + resource_spans
    if _spanscan is not None:
        try:
            scanned = _spanscan.scan(request, _SCAN_KEYS if ingest_attributes else ())
            scopes = _scopes_of(resource_spans)
        except ValueError:
            scanned = None
        if scanned is not None and len(scanned) == 1 and len(scanned[0]) == len(scopes):
            out = []
            for (scope_name, scope_version), spans in zip(scopes, scanned[0], strict=True):
                for t in spans:
                    if t[0] is None:  # refused on arrival, so never stored
                        continue
                    out.append((_scanned_record(t, {}, scope_name, scope_version), t[9]))
            return out
    batch = decode_traces_protobuf_lean(request)
    return [(r, o[0]) for r, o in zip(batch.spans, batch.otlp or (), strict=True)]


def read_stored_spans(resource_spans: bytes, resource: dict[str, Any]) -> list[SpanRecord]:
    """The records of a stored span batch (see ``read_resource_spans``) with
    their attributes and events expanded (``expand_stored_span_content``) and
    ``resource`` as every record's resource, for the worker.

    The C scanner reads the batch once (``scan_stored``) rather than once to
    find the spans and once more per span to expand it; without it, or if it
    declines, the two steps run as before."""
    if _spanscan is not None:
        try:
            scanned = _spanscan.scan_stored(resource_spans)
            scopes = _scopes_of(resource_spans)
        except ValueError:
            scanned = None
        if scanned is not None and len(scanned) == len(scopes):
            out = []
            for (scope_name, scope_version), spans in zip(scopes, scanned, strict=True):
                for t in spans:
                    if t[0] is None:  # refused on arrival, so never stored
                        continue
                    events = [SpanEventRecord(*e) for e in t[9]] if t[9] else []
                    out.append(_scanned_record(t, resource, scope_name, scope_version, events))
            return out
    records = []
    for r, span_bytes in read_resource_spans(resource_spans, ingest_attributes=False):
        # The scanned record is this call's own: it takes the span's
        # expanded attributes and events in place of building another.
        r.attributes, r.events = expand_stored_span_content(
            span_bytes if type(span_bytes) is bytes else bytes(span_bytes)
        )
        r.resource = resource
        records.append(r)
    return records


def _scopes_of(resource_spans: bytes) -> list[tuple[str | None, str | None]]:
    """(name, version) of the scope of each ``ScopeSpans`` (field 2), in order."""
    out = []
    buf = resource_spans
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos, end)
        if key & 7 != 2:
            raise ValueError("expected length-delimited fields only")
        size, pos = read_varint(buf, pos, end)
        if key >> 3 == 2:
            scope = b""
            if size and buf[pos] == 0x0A:  # the scope is field 1, written first
                scope_size, at = read_varint(buf, pos + 1, pos + size)
                scope = buf[at : at + scope_size]
            out.append(_scope_named(scope))
        pos += size
    return out


@lru_cache(maxsize=256)
def _scope_named(scope: bytes) -> tuple[str | None, str | None]:
    parsed = InstrumentationScope.FromString(scope)
    return parsed.name or None, parsed.version or None


def _scanned_record(
    t: tuple[Any, ...],
    resource: dict[str, Any],
    scope_name: str | None,
    scope_version: str | None,
    events: list[SpanEventRecord] | None = None,
) -> SpanRecord:
    """A ``SpanRecord`` from one of the C scanner's span tuples (ids as hex,
    name, kind and status as numbers, the attributes it read: the ingest
    ones, or every one of a stored span, with its ``events``)."""
    # Positional, in ``SpanRecord``'s field order.
    return SpanRecord(
        t[0],
        t[1],
        t[3],
        t[2],
        OTLP_SPAN_KINDS.get(t[4], "UNSPECIFIED"),
        t[5],
        t[6],
        OTLP_STATUS_CODES.get(t[7], "UNSET"),
        t[8],
        t[10],
        events if events is not None else [],
        resource,
        scope_name,
        scope_version,
    )


def lean_records_from_message(req: ExportTraceServiceRequest) -> DecodedBatch:
    """Records holding only ``INGEST_ATTRIBUTE_KEYS``, plus each span's wire bytes.

    Same ids, rejections, names, kinds, times and status as
    ``records_from_message``; ``batch.otlp[i]`` is ``(span bytes, resource
    bytes, scope bytes)`` for ``batch.spans[i]``, and ``expand_stored_span`` turns them back
    into the attributes, events and resource the full decoder gives. The
    resource is converted once per ``ResourceSpans`` (it is small and the
    service name is needed at ingest). Serialising a span is upb work (C), so
    the per-span Python cost no longer grows with the attributes' size.
    """
    batch = DecodedBatch(otlp=[])
    append = batch.spans.append
    assert batch.otlp is not None
    blob = batch.otlp.append
    wanted = INGEST_ATTRIBUTE_KEYS
    for ri, rs in enumerate(req.resource_spans):
        resource_pb = rs.resource
        resource = pb_attributes(resource_pb.attributes)
        resource_bytes = resource_pb.SerializeToString()
        for si, ss in enumerate(rs.scope_spans):
            scope_bytes = ss.scope.SerializeToString()
            for i, s in enumerate(ss.spans):
                ids = _span_ids(s)
                if ids is None:
                    batch.reject(_pb_reason(ri, si, i, s.trace_id, s.span_id, s.parent_span_id))
                    continue
                attrs = {kv.key: pb_any(kv.value) for kv in s.attributes if kv.key in wanted}
                append(_record(s, ids, attrs, [], resource, ss.scope))
                blob((s.SerializeToString(), resource_bytes, scope_bytes))
    return batch


@lru_cache(maxsize=256)
def _resource_from_bytes(raw: bytes) -> dict[str, Any]:
    return pb_attributes(Resource.FromString(raw).attributes)


def expand_stored_span(
    span_bytes: bytes, resource_bytes: bytes | None
) -> tuple[dict[str, Any], list[SpanEventRecord], dict[str, Any]]:
    """(attributes, events, resource) of a span stored as protobuf bytes.

    The values are exactly what ``records_from_message`` produces for the
    same span: the C scanner's ``expand`` converts them when it is built
    (about a tenth of upb's cost here, where every attribute becomes a
    Python value), else upb; ``expand_stored_span_upb`` is that path.
    """
    attributes, events = expand_stored_span_content(span_bytes)
    return attributes, events, stored_resource(resource_bytes)


def stored_resource(resource_bytes: bytes | None) -> dict[str, Any]:
    """A stored resource's attributes, as a dict of the caller's own (``{}`` when none)."""
    return dict(_resource_from_bytes(resource_bytes)) if resource_bytes else {}


def expand_stored_span_content(span_bytes: bytes) -> tuple[dict[str, Any], list[SpanEventRecord]]:
    """(attributes, events) of a span stored as protobuf bytes: ``expand_stored_span``
    less the resource, for a reader that converts a batch's resource once."""
    if _spanscan is not None:
        try:
            attributes, events = _spanscan.expand(span_bytes)
        except ValueError:
            pass
        else:
            # Most spans have no events: no comprehension frame for them.
            return attributes, [SpanEventRecord(*e) for e in events] if events else []
    return _expand_upb(span_bytes)


def _expand_upb(span_bytes: bytes) -> tuple[dict[str, Any], list[SpanEventRecord]]:
    s = Span.FromString(span_bytes)
    events = [
        SpanEventRecord(e.name, e.time_unix_nano, pb_attributes(e.attributes)) for e in s.events
    ]
    return pb_attributes(s.attributes), events


def expand_stored_span_upb(
    span_bytes: bytes, resource_bytes: bytes | None
) -> tuple[dict[str, Any], list[SpanEventRecord], dict[str, Any]]:
    """``expand_stored_span`` through upb alone (the reference the C path is tested against)."""
    resource = dict(_resource_from_bytes(resource_bytes)) if resource_bytes else {}
    attributes, events = _expand_upb(span_bytes)
    return attributes, events, resource


def _pb_reason(ri: int, si: int, i: int, tid: bytes, sid: bytes, pid: bytes) -> str:
    where = f"resourceSpans[{ri}].scopeSpans[{si}].spans[{i}]"
    if len(tid) != 16 or not tid.strip(b"\x00"):
        return f"{where}.traceId: expected 16 non-zero bytes, got {len(tid)} bytes"
    if len(sid) != 8 or not sid.strip(b"\x00"):
        return f"{where}.spanId: expected 8 non-zero bytes, got {len(sid)} bytes"
    return f"{where}.parentSpanId: expected 8 bytes or empty, got {len(pid)} bytes"


# ---------------------------------------------------------------------------
# OTLP/JSON


def load_json_body(body: bytes) -> Any:
    """Parse JSON text (``jsonload.loads``), mapping every failure mode to ``OtlpDecodeError``."""
    try:
        return jsonload.loads(body)
    except json.JSONDecodeError as exc:
        raise OtlpDecodeError(f"invalid JSON: {exc.msg}", exc.pos) from None
    except UnicodeDecodeError as exc:
        raise OtlpDecodeError("invalid JSON: body is not UTF-8 text", exc.start) from None
    except RecursionError:
        raise OtlpDecodeError("invalid JSON: nesting too deep") from None
    except (TypeError, ValueError) as exc:
        raise OtlpDecodeError(f"invalid JSON: {exc}") from None


def json_list(obj: dict[str, Any], camel: str, snake: str, path: str) -> list[Any]:
    """A repeated field; absent or null is empty, anything else but a list is an error."""
    val = obj.get(camel)
    if val is None:
        val = obj.get(snake)
    if val is None:
        return []
    if not isinstance(val, list):
        raise OtlpDecodeError(f"{path}.{camel}: expected a list")
    return val


def json_obj(val: Any, path: str) -> dict[str, Any]:
    if val is None:
        return {}
    if not isinstance(val, dict):
        raise OtlpDecodeError(f"{path}: expected an object")
    return val


def json_str(val: Any, path: str) -> str:
    if val is None:
        return ""
    if not isinstance(val, str):
        raise OtlpDecodeError(f"{path}: expected a string")
    return val


def json_enum(val: Any, names: dict[int, str], aliases: dict[str, str], path: str) -> str:
    """Enums arrive as integers (spec) or as their names (protobuf JSON mapping)."""
    if val is None:
        return names.get(0, "UNSET")
    if isinstance(val, bool):
        raise OtlpDecodeError(f"{path}: expected an enum value")
    if isinstance(val, int):
        return names.get(val, names.get(0, "UNSET"))
    if isinstance(val, str):
        if val.isdigit():
            return names.get(int(val), names.get(0, "UNSET"))
        name = aliases.get(val.upper())
        if name is None:
            raise OtlpDecodeError(f"{path}: unknown enum name {val[:40]!r}")
        return name
    raise OtlpDecodeError(f"{path}: expected an enum value")


def decode_traces_json(body: bytes) -> DecodedBatch:
    """Decode an ``application/json`` OTLP/JSON ``ExportTraceServiceRequest`` body."""
    doc = load_json_body(body)
    try:
        return _records_from_json(doc)
    except OtlpDecodeError:
        raise
    except RecursionError:
        raise OtlpDecodeError("request: nesting too deep") from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:  # pragma: no cover - net
        raise OtlpDecodeError(f"request: malformed OTLP/JSON ({exc})") from None


def _records_from_json(doc: Any) -> DecodedBatch:
    if not isinstance(doc, dict):
        raise OtlpDecodeError("request: expected a JSON object")
    batch = DecodedBatch()
    append = batch.spans.append
    for ri, rs in enumerate(json_list(doc, "resourceSpans", "resource_spans", "")):
        rpath = f"resourceSpans[{ri}]"
        rs = json_obj(rs, rpath)
        res = json_obj(rs.get("resource"), f"{rpath}.resource")
        resource = json_attributes(res.get("attributes"), f"{rpath}.resource.attributes")
        for si, ss in enumerate(json_list(rs, "scopeSpans", "scope_spans", rpath)):
            spath = f"{rpath}.scopeSpans[{si}]"
            ss = json_obj(ss, spath)
            scope = json_obj(ss.get("scope"), f"{spath}.scope")
            scope_name = json_str(scope.get("name"), f"{spath}.scope.name") or None
            scope_version = json_str(scope.get("version"), f"{spath}.scope.version") or None
            for i, s in enumerate(json_list(ss, "spans", "spans", spath)):
                path = f"{spath}.spans[{i}]"
                rec = _json_span(
                    json_obj(s, path), path, resource, scope_name, scope_version, batch
                )
                if rec is not None:
                    append(rec)
    return batch


def _get(obj: dict[str, Any], camel: str, snake: str) -> Any:
    val = obj.get(camel)
    if val is None and camel != snake:
        val = obj.get(snake)
    return val


def _json_span(
    s: dict[str, Any],
    path: str,
    resource: dict[str, Any],
    scope_name: str | None,
    scope_version: str | None,
    batch: DecodedBatch,
) -> SpanRecord | None:
    trace_id = json_id(_get(s, "traceId", "trace_id"), 16)
    if trace_id is None:
        batch.reject(f"{path}.traceId: expected 32 hex chars (or base64 of 16 bytes), non-zero")
        return None
    span_id = json_id(_get(s, "spanId", "span_id"), 8)
    if span_id is None:
        batch.reject(f"{path}.spanId: expected 16 hex chars (or base64 of 8 bytes), non-zero")
        return None
    raw_parent = _get(s, "parentSpanId", "parent_span_id")
    parent: str | None = None
    if raw_parent not in (None, ""):
        parent = json_id(raw_parent, 8)
        if parent is None and not (isinstance(raw_parent, str) and raw_parent.strip("0") == ""):
            batch.reject(f"{path}.parentSpanId: expected 16 hex chars (or base64 of 8 bytes)")
            return None
    status = json_obj(s.get("status"), f"{path}.status")
    events: list[SpanEventRecord] = []
    for ei, ev in enumerate(json_list(s, "events", "events", path)):
        epath = f"{path}.events[{ei}]"
        ev = json_obj(ev, epath)
        events.append(
            SpanEventRecord(
                json_str(ev.get("name"), f"{epath}.name"),
                json_uint(_get(ev, "timeUnixNano", "time_unix_nano"), f"{epath}.timeUnixNano"),
                json_attributes(ev.get("attributes"), f"{epath}.attributes"),
            )
        )
    return SpanRecord(
        trace_id,
        span_id,
        json_str(s.get("name"), f"{path}.name"),
        parent,
        json_enum(s.get("kind"), OTLP_SPAN_KINDS, _KIND_NAMES, f"{path}.kind"),
        json_uint(
            _get(s, "startTimeUnixNano", "start_time_unix_nano"), f"{path}.startTimeUnixNano"
        ),
        json_uint(_get(s, "endTimeUnixNano", "end_time_unix_nano"), f"{path}.endTimeUnixNano"),
        json_enum(status.get("code"), OTLP_STATUS_CODES, _STATUS_NAMES, f"{path}.status.code"),
        json_str(status.get("message"), f"{path}.status.message") or None,
        json_attributes(s.get("attributes"), f"{path}.attributes"),
        events,
        resource,
        scope_name,
        scope_version,
    )
