"""Every captured framework payload, through the real receivers, into storage.

The mapping itself is tested field by field in tests/receivers; here the
question is whether what the receivers derive survives transport, splitting
across requests, any arrival order, assembly and storage unchanged.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from fastapi.testclient import TestClient
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

from receivers.mapping import derive_trace, group_by_trace
from receivers.otlp.decode import decode_traces_protobuf
from receivers.otlp.logs import attach_log_events, decode_logs_protobuf
from service.assembler import sweep_once
from service.worker import drain
from storage import codec
from tests.support.fixtures import Scenario, scenarios

SCENARIOS = scenarios()
pytestmark = pytest.mark.skipif(not SCENARIOS, reason="shared/fixtures not present")


def expected_traces(scenario: Scenario) -> dict[str, dict[str, Any]]:
    spans = [s for body in scenario.bodies("pb") for s in decode_traces_protobuf(body).spans]
    logs = scenario.logs_body("pb")
    if logs is not None:
        attach_log_events(spans, decode_logs_protobuf(logs).events)
    out = {}
    for trace_id, records in group_by_trace(spans).items():
        derived = derive_trace(records)
        fields = codec.agent_fields(derived, now=codec.utcnow())
        out[trace_id] = {
            "agent_name": derived.agent_name,
            "framework": derived.framework,
            "input": derived.input,
            "output": derived.output,
            "tool_calls": fields["tool_calls"],
            "latency_ms": derived.latency_ms,
            "session_id": derived.session_id,
            "cost_usd": derived.cost_usd,
            "token_usage": None
            if derived.token_usage is None
            else {k: v for k, v in dataclasses.asdict(derived.token_usage).items() if v is not None}
            or None,
            "span_count": len({r.span_id for r in records}),
            "timestamp": derived.timestamp,
        }
    return out


def stored(client: TestClient) -> dict[str, dict[str, Any]]:
    """Assemble and derive everything, then read the traces back.

    The app's own assembler may be sweeping at the same moment (on
    PostgreSQL it holds the rows it is readying, and our sweep skips them),
    so sweep and drain until nothing is left open or underived.
    """
    app_state = client.app.state.iris  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    while True:
        while sweep_once(app_state.engine, app_state.settings):
            pass
        drain(app_state.engine, app_state.settings)
        traces = client.get("/api/v1/traces", params={"limit": 1000}).json()["traces"]
        if (
            all(t["status"] == "ready" and t["derived"] for t in traces)
            or time.monotonic() > deadline
        ):
            return {t["trace_id"]: t for t in traces}
        time.sleep(0.05)


def assert_matches(scenario: Scenario, got: dict[str, dict[str, Any]]) -> None:
    want = expected_traces(scenario)
    assert set(got) == set(want), scenario.id
    for trace_id, fields in want.items():
        trace = got[trace_id]
        assert trace["status"] == "ready"
        assert trace["derived"] is True
        for key, value in fields.items():
            if key == "timestamp":
                assert trace[key] == (codec.iso(codec.iso_to_datetime(value)) if value else None)
            else:
                assert trace[key] == value, f"{scenario.id} {key}"
        assert trace["agent_name"] == "weather_assistant" or scenario.directory == "crewai"


@pytest.fixture
def otlp_client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(assembly_grace_ms=0, evaluate_on_ingest=False, otlp_grpc_port=0)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
@pytest.mark.parametrize("encoding", ["pb", "json"])
def test_fixture_over_http(otlp_client: TestClient, scenario: Scenario, encoding: str) -> None:
    content_type = "application/x-protobuf" if encoding == "pb" else "application/json"
    logs = scenario.logs_body(encoding)
    if logs is not None:  # event_only: content arrives as log records, here before the spans
        r = otlp_client.post("/v1/logs", content=logs, headers={"content-type": content_type})
        assert r.status_code == 200, r.text
    for body in scenario.bodies(encoding):
        r = otlp_client.post("/v1/traces", content=body, headers={"content-type": content_type})
        assert r.status_code == 200, r.text
    assert_matches(scenario, stored(otlp_client))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_fixture_over_grpc(otlp_client: TestClient, scenario: Scenario) -> None:
    port = otlp_client.app.state.grpc_port  # type: ignore[attr-defined]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = trace_service_pb2_grpc.TraceServiceStub(channel)
        for body in scenario.bodies("pb"):
            request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
            response = stub.Export(request, compression=grpc.Compression.Gzip, timeout=10)
            assert not response.partial_success.rejected_spans
        logs = scenario.logs_body("pb")
        if logs is not None:  # and here after them
            logs_stub = logs_service_pb2_grpc.LogsServiceStub(channel)
            logs_stub.Export(logs_service_pb2.ExportLogsServiceRequest.FromString(logs), timeout=10)
    assert_matches(scenario, stored(otlp_client))


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_fixture_through_the_writer_process(
    make_client: Callable[..., TestClient], scenario: Scenario
) -> None:
    """With IRIS_WRITER_PROCESS the write jobs travel pickled to the writer
    process: the traces are the same, over HTTP and over gRPC."""
    client = make_client(
        assembly_grace_ms=0, evaluate_on_ingest=False, otlp_grpc_port=0, writer_process=True
    )
    logs = scenario.logs_body("pb")
    if logs is not None:
        r = client.post(
            "/v1/logs", content=logs, headers={"content-type": "application/x-protobuf"}
        )
        assert r.status_code == 200, r.text
    bodies = scenario.bodies("pb")
    for body in bodies[: len(bodies) // 2]:
        r = client.post(
            "/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
        )
        assert r.status_code == 200, r.text
        assert r.content == b""  # no partial success: every span accepted
    port = client.app.state.grpc_port  # type: ignore[attr-defined]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = trace_service_pb2_grpc.TraceServiceStub(channel)
        for body in bodies[len(bodies) // 2 :]:
            request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
            response = stub.Export(request, timeout=10)
            assert not response.partial_success.rejected_spans
    assert_matches(scenario, stored(client))


MULTI_PART = [s for s in SCENARIOS if len(s.parts) > 1]


@pytest.mark.parametrize("scenario", MULTI_PART, ids=lambda s: s.id)
def test_shuffled_parts_give_the_same_traces(otlp_client: TestClient, scenario: Scenario) -> None:
    rng = random.Random(scenario.id)
    requests = []
    for body in scenario.bodies("pb"):
        request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
        for resource_spans in request.resource_spans:
            for scope_spans in resource_spans.scope_spans:
                spans = list(scope_spans.spans)
                rng.shuffle(spans)
                del scope_spans.spans[:]
                scope_spans.spans.extend(spans)
        requests.append(request.SerializeToString())
    requests.reverse()  # root-bearing parts first, children last
    state = otlp_client.app.state.iris  # type: ignore[attr-defined]
    for i, body in enumerate(requests):
        r = otlp_client.post(
            "/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
        )
        assert r.status_code == 200
        if i == 0:  # a trace readied early must be re-derived when the rest arrives
            sweep_once(state.engine, state.settings)
    # Sending everything again is harmless: spans are idempotent.
    for body in requests:
        otlp_client.post(
            "/v1/traces", content=body, headers={"content-type": "application/x-protobuf"}
        )
    got = stored(otlp_client)
    assert_matches(scenario, got)
