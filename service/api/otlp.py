"""OTLP/HTTP routes on the API port: ``/v1/traces``, ``/v1/logs``, ``/v1/metrics``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from receivers.otlp.decode import decode_traces_json
from receivers.otlp.export import (
    PROTOBUF,
    Decoder,
    HttpAnswer,
    Sink,
    handle_http_export,
    media_type,
    status_answer,
)
from receivers.otlp.logs import decode_logs_json, decode_logs_protobuf
from service.api.http import read_body
from service.errors import IrisError
from service.ingest import OtlpSink, decode_otlp_protobuf
from service.state import ServiceState

router = APIRouter()
MAX_SETTING = "IRIS_OTLP_MAX_BODY_BYTES"


def _response(answer: HttpAnswer) -> Response:
    return Response(
        answer.body, status_code=answer.status, media_type=answer.media_type, headers=answer.headers
    )


async def _body_or_413(request: Request, limit: int) -> bytes | Response:
    try:
        return await read_body(request, limit, MAX_SETTING)
    except IrisError as exc:
        is_pb = media_type(request.headers.get("content-type")) == PROTOBUF
        return _response(
            status_answer(413, 3, exc.message, PROTOBUF if is_pb else "application/json")
        )


async def _export(
    request: Request,
    decode_protobuf: Decoder[Any],
    decode_json: Decoder[Any],
    sink: Sink[Any],
    response_type: type[Message],
) -> Response:
    """One OTLP/HTTP export: bounded body, then the receivers' protocol handling."""
    state: ServiceState = request.app.state.iris
    limit = state.settings.otlp_max_body_bytes
    body = await _body_or_413(request, limit)
    if isinstance(body, Response):
        return body
    answer = await handle_http_export(
        body,
        content_type=request.headers.get("content-type"),
        content_encoding=request.headers.get("content-encoding"),
        max_bytes=limit,
        decode_protobuf=decode_protobuf,
        decode_json=decode_json,
        sink=sink,
        response_type=response_type,
    )
    return _response(answer)


def _sink(request: Request) -> OtlpSink:
    return OtlpSink(request.app.state.iris, "otlp")


@router.post("/v1/traces")
async def export_traces(request: Request) -> Response:
    return await _export(
        request,
        decode_otlp_protobuf,
        decode_traces_json,
        _sink(request).traces,
        ExportTraceServiceResponse,
    )


@router.post("/v1/logs")
async def export_logs(request: Request) -> Response:
    return await _export(
        request,
        decode_logs_protobuf,
        decode_logs_json,
        _sink(request).logs,
        ExportLogsServiceResponse,
    )


@router.post("/v1/metrics")
async def export_metrics(request: Request) -> Response:
    """Metrics are not Iris's business: accepted (so exporters stay quiet) and discarded."""
    is_pb = media_type(request.headers.get("content-type")) == PROTOBUF
    async for _chunk in request.stream():
        pass
    return Response(b"" if is_pb else b"{}", media_type=PROTOBUF if is_pb else "application/json")
