"""OTLP/gRPC receiver: ``TraceService/Export`` and ``LogsService/Export``.

Same semantics as the HTTP receiver through the same injected sinks:
``INVALID_ARGUMENT`` for data that cannot be used, ``RESOURCE_EXHAUSTED``
with a ``google.rpc.RetryInfo`` when the service is at capacity,
``UNAVAILABLE`` when storage is down, ``UNAUTHENTICATED`` without the Bearer
key when one is configured.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from receivers.otlp.decode import DecodedBatch, decode_traces_protobuf_lean
from receivers.otlp.errors import OtlpDecodeError
from receivers.otlp.export import ExportOutcome, SinkOverloaded, SinkUnavailable
from receivers.otlp.logs import DecodedLogs, decode_logs_protobuf

TraceSink = Callable[[DecodedBatch, int], Awaitable[ExportOutcome]]
LogsSink = Callable[[DecodedLogs, int], Awaitable[ExportOutcome]]


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8")).digest()


async def _abort(
    context: grpc.aio.ServicerContext[Any, Any],
    code: grpc.StatusCode,
    rpc_code: int,
    message: str,
    retry_after_s: int | None = None,
) -> None:
    status = status_pb2.Status(code=rpc_code, message=message)
    if retry_after_s is not None:
        info = error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=retry_after_s))
        detail = any_pb2.Any()
        detail.Pack(info)
        status.details.append(detail)
    context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
    await context.abort(code, message)


async def _check_auth(context: grpc.aio.ServicerContext[Any, Any], api_key: str | None) -> None:
    if api_key is None:
        return
    presented = ""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str):
            presented = value
    scheme, _, token = presented.partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        _digest(token.strip()), _digest(api_key)
    ):
        await _abort(
            context,
            grpc.StatusCode.UNAUTHENTICATED,
            code_pb2.UNAUTHENTICATED,
            "send metadata authorization: Bearer <IRIS_API_KEY>",
        )


async def _run_sink(
    context: grpc.aio.ServicerContext[Any, Any], call: Awaitable[ExportOutcome]
) -> ExportOutcome:
    try:
        return await call
    except SinkOverloaded as exc:
        await _abort(
            context,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            code_pb2.RESOURCE_EXHAUSTED,
            f"service at capacity: {exc.reason}",
            exc.retry_after_s,
        )
    except SinkUnavailable as exc:
        await _abort(
            context,
            grpc.StatusCode.UNAVAILABLE,
            code_pb2.UNAVAILABLE,
            f"storage unavailable: {exc.reason}",
            exc.retry_after_s,
        )
    raise AssertionError("unreachable: abort raises")


class TraceReceiver:
    """``TraceService/Export``, handed the request's raw bytes (see ``build_server``).

    The body is decoded by the HTTP receiver's protobuf decoder, so both
    protocols take the same path (the C span scanner reads the wire bytes)
    and an undecodable body is ``INVALID_ARGUMENT`` naming where it broke.
    """

    SERVICE = "opentelemetry.proto.collector.trace.v1.TraceService"

    def __init__(self, sink: TraceSink, api_key: str | None):
        self.sink = sink
        self.api_key = api_key

    async def Export(
        self,
        request: bytes,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> trace_service_pb2.ExportTraceServiceResponse:
        await _check_auth(context, self.api_key)
        try:
            batch = decode_traces_protobuf_lean(request)
        except OtlpDecodeError as exc:
            await _abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT, str(exc)
            )
            raise
        outcome = await _run_sink(context, self.sink(batch, len(request)))
        response = trace_service_pb2.ExportTraceServiceResponse()
        if outcome.rejected:
            response.partial_success.rejected_spans = outcome.rejected
            response.partial_success.error_message = "; ".join(outcome.reasons[:20])
        return response


class LogsReceiver(logs_service_pb2_grpc.LogsServiceServicer):
    def __init__(self, sink: LogsSink, api_key: str | None):
        self.sink = sink
        self.api_key = api_key

    async def Export(
        self,
        request: logs_service_pb2.ExportLogsServiceRequest,
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> logs_service_pb2.ExportLogsServiceResponse:
        await _check_auth(context, self.api_key)
        raw = request.SerializeToString()
        try:
            decoded = decode_logs_protobuf(raw)
        except OtlpDecodeError as exc:
            await _abort(
                context, grpc.StatusCode.INVALID_ARGUMENT, code_pb2.INVALID_ARGUMENT, str(exc)
            )
            raise
        await _run_sink(context, self.sink(decoded, len(raw)))
        return logs_service_pb2.ExportLogsServiceResponse()


def build_server(
    *,
    trace_sink: TraceSink,
    logs_sink: LogsSink,
    api_key: str | None,
    max_message_bytes: int,
) -> grpc.aio.Server:
    """A gRPC server with both receivers; the caller binds a port and starts it."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", 4 * 1024 * 1024),
        ],
    )
    traces = TraceReceiver(trace_sink, api_key)
    # No request deserializer: Export gets the bytes as they arrived.
    handler = grpc.unary_unary_rpc_method_handler(
        traces.Export,
        response_serializer=trace_service_pb2.ExportTraceServiceResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(TraceReceiver.SERVICE, {"Export": handler}),)
    )
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(
        LogsReceiver(logs_sink, api_key), server
    )
    return server
