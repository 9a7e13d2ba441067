"""The assembler daemon: turns open OTLP traces into ready ones.

Every sweep finds traces that are due (see :mod:`storage.assembly`),
re-derives those whose stored fields lag behind their spans (the trace came
in several requests, or log events arrived), marks them ready and — when
evaluation on ingest is on — queues one evaluation job per (trace, revision)
in the same transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine

from receivers.mapping import derive_trace
from receivers.otlp.logs import LogEvent, attach_log_events
from receivers.spans import SpanEventRecord, SpanRecord
from service.ingest import derived_fields
from service.settings import Settings
from storage import assembly, codec

log = logging.getLogger("iris.assembler")


def record_from_row(row: Any) -> SpanRecord:
    return SpanRecord(
        trace_id=row.trace_id,
        span_id=row.span_id,
        name=row.name,
        parent_span_id=row.parent_span_id,
        kind=row.kind,
        start_unix_nano=row.start_unix_nano,
        end_unix_nano=row.end_unix_nano,
        status_code=row.status_code,
        status_message=row.status_message,
        attributes=row.attributes or {},
        events=[
            SpanEventRecord(e["name"], int(e.get("time_unix_nano") or 0), e.get("attributes") or {})
            for e in row.events or []
        ],
        resource=row.resource or {},
        scope_name=row.scope_name,
    )


def _wants_evaluation(settings: Settings, evaluate: bool | None) -> bool:
    return evaluate if evaluate is not None else settings.evaluate_on_ingest


def sweep_once(engine: Engine, settings: Settings, *, limit: int = 500) -> int:
    """One pass; returns how many traces became ready."""
    now = codec.utcnow()
    ready = 0
    with engine.begin() as conn:
        due = assembly.due_traces(
            conn,
            now=now,
            grace=timedelta(milliseconds=settings.assembly_grace_ms),
            idle=timedelta(milliseconds=settings.assembly_idle_ms),
            limit=limit,
        )
        for item in due:
            evaluate, eval_type = item.evaluate, item.eval_type
            if not item.derived:
                records = [
                    record_from_row(r)
                    for r in assembly.stored_spans(conn, item.tenant_id, item.trace_id)
                ]
                events = [
                    LogEvent(
                        e.trace_id, e.span_id, e.name, e.time_unix_nano, e.attributes or {}, e.body
                    )
                    for e in assembly.stored_log_events(conn, item.tenant_id, item.trace_id)
                ]
                if events:
                    attach_log_events(records, events)
                if not records:
                    continue
                derived = derive_trace(records)
                evaluate, eval_type = derived.evaluate, derived.eval_type
                assembly.save_derivation(
                    conn,
                    item,
                    derived_fields(derived, now=now),
                    {"evaluate": evaluate, "eval_type": eval_type, "lacked": list(derived.lacked)},
                )
            item = assembly.DueTrace(
                item.tenant_id,
                item.trace_id,
                True,
                item.last_span_at,
                item.revision,
                evaluate,
                eval_type,
            )
            if assembly.mark_ready(
                conn, item, now=now, enqueue=_wants_evaluation(settings, evaluate)
            ):
                ready += 1
    return ready


class Assembler:
    def __init__(self, engine: Engine, settings: Settings):
        self.engine = engine
        self.settings = settings
        self.interval_s = max(0.05, min(settings.assembly_grace_ms / 4000, 0.5))
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self.readied = 0

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="iris-assembler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def wake(self) -> None:
        self._wake.set()

    async def _run(self) -> None:
        while True:
            try:
                while True:
                    done = await asyncio.to_thread(sweep_once, self.engine, self.settings)
                    self.readied += done
                    if done < 500:
                        break
            except Exception:
                log.exception("assembler sweep failed; retrying")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval_s)
