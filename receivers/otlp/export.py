"""OTLP export semantics shared by the HTTP and gRPC receivers.

A receiver decodes a request into a :class:`DecodedBatch` and hands it to an
injected *sink* (the service wires the storage writer in). This module never
touches a database: it owns only what the OTLP specification says about
content types, compression, status codes, partial success and retry hints.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf.message import Message
from google.rpc import code_pb2, status_pb2
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from receivers.otlp.compression import decompress
from receivers.otlp.errors import BodyTooLarge, OtlpDecodeError, UnsupportedEncoding

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
ACCEPTED_TYPES = (PROTOBUF, JSON)


class SinkOverloaded(Exception):
    """The service cannot take more right now; the client should retry."""

    def __init__(self, reason: str, retry_after_s: int = 1):
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


class SinkUnavailable(Exception):
    """The store is down; nothing was written; the client should retry."""

    def __init__(self, reason: str, retry_after_s: int = 1):
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


@dataclass
class ExportOutcome:
    """What the sink reports back once the items are committed."""

    accepted: int = 0
    rejected: int = 0
    reasons: list[str] = field(default_factory=list)
    stored_traces: list[str] = field(default_factory=list)
    evaluation: str = "queued"


Batch = TypeVar("Batch")
Sink = Callable[[Batch, int], Awaitable[ExportOutcome]]
Decoder = Callable[[bytes], Batch]


@dataclass
class HttpAnswer:
    status: int
    media_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def media_type(content_type: str | None) -> str:
    """``application/json; charset=utf-8`` → ``application/json``."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def status_answer(
    status: int, code: int, message: str, media: str, retry_after_s: int | None = None
) -> HttpAnswer:
    """An error body as a ``google.rpc.Status`` in the request's encoding."""
    headers = {"Retry-After": str(retry_after_s)} if retry_after_s is not None else {}
    if media == PROTOBUF:
        body = status_pb2.Status(code=code, message=message).SerializeToString()
        return HttpAnswer(status, PROTOBUF, body, headers)
    return HttpAnswer(
        status, JSON, json.dumps({"code": code, "message": message}).encode(), headers
    )


def _success_answer(
    media: str,
    rejected: int,
    reasons: list[str],
    response_type: type[Message],
    iris_block: dict[str, Any] | None,
) -> HttpAnswer:
    message = response_type()
    if rejected:
        partial = message.partial_success
        if response_type is ExportLogsServiceResponse:
            partial.rejected_log_records = rejected
        else:
            partial.rejected_spans = rejected
        partial.error_message = "; ".join(reasons[:20]) + (
            f"; and {len(reasons) - 20} more" if len(reasons) > 20 else ""
        )
    if media == PROTOBUF:
        return HttpAnswer(200, PROTOBUF, message.SerializeToString())
    doc: dict[str, Any] = {}
    if rejected:
        key = (
            "rejectedLogRecords" if response_type is ExportLogsServiceResponse else "rejectedSpans"
        )
        doc["partialSuccess"] = {
            key: str(rejected),
            "errorMessage": message.partial_success.error_message,
        }
    if iris_block is not None:
        doc["iris"] = iris_block
    return HttpAnswer(200, JSON, json.dumps(doc).encode())


async def handle_http_export(
    body: bytes,
    *,
    content_type: str | None,
    content_encoding: str | None,
    max_bytes: int,
    decode_protobuf: Decoder[Batch],
    decode_json: Decoder[Batch],
    sink: Sink[Batch],
    response_type: type[Message] = ExportTraceServiceResponse,
) -> HttpAnswer:
    """Run one OTLP/HTTP export request to its answer (OTLP spec status codes)."""
    media = media_type(content_type)
    if media not in ACCEPTED_TYPES:
        return status_answer(
            415,
            code_pb2.INVALID_ARGUMENT,
            f"unsupported Content-Type {media or '(none)'!r}; send {PROTOBUF} or {JSON}",
            JSON,
        )
    try:
        raw = decompress(body, content_encoding, max_bytes)
    except BodyTooLarge as exc:
        return status_answer(413, code_pb2.INVALID_ARGUMENT, str(exc), media)
    except UnsupportedEncoding as exc:
        return status_answer(415, code_pb2.INVALID_ARGUMENT, str(exc), media)
    except OtlpDecodeError as exc:
        return status_answer(
            400, code_pb2.INVALID_ARGUMENT, f"body does not decompress: {exc}", media
        )
    try:
        batch = decode_protobuf(raw) if media == PROTOBUF else decode_json(raw)
    except OtlpDecodeError as exc:
        return status_answer(400, code_pb2.INVALID_ARGUMENT, f"undecodable OTLP body: {exc}", media)
    try:
        outcome = await sink(batch, len(raw))
    except SinkOverloaded as exc:
        return status_answer(
            503,
            code_pb2.UNAVAILABLE,
            f"service at capacity: {exc.reason}",
            media,
            exc.retry_after_s,
        )
    except SinkUnavailable as exc:
        return status_answer(
            503,
            code_pb2.UNAVAILABLE,
            f"storage unavailable: {exc.reason}",
            media,
            exc.retry_after_s,
        )
    rejected = outcome.rejected
    reasons = outcome.reasons
    iris_block = {
        "accepted": outcome.accepted,
        "traces": outcome.stored_traces,
        "evaluation": outcome.evaluation,
    }
    return _success_answer(media, rejected, reasons, response_type, iris_block)
