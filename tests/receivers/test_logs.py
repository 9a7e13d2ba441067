"""event_only capture: GenAI log records become span events the mapping can read."""

from __future__ import annotations

import json

import pytest

from receivers.mapping import derive_trace
from receivers.otlp.decode import decode_traces_protobuf
from receivers.otlp.errors import OtlpDecodeError
from receivers.otlp.logs import attach_log_events, decode_logs_json, decode_logs_protobuf
from tests.receivers.fixtures_support import FIXTURES, needs_fixtures

EVENT = "gen_ai.client.inference.operation.details"


@needs_fixtures
def test_event_only_logs_decode_and_attach() -> None:
    base = FIXTURES / "openai_v2_event_only"
    pb = decode_logs_protobuf((base / "tools_ok.logs.pb").read_bytes())
    js = decode_logs_json((base / "tools_ok.logs.json").read_bytes())
    assert pb.events == js.events
    assert len(pb.events) == 2 and pb.skipped_records == 0
    first = pb.events[0]
    assert first.name == EVENT
    # Structured AnyValues, not JSON strings (README: event_only quirk).
    msgs = first.attributes["gen_ai.input.messages"]
    assert isinstance(msgs, list) and msgs[1]["role"] == "user"
    spans = decode_traces_protobuf((base / "tools_ok.pb").read_bytes()).spans
    assert derive_trace(spans).input is None  # content is not on the spans
    unmatched = attach_log_events(spans, pb.by_span())
    assert unmatched == []
    chats = [s for s in spans if s.name.startswith("chat")]
    assert all(len(s.events) == 1 and s.events[0].name == EVENT for s in chats)
    # Attaching again (exporter retry) does not duplicate.
    attach_log_events(spans, pb.events)
    assert all(len(s.events) == 1 for s in chats)
    d = derive_trace(spans)
    assert d.input == "What's the weather in Paris right now, and what is 23 * 7?"
    assert d.output == "In Paris it is currently 18.5°C and partly cloudy. And 23 × 7 = 161."


@needs_fixtures
def test_unmatched_events_are_returned() -> None:
    base = FIXTURES / "openai_v2_event_only"
    events = decode_logs_protobuf((base / "tools_ok.logs.pb").read_bytes()).events
    assert attach_log_events([], events) == events


def test_non_genai_and_unlinked_records_are_skipped() -> None:
    body = json.dumps(
        {
            "resourceLogs": [
                {
                    "scopeLogs": [
                        {
                            "logRecords": [
                                {
                                    "eventName": "app.log",
                                    "traceId": "0af7651916cd43dd8448eb211c80319c",
                                    "spanId": "b7ad6b7169203331",
                                },
                                {"eventName": "gen_ai.user.message"},
                                {
                                    "attributes": [
                                        {
                                            "key": "event.name",
                                            "value": {"stringValue": "gen_ai.user.message"},
                                        }
                                    ],
                                    "traceId": "0af7651916cd43dd8448eb211c80319c",
                                    "spanId": "b7ad6b7169203331",
                                    "timeUnixNano": "5",
                                    "body": {
                                        "kvlistValue": {
                                            "values": [
                                                {
                                                    "key": "content",
                                                    "value": {"stringValue": "hello there"},
                                                }
                                            ]
                                        }
                                    },
                                },
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()
    out = decode_logs_json(body)
    assert out.skipped_records == 2
    (ev,) = out.events
    assert ev.name == "gen_ai.user.message" and ev.time_unix_nano == 5
    assert ev.as_span_event().attributes["content"] == "hello there"


def test_bad_logs_bodies() -> None:
    with pytest.raises(OtlpDecodeError):
        decode_logs_json(b"[]")
    with pytest.raises(OtlpDecodeError):
        decode_logs_protobuf(b"\x0f")
