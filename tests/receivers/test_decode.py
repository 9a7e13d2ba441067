"""Trace body decoding: protobuf ≡ JSON on every fixture, partial success, error locations."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from receivers.otlp.decode import decode_traces_json, decode_traces_protobuf
from receivers.otlp.errors import OtlpDecodeError
from receivers.otlp.wire import write_varint
from tests.receivers.fixtures_support import FIXTURES, needs_fixtures, trace_pb_fixtures

TRACE_HEX = "5a76b8e70259a42187b529510b8bb01b"
SPAN_HEX = "3ab19f2a8f7e724d"


@needs_fixtures
@pytest.mark.parametrize("rel", trace_pb_fixtures())
def test_protobuf_and_json_fixture_decode_identically(rel: str) -> None:
    pb = decode_traces_protobuf((FIXTURES / rel).read_bytes())
    js = decode_traces_json((FIXTURES / rel).with_suffix(".json").read_bytes())
    assert pb.rejected_spans == js.rejected_spans == 0
    assert pb.spans == js.spans
    assert pb.spans, "fixture has spans"
    for s in pb.spans:
        assert len(s.trace_id) == 32 and s.trace_id == s.trace_id.lower()
        assert len(s.span_id) == 16
        assert s.parent_span_id is None or len(s.parent_span_id) == 16
        assert s.resource.get("service.name", "").endswith("-fixture")
        assert s.scope_name
    # One ResourceSpans per request: the resource dict is shared, not copied per span.
    assert len({id(s.resource) for s in pb.spans}) == 1


@needs_fixtures
def test_fixture_values_are_python_types() -> None:
    batch = decode_traces_protobuf((FIXTURES / "openai_v2" / "tools_ok.pb").read_bytes())
    chat = next(s for s in batch.spans if s.name.startswith("chat"))
    assert chat.kind == "CLIENT"
    assert chat.attributes["gen_ai.usage.input_tokens"] == 112
    assert chat.attributes["gen_ai.request.temperature"] == 0.2
    assert chat.attributes["gen_ai.response.finish_reasons"] == ["tool_calls"]
    calc = next(s for s in batch.spans if s.name == "execute_tool calculator")
    assert calc.attributes["gen_ai.tool.call.result"] == 161
    assert calc.scope_name == "opentelemetry.util.genai.handler" and calc.scope_version == "1.1b0"


def _span(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "traceId": TRACE_HEX,
        "spanId": SPAN_HEX,
        "name": "s",
        "startTimeUnixNano": "1000",
        "endTimeUnixNano": "2000",
    }
    base.update(over)
    return base


def _body(*spans: dict[str, Any], resource: list[Any] | None = None) -> bytes:
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {"attributes": resource or []},
                    "scopeSpans": [{"scope": {"name": "sc", "version": "1"}, "spans": list(spans)}],
                }
            ]
        }
    ).encode()


def test_json_accepts_base64_ids_numbers_enum_names_and_snake_case() -> None:
    b64_trace = base64.b64encode(bytes.fromhex(TRACE_HEX)).decode()
    b64_span = base64.b64encode(bytes.fromhex(SPAN_HEX)).decode()
    body = json.dumps(
        {
            "resource_spans": [
                {
                    "scope_spans": [
                        {
                            "spans": [
                                {
                                    "trace_id": b64_trace,
                                    "span_id": b64_span,
                                    "name": "x",
                                    "start_time_unix_nano": 5,
                                    "endTimeUnixNano": "7",
                                    "kind": "SPAN_KIND_CLIENT",
                                    "status": {"code": "STATUS_CODE_ERROR", "message": "boom"},
                                    "unknownField": {"ignored": True},
                                    "attributes": [
                                        {"key": "i", "value": {"intValue": 3}},
                                        {"key": "s", "value": {"intValue": "-4"}},
                                        {
                                            "key": "b",
                                            "value": {
                                                "bytesValue": base64.b64encode(b"hi").decode()
                                            },
                                        },
                                        {
                                            "key": "raw",
                                            "value": {
                                                "bytesValue": base64.b64encode(b"\xff\x00").decode()
                                            },
                                        },
                                        {
                                            "key": "kv",
                                            "value": {
                                                "kvlistValue": {
                                                    "values": [
                                                        {
                                                            "key": "a",
                                                            "value": {
                                                                "arrayValue": {
                                                                    "values": [
                                                                        {"boolValue": True},
                                                                        {},
                                                                    ]
                                                                }
                                                            },
                                                        }
                                                    ]
                                                }
                                            },
                                        },
                                        {"key": "d", "value": {"doubleValue": "Infinity"}},
                                    ],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()
    batch = decode_traces_json(body)
    (s,) = batch.spans
    assert (s.trace_id, s.span_id) == (TRACE_HEX, SPAN_HEX)
    assert (s.start_unix_nano, s.end_unix_nano) == (5, 7)
    assert (s.kind, s.status_code, s.status_message) == ("CLIENT", "ERROR", "boom")
    assert s.attributes == {
        "i": 3,
        "s": -4,
        "b": "hi",
        "raw": "ff00",
        "kv": {"a": [True, None]},
        "d": float("inf"),
    }
    assert s.scope_name is None and s.resource == {}


def test_invalid_ids_are_rejected_not_fatal() -> None:
    body = _body(
        _span(),
        _span(traceId="", spanId="1111111111111111"),
        _span(traceId="zz" * 16, spanId="2222222222222222"),
        _span(spanId="0" * 16),
        _span(spanId="3333333333333333", parentSpanId="abc"),
    )
    batch = decode_traces_json(body)
    assert [s.span_id for s in batch.spans] == [SPAN_HEX]
    assert batch.rejected_spans == 4
    assert batch.rejection_reasons[0] == (
        "resourceSpans[0].scopeSpans[0].spans[1].traceId: "
        "expected 32 hex chars (or base64 of 16 bytes), non-zero"
    )
    assert "spans[3].spanId" in batch.rejection_reasons[2]
    assert "spans[4].parentSpanId" in batch.rejection_reasons[3]


def test_protobuf_invalid_ids_are_rejected() -> None:
    req = ExportTraceServiceRequest()
    ss = req.resource_spans.add().scope_spans.add()
    ok = ss.spans.add(trace_id=bytes.fromhex(TRACE_HEX), span_id=bytes.fromhex(SPAN_HEX), name="ok")
    ok.parent_span_id = b""
    ss.spans.add(trace_id=b"", span_id=bytes.fromhex(SPAN_HEX), name="no-trace")
    ss.spans.add(trace_id=bytes(16), span_id=bytes.fromhex(SPAN_HEX), name="zero-trace")
    ss.spans.add(trace_id=bytes.fromhex(TRACE_HEX), span_id=b"\x01" * 7, name="short")
    batch = decode_traces_protobuf(req.SerializeToString())
    assert [s.name for s in batch.spans] == ["ok"]
    assert batch.spans[0].parent_span_id is None
    assert batch.rejected_spans == 3
    assert batch.rejection_reasons[0].startswith("resourceSpans[0].scopeSpans[0].spans[1].traceId")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b"{not json", "invalid JSON"),
        (b"[1, 2]", "request: expected a JSON object"),
        (b'{"resourceSpans": {}}', "resourceSpans: expected a list"),
        (
            b'{"resourceSpans": [{"scopeSpans": [{"spans": [7]}]}]}',
            "resourceSpans[0].scopeSpans[0].spans[0]: expected an object",
        ),
        (
            _body(_span(startTimeUnixNano="soon")),
            "resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano: expected an integer",
        ),
        (
            _body(_span(attributes=[{"key": "k", "value": {"boolValue": "yes"}}])),
            "spans[0].attributes[0].value.boolValue",
        ),
        (_body(_span(kind="SPAN_KIND_WHATEVER")), "spans[0].kind: unknown enum name"),
        (b"\xff\xfe\x00garbage", "invalid JSON"),
    ],
)
def test_json_errors_name_the_path(body: bytes, needle: str) -> None:
    with pytest.raises(OtlpDecodeError) as info:
        decode_traces_json(body)
    assert needle in info.value.message


def test_json_syntax_error_has_offset() -> None:
    with pytest.raises(OtlpDecodeError) as info:
        decode_traces_json(b'{"resourceSpans": [}')
    assert info.value.offset == 19


@needs_fixtures
def test_protobuf_truncation_reports_offset_and_field() -> None:
    body = (FIXTURES / "openai_v2" / "tools_ok.pb").read_bytes()
    with pytest.raises(OtlpDecodeError) as info:
        decode_traces_protobuf(body[: len(body) // 2])
    err = info.value
    assert err.offset is not None and 0 <= err.offset < len(body)
    assert "request.resource_spans" in err.message
    assert "offset" in str(err)


def test_protobuf_bad_wire_type_reports_offset() -> None:
    # Field 1 (resource_spans) with wire type 7 (invalid) at offset 0.
    with pytest.raises(OtlpDecodeError) as info:
        decode_traces_protobuf(b"\x0f\x00")
    assert info.value.offset == 0
    assert "invalid wire type" in info.value.message


def test_protobuf_invalid_utf8_string_is_located() -> None:
    req = ExportTraceServiceRequest()
    span = (
        req.resource_spans.add()
        .scope_spans.add()
        .spans.add(trace_id=bytes.fromhex(TRACE_HEX), span_id=bytes.fromhex(SPAN_HEX), name="XXXX")
    )
    assert span.name == "XXXX"
    raw = bytearray(req.SerializeToString())
    at = raw.index(b"XXXX")
    raw[at] = 0xFF
    with pytest.raises(OtlpDecodeError) as info:
        decode_traces_protobuf(bytes(raw))
    assert info.value.offset == at
    assert "spans.name" in info.value.message and "UTF-8" in info.value.message


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (wire type 2)."""
    return write_varint(number << 3 | 2) + write_varint(len(payload)) + payload


def test_protobuf_nested_too_deep_is_reported_not_walked() -> None:
    """An attribute value nested thousands deep (AnyValue → KeyValueList →
    KeyValue → AnyValue …): the error names the nesting, whether the walk that
    locates it runs compiled (no interpreter recursion limit) or not."""
    value = b""
    for _ in range(2_000):
        value = _field(6, _field(1, _field(2, value)))  # kvlist_value.values.value
    resource = _field(1, _field(2, value))  # Resource.attributes.value
    body = _field(1, _field(1, resource))  # request.resource_spans.resource
    with pytest.raises(OtlpDecodeError) as info:
        decode_traces_protobuf(body)
    assert "nesting too deep" in info.value.message


def test_empty_bodies_decode_to_nothing() -> None:
    assert decode_traces_protobuf(b"").spans == []
    assert decode_traces_json(b"{}").spans == []
