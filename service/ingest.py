"""Wiring from the OTLP receivers to the storage writer (the receivers' sink).

The receivers decode; this module turns decoded spans into write jobs,
submits them to the group-commit writer and translates storage pressure into
the receivers' retryable refusals. It never evaluates.
"""

from __future__ import annotations

from typing import Any

from receivers.conventions import precedence as P
from receivers.mapping import classify_span, finalize_requested
from receivers.otlp.decode import (
    INGEST_ATTRIBUTE_KEYS,
    DecodedBatch,
    decode_traces_protobuf_lean,
)
from receivers.otlp.export import ExportOutcome, SinkOverloaded, SinkUnavailable
from receivers.otlp.logs import DecodedLogs
from receivers.spans import SpanRecord
from service.state import ServiceState
from storage import codec
from storage.otlp import LogEventsWrite, SpanBatchWrite, TraceDelta
from storage.spans import OtlpPieceBuilder, json_piece, resource_hash
from storage.writer import Overloaded, StorageUnavailable


def service_name(resource: dict[str, Any]) -> str | None:
    name = resource.get("service.name")
    if isinstance(name, str) and name and not name.startswith("unknown_service"):
        return name
    return None


def json_span(record: SpanRecord, iris_kind: str) -> dict[str, Any]:
    """A decoded JSON span as stored (``storage.spans.JSON_SPAN_KEYS``)."""
    return {
        "span_id": record.span_id,
        "parent_span_id": record.parent_span_id,
        "name": record.name,
        "kind": record.kind,
        "iris_kind": iris_kind,
        "status_code": record.status_code,
        "status_message": record.status_message,
        "start_unix_nano": record.start_unix_nano,
        "end_unix_nano": record.end_unix_nano,
        "attributes": record.attributes,
        "events": [
            {"name": e.name, "time_unix_nano": e.time_unix_nano, "attributes": e.attributes}
            for e in record.events
        ]
        or None,
        "resource": record.resource or None,
        "scope_name": record.scope_name,
    }


# (span name, OTLP kind, ingest attributes) -> (Iris kind, finalize requested).
# A span's classification depends on nothing else (INGEST_ATTRIBUTE_KEYS are
# the attributes it reads), and an exporter sends few distinct combinations
# (operation × span name), so the convention tables are consulted once per
# combination, not once per span.
_SPAN_FACTS: dict[tuple[Any, ...], tuple[str, bool]] = {}
SPAN_FACTS_MAX = 4096
# Of those attributes, the tool and model-request markers matter by presence
# alone (``classify_span`` asks whether one is there, never what it says), so
# the memo keys them by name. Keyed by value, every tool span was a miss: its
# call id, arguments and result are its own.
PRESENCE_KEYS: frozenset[str] = frozenset(P.TOOL_MARKERS) | frozenset(P.MODEL_REQUEST_MARKERS)


def span_facts(record: SpanRecord) -> tuple[str, bool]:
    """``(classify_span(record), finalize_requested(record))``, memoised.

    The memo key is built in a plain loop: as a list comprehension (a
    function call of its own in this Python) it cost about as much again."""
    wanted, presence = INGEST_ATTRIBUTE_KEYS, PRESENCE_KEYS
    key: list[Any] = [record.name, record.kind]
    for k, v in record.attributes.items():
        if k in wanted:
            key.append(k if k in presence else (k, v))
    try:
        memo_key = tuple(key)
        known = _SPAN_FACTS.get(memo_key)
    except TypeError:  # an unhashable value (array, key-value list): not memoised
        return classify_span(record), finalize_requested(record)
    if known is None:
        if len(_SPAN_FACTS) >= SPAN_FACTS_MAX:
            _SPAN_FACTS.clear()
        known = _SPAN_FACTS[memo_key] = (classify_span(record), finalize_requested(record))
    return known


def build_deltas(
    spans: list[SpanRecord],
    otlp: list[tuple[bytes, str | None, bytes]] | None = None,
) -> list[TraceDelta]:
    """One ``TraceDelta`` per trace of a request, its spans in one piece per
    resource; ``otlp`` gives each span's wire bytes, its resource's
    hash (see ``shared_resources``) and its scope's bytes."""
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(spans):
        groups.setdefault(r.trace_id, []).append(i)
    deltas = []
    for trace_id, indexes in groups.items():
        builders: dict[str | None, OtlpPieceBuilder] = {}
        json_spans: list[dict[str, Any]] = []
        root_span_id = None
        first: int | None = None
        error = finalize = False
        resource: dict[str, Any] = {}
        for i in indexes:
            r = spans[i]
            iris_kind, finalizes = span_facts(r)
            if otlp is not None:
                span_bytes, key, scope = otlp[i]
                builder = builders.get(key)
                if builder is None:
                    builder = builders[key] = OtlpPieceBuilder(key)
                builder.add(r.span_id, iris_kind, scope, span_bytes)
            else:
                json_spans.append(json_span(r, iris_kind))
            if not r.parent_span_id and root_span_id is None:
                root_span_id = r.span_id
            start = r.start_unix_nano
            if first is None or start < first:
                first = start
            if r.status_code == "ERROR":
                error = True
            if finalizes:
                finalize = True
            if not resource and r.resource:
                resource = r.resource
        deltas.append(
            TraceDelta(
                trace_id=trace_id,
                pieces=[json_piece(json_spans)]
                if json_spans
                else [b.piece() for b in builders.values()],
                has_root=root_span_id is not None,
                root_span_id=root_span_id,
                first_start=codec.ns_to_datetime_floor(first or 1),
                error=error,
                finalize=finalize,
                service_name=service_name(resource),
            )
        )
    return deltas


def jobs_for_batch(batch: DecodedBatch, tenant_id: str, source: str, nbytes: int) -> SpanBatchWrite:
    """The write job for one decoded export request."""
    now = codec.utcnow()
    otlp, resources = shared_resources(batch.otlp)
    return SpanBatchWrite(
        tenant_id=tenant_id,
        source=source,
        deltas=build_deltas(batch.spans, otlp),
        received_at=now,
        nbytes=nbytes,
        resources=resources,
    )


def shared_resources(
    otlp: list[tuple[bytes, bytes, bytes]] | None,
) -> tuple[list[tuple[bytes, str | None, bytes]] | None, dict[str, bytes]]:
    """Replace each span's resource bytes by their hash; the distinct resources.

    The spans of one ``ResourceSpans`` share one bytes object, so each
    resource is hashed once per request, not once per span."""
    if otlp is None:
        return None, {}
    keys: dict[bytes, str | None] = {}
    for _, raw, _ in otlp:
        if raw not in keys:
            keys[raw] = resource_hash(raw) if raw else None
    resources = {key: raw for raw, key in keys.items() if key is not None}
    return [(span_bytes, keys[raw], scope) for span_bytes, raw, scope in otlp], resources


# The protobuf decoder of the ingest path (records carry wire bytes).
decode_otlp_protobuf = decode_traces_protobuf_lean


class OtlpSink:
    """The sink both OTLP receivers write through (HTTP and gRPC)."""

    def __init__(self, state: ServiceState, source: str):
        self.state = state
        self.source = source

    async def traces(self, batch: DecodedBatch, nbytes: int) -> ExportOutcome:
        if not batch.spans:
            return ExportOutcome(
                rejected=batch.rejected_spans, reasons=batch.rejection_reasons, evaluation="none"
            )
        job = jobs_for_batch(batch, self.state.tenant, self.source, nbytes)
        stored = await self._submit(job)
        return ExportOutcome(
            accepted=len(batch.spans),
            rejected=batch.rejected_spans,
            reasons=batch.rejection_reasons,
            stored_traces=list(stored),
            evaluation=self._evaluation_mode(),
        )

    async def logs(self, decoded: DecodedLogs, nbytes: int) -> ExportOutcome:
        now = codec.utcnow()
        rows = [
            {
                "tenant_id": self.state.tenant,
                "trace_id": e.trace_id,
                "span_id": e.span_id,
                "name": e.name[:256],
                "time_unix_nano": e.time_unix_nano,
                "attributes": e.attributes,
                "body": e.body,
                "received_at": now,
            }
            for e in decoded.events
        ]
        if rows:
            await self._submit(
                LogEventsWrite(
                    tenant_id=self.state.tenant, rows=rows, received_at=now, nbytes=nbytes
                )
            )
        outcome = ExportOutcome(accepted=len(rows), evaluation=self._evaluation_mode())
        outcome.stored_traces = sorted({r["trace_id"] for r in rows})
        return outcome

    def _evaluation_mode(self) -> str:
        return "queued" if self.state.settings.evaluate_on_ingest else "off"

    async def _submit(self, job: Any) -> Any:
        try:
            return await self.state.writer.submit(job)
        except Overloaded as exc:
            raise SinkOverloaded(exc.reason, exc.retry_after_s) from None
        except StorageUnavailable as exc:
            raise SinkUnavailable(str(exc)) from None


__all__ = ["OtlpSink", "build_deltas", "decode_otlp_protobuf", "jobs_for_batch"]
