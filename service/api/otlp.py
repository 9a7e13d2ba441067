"""OTLP/HTTP on the API port: ``/v1/traces``, ``/v1/logs``, ``/v1/metrics``.

These three routes take every exporter's traffic, so they are served by a
plain ASGI layer in front of FastAPI's router (:class:`OtlpHttpRoutes`):
FastAPI's request handling (routing, ``Request``, dependency solving,
``Response``) cost about a sixth of the receiving thread's time per export.
Authentication and the security headers still apply: the layer sits inside
``SecurityMiddleware``. The routes are listed in the OpenAPI document all the
same (:data:`OPENAPI_PATHS`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from receivers.otlp.decode import decode_traces_json
from receivers.otlp.export import (
    JSON,
    PROTOBUF,
    Decoder,
    HttpAnswer,
    handle_http_export,
    media_type,
    status_answer,
)
from receivers.otlp.logs import decode_logs_json, decode_logs_protobuf
from service.api.http import too_large
from service.ingest import OtlpSink, decode_otlp_protobuf
from service.security import ASGIApp, Receive, Scope, Send
from service.state import ServiceState

MAX_SETTING = "IRIS_OTLP_MAX_BODY_BYTES"


@dataclass(frozen=True)
class ExportRoute:
    """One OTLP signal: its decoders, the sink method, the response message."""

    signal: str
    decode_protobuf: Decoder[Any]
    decode_json: Decoder[Any]
    sink: Callable[[OtlpSink], Callable[[Any, int], Awaitable[Any]]]
    response_type: type[Message]


EXPORTS: dict[str, ExportRoute] = {
    "/v1/traces": ExportRoute(
        "traces",
        decode_otlp_protobuf,
        decode_traces_json,
        lambda sink: sink.traces,
        ExportTraceServiceResponse,
    ),
    "/v1/logs": ExportRoute(
        "logs",
        decode_logs_protobuf,
        decode_logs_json,
        lambda sink: sink.logs,
        ExportLogsServiceResponse,
    ),
}
METRICS_PATH = "/v1/metrics"
PATHS = frozenset({*EXPORTS, METRICS_PATH})


class BodyTooLarge(Exception):
    """The request body passed the configured cap (the answer is a 413)."""


class ClientGone(Exception):
    """The client disconnected before its body arrived; nothing to answer."""


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


async def read_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """The whole body, refused (``BodyTooLarge``) before more than ``limit`` bytes are held."""
    declared = _header(scope, b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyTooLarge
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def _drain(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect" or not message.get("more_body", False):
            return


async def export(
    state: ServiceState, route: ExportRoute, scope: Scope, receive: Receive
) -> HttpAnswer:
    """One OTLP/HTTP export: a bounded body, then the receivers' protocol handling."""
    content_type = _header(scope, b"content-type")
    limit = state.settings.otlp_max_body_bytes
    try:
        body = await read_body(scope, receive, limit)
    except BodyTooLarge:
        media = PROTOBUF if media_type(content_type) == PROTOBUF else JSON
        refusal = too_large(limit, MAX_SETTING)
        return status_answer(413, 3, f"{refusal.message} {' '.join(refusal.recovery)}", media)
    return await handle_http_export(
        body,
        content_type=content_type,
        content_encoding=_header(scope, b"content-encoding"),
        max_bytes=limit,
        decode_protobuf=route.decode_protobuf,
        decode_json=route.decode_json,
        sink=route.sink(OtlpSink(state, "otlp")),
        response_type=route.response_type,
    )


async def _respond(send: Send, answer: HttpAnswer) -> None:
    headers = [
        (b"content-type", answer.media_type.encode()),
        (b"content-length", str(len(answer.body)).encode()),
    ]
    headers.extend((k.lower().encode(), v.encode()) for k, v in answer.headers.items())
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body})


class OtlpHttpRoutes:
    """Serve ``PATHS`` here; hand every other request to ``app`` (FastAPI)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path") if scope["type"] == "http" else None
        if path not in PATHS:
            await self.app(scope, receive, send)
            return
        if scope["method"] != "POST":
            answer = status_answer(405, 12, f"{path} takes POST only", JSON)
            answer.headers["Allow"] = "POST"
            await _respond(send, answer)
            return
        if path == METRICS_PATH:
            # Metrics are not Iris's business: accepted (so exporters stay quiet), discarded.
            await _drain(receive)
            is_pb = media_type(_header(scope, b"content-type")) == PROTOBUF
            await _respond(
                send, HttpAnswer(200, PROTOBUF if is_pb else JSON, b"" if is_pb else b"{}")
            )
            return
        state: ServiceState = scope["app"].state.iris
        try:
            answer = await export(state, EXPORTS[path], scope, receive)
        except ClientGone:
            return
        await _respond(send, answer)


def _openapi_operation(summary: str, description: str) -> dict[str, Any]:
    body = {"schema": {"type": "string", "format": "binary"}}
    return {
        "post": {
            "tags": ["otlp"],
            "summary": summary,
            "description": description,
            "requestBody": {
                "required": True,
                "content": {PROTOBUF: body, JSON: {"schema": {"type": "object"}}},
            },
            "responses": {
                "200": {"description": "Stored (with partialSuccess when some were rejected)"},
                "400": {"description": "Undecodable body (a google.rpc.Status naming where)"},
                "413": {"description": f"Body over {MAX_SETTING}"},
                "415": {"description": "Content-Type or Content-Encoding not accepted"},
                "503": {"description": "At capacity or storage down; retry after Retry-After"},
            },
        }
    }


# The three routes in the OpenAPI document (FastAPI does not see them).
OPENAPI_PATHS: dict[str, Any] = {
    "/v1/traces": _openapi_operation(
        "OTLP/HTTP trace export",
        "ExportTraceServiceRequest as protobuf or OTLP/JSON, gzip or deflate; "
        "answered after the spans are committed.",
    ),
    "/v1/logs": _openapi_operation(
        "OTLP/HTTP log export",
        "GenAI events sent as log records; their content joins the spans they belong to.",
    ),
    METRICS_PATH: _openapi_operation("OTLP/HTTP metrics export", "Accepted and discarded."),
}
