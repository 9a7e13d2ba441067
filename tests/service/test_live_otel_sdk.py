"""The real OpenTelemetry Python SDK, with its OTLP exporters, against ``iris serve``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter as GrpcExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter as HttpExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import Status, StatusCode

from tests.support.live import LiveServer, live_server

pytestmark = pytest.mark.slow


def run_agent(exporter: SpanExporter, agent: str) -> str:
    """Emit one GenAI agent run with OTel GenAI attributes; return its trace id."""
    provider = TracerProvider(resource=Resource.create({"service.name": "sdk-test-app"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=50))
    tracer = provider.get_tracer("iris-test")
    messages_in = [{"role": "user", "parts": [{"type": "text", "content": "What is 6 * 7?"}]}]
    messages_out = [{"role": "assistant", "parts": [{"type": "text", "content": "6 * 7 = 42."}]}]
    with tracer.start_as_current_span(
        f"invoke_agent {agent}",
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent},
    ) as root:
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 30,
                "gen_ai.usage.output_tokens": 8,
                "gen_ai.input.messages": json.dumps(messages_in),
                "gen_ai.output.messages": json.dumps(messages_out),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool calculator",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "calculator",
                "gen_ai.tool.call.arguments": json.dumps({"expression": "6*7"}),
                "gen_ai.tool.call.result": "42",
            },
        ) as tool:
            tool.set_status(Status(StatusCode.OK))
        trace_id = format(root.get_span_context().trace_id, "032x")
    provider.force_flush()
    provider.shutdown()
    return trace_id


def detail_done(detail: dict[str, Any]) -> bool:
    return bool(detail["evals"])


def wait_for_trace(server: LiveServer, trace_id: str, timeout: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = httpx.get(f"{server.url}/api/v1/traces/{trace_id}", timeout=5)
        trace = r.json()["trace"] if r.status_code == 200 else {}
        if trace.get("status") == "ready" and trace.get("derived") and detail_done(r.json()):
            return dict(r.json())
        time.sleep(0.1)
    raise AssertionError(f"trace {trace_id} never became ready")


def test_sdk_http_and_grpc_exporters(tmp_path: Path, db_url: str) -> None:
    with live_server(tmp_path / "home", db_url, IRIS_ASSEMBLY_GRACE_MS="200") as server:
        http_id = run_agent(HttpExporter(endpoint=f"{server.url}/v1/traces"), "http-agent")
        grpc_id = run_agent(
            GrpcExporter(endpoint=f"127.0.0.1:{server.grpc_port}", insecure=True), "grpc-agent"
        )
        for trace_id, agent, source in (
            (http_id, "http-agent", "otlp"),
            (grpc_id, "grpc-agent", "otlp-grpc"),
        ):
            detail = wait_for_trace(server, trace_id)
            trace = detail["trace"]
            assert trace["agent_name"] == agent
            assert trace["source"] == source
            assert trace["input"] == "What is 6 * 7?"
            assert trace["output"] == "6 * 7 = 42."
            assert trace["token_usage"]["prompt_tokens"] == 30
            assert [c["tool_name"] for c in trace["tool_calls"]] == ["calculator"]
            assert trace["tool_calls"][0]["input"] == {"expression": "6*7"}
            assert len(detail["spans"]) == 3
            verdict = detail["evals"][0]["verdict"]
            assert verdict["state"] in ("pass", "fail", "unknown")
            assert detail["trace"]["score"] == detail["evals"][0]["score"]
