"""OTLP protocol behaviour: content types, compression bounds, status codes."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from fastapi.testclient import TestClient
from google.rpc import error_details_pb2, status_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from receivers.otlp.decode import decode_traces_json, decode_traces_protobuf
from receivers.otlp.export import ExportOutcome, SinkOverloaded, SinkUnavailable, handle_http_export
from receivers.otlp.grpc_service import build_server
from tests.support.fixtures import FIXTURES

PB = {"content-type": "application/x-protobuf"}
JS = {"content-type": "application/json"}


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


@pytest.fixture
def otlp(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(evaluate_on_ingest=False, otlp_grpc=False, otlp_max_body_bytes=64 * 1024)


def test_protobuf_answer_is_protobuf(otlp: TestClient) -> None:
    r = otlp.post("/v1/traces", content=fixture("pydantic_ai/tools_ok.pb"), headers=PB)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/x-protobuf"
    response = trace_service_pb2.ExportTraceServiceResponse.FromString(r.content)
    assert not response.HasField("partial_success")


def test_json_with_charset_parameter(otlp: TestClient) -> None:
    r = otlp.post(
        "/v1/traces",
        content=fixture("pydantic_ai/tools_ok.json"),
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert r.status_code == 200
    assert r.json()["iris"]["accepted"] == 5


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "x-gzip"])
def test_compressed_bodies(otlp: TestClient, encoding: str) -> None:
    raw = fixture("pydantic_ai/tools_ok.pb")
    body = zlib.compress(raw) if encoding == "deflate" else gzip.compress(raw)
    r = otlp.post("/v1/traces", content=body, headers={**PB, "content-encoding": encoding})
    assert r.status_code == 200, r.content


def test_raw_deflate(otlp: TestClient) -> None:
    raw = fixture("pydantic_ai/tools_ok.pb")
    compressor = zlib.compressobj(wbits=-15)
    body = compressor.compress(raw) + compressor.flush()
    r = otlp.post("/v1/traces", content=body, headers={**PB, "content-encoding": "deflate"})
    assert r.status_code == 200


def test_zip_bomb_is_refused_not_expanded(otlp: TestClient) -> None:
    bomb = gzip.compress(b"\0" * (50 * 1024 * 1024))  # 50 MiB of zeros, ~50 KB on the wire
    assert len(bomb) < 64 * 1024
    r = otlp.post("/v1/traces", content=bomb, headers={**PB, "content-encoding": "gzip"})
    assert r.status_code == 413
    status = status_pb2.Status.FromString(r.content)
    assert "limit" in status.message


def test_body_over_cap_is_413(otlp: TestClient) -> None:
    r = otlp.post("/v1/traces", content=b"x" * (65 * 1024), headers=JS)
    assert r.status_code == 413


def test_other_content_types_are_415_naming_both(otlp: TestClient) -> None:
    r = otlp.post("/v1/traces", content=b"hello", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    message = r.json()["message"]
    assert "application/x-protobuf" in message and "application/json" in message


def test_unknown_content_encoding_is_415(otlp: TestClient) -> None:
    r = otlp.post("/v1/traces", content=b"x", headers={**PB, "content-encoding": "br"})
    assert r.status_code == 415
    assert "gzip" in status_pb2.Status.FromString(r.content).message


def test_undecodable_protobuf_is_400_with_status(otlp: TestClient) -> None:
    r = otlp.post("/v1/traces", content=b"\x0a\xff\xff\xff\xff\x0fgarbage", headers=PB)
    assert r.status_code == 400
    status = status_pb2.Status.FromString(r.content)
    assert status.code == 3 and status.message


def test_corrupt_gzip_is_400(otlp: TestClient) -> None:
    r = otlp.post(
        "/v1/traces", content=b"\x1f\x8bnot gzip", headers={**PB, "content-encoding": "gzip"}
    )
    assert r.status_code == 400


def test_bad_json_is_400_naming_the_path(otlp: TestClient) -> None:
    body = {"resourceSpans": [{"scopeSpans": [{"spans": "not a list"}]}]}
    r = otlp.post("/v1/traces", content=json.dumps(body).encode(), headers=JS)
    assert r.status_code == 400
    assert "resourceSpans[0].scopeSpans[0].spans" in r.json()["message"]


def test_partial_success_names_the_rejected_spans(otlp: TestClient) -> None:
    doc = json.loads(fixture("pydantic_ai/tools_ok.json"))
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[0]["spanId"] = ""
    r = otlp.post("/v1/traces", content=json.dumps(doc).encode(), headers=JS)
    assert r.status_code == 200
    partial = r.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "1"
    assert "span" in partial["errorMessage"].lower()
    assert r.json()["iris"]["accepted"] == 4


def test_the_writer_process_refuses_and_partly_accepts_as_the_in_process_writer(
    make_client: Callable[..., TestClient],
) -> None:
    """IRIS_WRITER_PROCESS: a bad body is still a 400 naming where it broke,
    and rejected spans still come back as partial success."""
    client = make_client(evaluate_on_ingest=False, otlp_grpc=False, writer_process=True)
    r = client.post("/v1/traces", content=b"\x0a\xff\xff\xff\xff\x0fgarbage", headers=PB)
    assert r.status_code == 400
    assert status_pb2.Status.FromString(r.content).code == 3
    request = trace_service_pb2.ExportTraceServiceRequest.FromString(
        fixture("pydantic_ai/tools_ok.pb")
    )
    request.resource_spans[0].scope_spans[0].spans[0].span_id = b""
    r = client.post("/v1/traces", content=request.SerializeToString(), headers=PB)
    assert r.status_code == 200
    answer = trace_service_pb2.ExportTraceServiceResponse.FromString(r.content)
    assert answer.partial_success.rejected_spans == 1
    assert "spanId" in answer.partial_success.error_message
    request.resource_spans[0].scope_spans[0].spans.pop(0)  # nothing left to reject
    r = client.post("/v1/traces", content=request.SerializeToString(), headers=PB)
    assert r.status_code == 200 and r.content == b""
    traces = client.get("/api/v1/traces").json()["traces"]
    assert len(traces) == 1 and traces[0]["span_count"] == len(
        request.resource_spans[0].scope_spans[0].spans
    )


def test_metrics_are_accepted_and_discarded(otlp: TestClient) -> None:
    assert otlp.post("/v1/metrics", content=b"", headers=PB).status_code == 200
    assert otlp.post("/v1/metrics", content=b"{}", headers=JS).json() == {}


def test_otlp_routes_take_post_only(otlp: TestClient) -> None:
    for path in ("/v1/traces", "/v1/logs", "/v1/metrics"):
        r = otlp.get(path)
        assert r.status_code == 405 and r.headers["allow"] == "POST"
        assert "POST" in r.json()["message"]


def test_otlp_routes_are_in_the_openapi_document(otlp: TestClient) -> None:
    paths = otlp.get("/api/openapi.json").json()["paths"]
    for path in ("/v1/traces", "/v1/logs", "/v1/metrics"):
        assert "application/x-protobuf" in paths[path]["post"]["requestBody"]["content"]
    assert "/api/v1/traces" in paths  # FastAPI's own routes are still there


def test_otlp_routes_need_the_api_key_and_carry_security_headers(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(api_key="k3y", evaluate_on_ingest=False, otlp_grpc=False)
    body = fixture("pydantic_ai/multi_turn_part1.pb")
    assert client.post("/v1/traces", content=body, headers=PB).status_code == 401
    ok = client.post("/v1/traces", content=body, headers={**PB, "Authorization": "Bearer k3y"})
    assert ok.status_code == 200 and ok.headers["x-content-type-options"] == "nosniff"


def test_a_chunked_body_over_the_cap_is_413_before_it_is_read_whole(otlp: TestClient) -> None:
    def chunks() -> Any:
        for _ in range(100):
            yield b"x" * 4096  # 400 KiB against a 64 KiB cap, no content-length

    r = otlp.post("/v1/traces", content=chunks(), headers=PB)
    assert r.status_code == 413
    assert "IRIS_OTLP_MAX_BODY_BYTES" in status_pb2.Status.FromString(r.content).message


@pytest.mark.parametrize(
    ("error", "status"),
    [(SinkOverloaded("too many spans", 2), 503), (SinkUnavailable("db down", 1), 503)],
)
def test_pressure_answers_are_retryable(error: Exception, status: int) -> None:
    async def sink(_batch: Any, _n: int) -> ExportOutcome:
        raise error

    answer = asyncio.run(
        handle_http_export(
            fixture("pydantic_ai/tools_ok.pb"),
            content_type="application/x-protobuf",
            content_encoding=None,
            max_bytes=1 << 20,
            decode_protobuf=decode_traces_protobuf,
            decode_json=decode_traces_json,
            sink=sink,
        )
    )
    assert answer.status == status
    assert answer.headers["Retry-After"] in ("1", "2")


def _grpc_call(
    sink: Callable[..., Any], api_key: str | None, metadata: Any = None, body: bytes | None = None
) -> Any:
    async def main() -> Any:
        server = build_server(
            trace_sink=sink, logs_sink=sink, api_key=api_key, max_message_bytes=1 << 20
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                raw = body if body is not None else fixture("pydantic_ai/tools_ok.pb")
                # The bytes as they are (a real client's stub would refuse to send bad ones).
                export = channel.unary_unary(
                    "/opentelemetry.proto.collector.trace.v1.TraceService/Export",
                    request_serializer=None,
                    response_deserializer=trace_service_pb2.ExportTraceServiceResponse.FromString,
                )
                try:
                    return await export(raw, metadata=metadata, timeout=5)
                except grpc.aio.AioRpcError as exc:
                    return exc
        finally:
            await server.stop(None)

    return asyncio.run(main())


async def _ok_sink(batch: Any, _n: int) -> ExportOutcome:
    return ExportOutcome(accepted=len(batch.spans))


async def _full_sink(_batch: Any, _n: int) -> ExportOutcome:
    raise SinkOverloaded("queue full", 3)


def test_grpc_overload_is_resource_exhausted_with_retry_info() -> None:
    error = _grpc_call(_full_sink, None)
    assert isinstance(error, grpc.aio.AioRpcError)
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    details = dict(error.trailing_metadata() or ())["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(details)
    info = error_details_pb2.RetryInfo()
    assert status.details[0].Unpack(info)
    assert info.retry_delay.seconds == 3


def test_grpc_undecodable_body_is_invalid_argument_naming_the_offset() -> None:
    good = fixture("pydantic_ai/tools_ok.pb")
    error = _grpc_call(_ok_sink, None, body=good[: len(good) // 2])
    assert isinstance(error, grpc.aio.AioRpcError)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "offset" in (error.details() or "")


def test_grpc_bearer_auth() -> None:
    missing = _grpc_call(_ok_sink, "k3y")
    assert isinstance(missing, grpc.aio.AioRpcError)
    assert missing.code() == grpc.StatusCode.UNAUTHENTICATED
    ok = _grpc_call(_ok_sink, "k3y", metadata=(("authorization", "Bearer k3y"),))
    assert isinstance(ok, trace_service_pb2.ExportTraceServiceResponse)
