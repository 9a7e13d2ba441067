"""Small OTLP request bodies with known ids, for load and durability tests."""

from __future__ import annotations

import json
import random

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import KeyValue


def _kv(key: str, value: object) -> KeyValue:
    kv = KeyValue(key=key)
    if isinstance(value, int):
        kv.value.int_value = value
    else:
        kv.value.string_value = str(value)
    return kv


def agent_request(
    rng: random.Random, traces: int, *, base_ns: int = 1_764_547_200_000_000_000
) -> tuple[bytes, list[tuple[str, str]]]:
    """``traces`` GenAI agent traces of 3 spans each; returns the body and its ids."""
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.append(_kv("service.name", "load-test"))
    scope = resource_spans.scope_spans.add()
    ids: list[tuple[str, str]] = []
    for _ in range(traces):
        trace_id = rng.randbytes(16)
        root_id, chat_id, tool_id = rng.randbytes(8), rng.randbytes(8), rng.randbytes(8)
        start = base_ns + rng.randrange(10**12)
        question = f"question {rng.randrange(10**6)}"
        specs = [
            (
                tool_id,
                root_id,
                "execute_tool lookup",
                [
                    ("gen_ai.operation.name", "execute_tool"),
                    ("gen_ai.tool.name", "lookup"),
                    ("gen_ai.tool.call.arguments", json.dumps({"q": question})),
                ],
            ),
            (
                chat_id,
                root_id,
                "chat gpt-4o",
                [
                    ("gen_ai.operation.name", "chat"),
                    ("gen_ai.request.model", "gpt-4o"),
                    ("gen_ai.usage.input_tokens", 50),
                    ("gen_ai.usage.output_tokens", 20),
                    (
                        "gen_ai.output.messages",
                        json.dumps(
                            [
                                {
                                    "role": "assistant",
                                    "parts": [{"type": "text", "content": "the answer"}],
                                }
                            ]
                        ),
                    ),
                ],
            ),
            (
                root_id,
                b"",
                "invoke_agent bot",
                [("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "bot")],
            ),
        ]
        for span_id, parent, name, attrs in specs:
            span = scope.spans.add()
            span.trace_id, span.span_id, span.parent_span_id = trace_id, span_id, parent
            span.name, span.kind = name, 1
            span.start_time_unix_nano, span.end_time_unix_nano = start, start + 1_000_000
            span.attributes.extend(_kv(k, v) for k, v in attrs)
            ids.append((trace_id.hex(), span_id.hex()))
    return request.SerializeToString(), ids
