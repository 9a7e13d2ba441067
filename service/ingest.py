"""Wiring from the OTLP receivers to the storage writer (the receivers' sink).

The receivers decode; this module turns decoded spans into write jobs,
submits them to the group-commit writer and translates storage pressure into
the receivers' retryable refusals. It never evaluates.
"""

from __future__ import annotations

from typing import Any

from receivers.mapping import classify_span, group_by_trace
from receivers.otlp.decode import DecodedBatch
from receivers.otlp.export import ExportOutcome, SinkOverloaded, SinkUnavailable
from receivers.otlp.logs import DecodedLogs
from receivers.spans import SpanRecord
from service.state import ServiceState
from storage import codec
from storage.otlp import LogEventsWrite, SpanBatchWrite, TraceDelta
from storage.writer import Overloaded, StorageUnavailable

_TRUE = (True, "true", "True", "1", 1)


def service_name(resource: dict[str, Any]) -> str | None:
    name = resource.get("service.name")
    if isinstance(name, str) and name and not name.startswith("unknown_service"):
        return name
    return None


def span_row(record: SpanRecord, iris_kind: str, tenant_id: str, now: Any) -> dict[str, Any]:
    return {
        "tenant_id": tenant_id,
        "trace_id": record.trace_id,
        "span_id": record.span_id,
        "parent_span_id": record.parent_span_id,
        "name": record.name[:512],
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
        "received_at": now,
    }


def build_deltas(spans: list[SpanRecord], tenant_id: str, now: Any) -> list[TraceDelta]:
    deltas = []
    for trace_id, records in group_by_trace(spans).items():
        rows = [span_row(r, classify_span(r), tenant_id, now) for r in records]
        roots = [r for r in records if not r.parent_span_id]
        finalize = any(r.attributes.get("iris.finalize") in _TRUE for r in records)
        resource = next((r.resource for r in records if r.resource), {})
        delta = TraceDelta(
            trace_id=trace_id,
            span_rows=rows,
            has_root=bool(roots),
            root_span_id=roots[0].span_id if roots else None,
            first_start=codec.ns_to_datetime(min(r.start_unix_nano for r in records) or 1),
            error=any(r.status_code == "ERROR" for r in records),
            finalize=finalize,
            service_name=service_name(resource),
        )
        deltas.append(delta)
    return deltas


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
        now = codec.utcnow()
        job = SpanBatchWrite(
            tenant_id=self.state.tenant,
            source=self.source,
            deltas=build_deltas(batch.spans, self.state.tenant, now),
            received_at=now,
            nbytes=nbytes,
        )
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


__all__ = ["OtlpSink", "build_deltas"]
