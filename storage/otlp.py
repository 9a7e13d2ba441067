"""Write jobs for OTLP spans and log events: idempotent, assembling traces.

Spans of one trace arrive in several requests, children first and the root
last. Each span is stored once per (tenant, trace, span) — a retried export
is harmless — and the ``traces`` row is kept as an aggregate: span count,
root, error flag, last arrival, status (``open`` until the assembler marks it
``ready``) and a revision that moves when spans arrive after it was ready.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, ClassVar, cast

from sqlalchemy import Connection, Table, and_, bindparam, case, func, update

from storage import jsontext, tracecounts
from storage.arrival import arrival_key
from storage.fastinsert import (
    driver_bool,
    driver_datetime,
    driver_mark,
    insert_rows,
    insert_values,
)
from storage.models import LogEventRow, SpanResource, Trace
from storage.spans import BATCH_COLUMNS, SpanPiece, batch_values, span_batches, stored_span_ids
from storage.writer import WriteJob

traces = cast(Table, Trace.__table__)
log_events = cast(Table, LogEventRow.__table__)
span_resources = cast(Table, SpanResource.__table__)

_IN_CHUNK = 500


@dataclass
class TraceDelta:
    """What one request brings to one trace. The trace's content columns
    (agent, input, output, …) are derived later, by a worker, from every
    stored span; here only the aggregate facts are folded in."""

    trace_id: str
    pieces: list[SpanPiece]
    has_root: bool
    root_span_id: str | None
    first_start: datetime
    error: bool
    finalize: bool
    service_name: str | None

    def __reduce__(self) -> tuple[type[TraceDelta], tuple[Any, ...]]:
        # As SpanPiece: the constructor's arguments load faster than a dict.
        return (
            TraceDelta,
            (
                self.trace_id,
                self.pieces,
                self.has_root,
                self.root_span_id,
                self.first_start,
                self.error,
                self.finalize,
                self.service_name,
            ),
        )


@dataclass
class SpanBatchWrite(WriteJob):
    tenant_id: str
    source: str
    deltas: list[TraceDelta]
    received_at: datetime
    nbytes: int = 0
    spans: int = 0
    # Serialized OTLP resources by hash, referenced by the span rows.
    resources: dict[str, bytes] = field(default_factory=dict)
    kind: ClassVar[str] = "otlp-spans"

    def __post_init__(self) -> None:
        self.spans = sum(len(p.span_ids) for d in self.deltas for p in d.pieces)

    @classmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        batch = [j for j in jobs if isinstance(j, SpanBatchWrite)]
        by_tenant: dict[str, list[SpanBatchWrite]] = {}
        for job in batch:
            by_tenant.setdefault(job.tenant_id, []).append(job)
        new_traces = {
            tenant_id: _apply_tenant(conn, tenant_id, tenant_jobs)
            for tenant_id, tenant_jobs in by_tenant.items()
        }
        tracecounts.add_all(conn, new_traces)
        return [sorted({d.trace_id for d in j.deltas}) for j in batch]


def _chunks(items: list[str]) -> Iterable[list[str]]:
    for i in range(0, len(items), _IN_CHUNK):
        yield items[i : i + _IN_CHUNK]


@lru_cache(maxsize=64)
def _existing_sql(dialect: str, size: int) -> str:
    mark = driver_mark(dialect)
    marks = ", ".join([mark] * size)
    return (
        f'SELECT trace_id, arrival_us FROM "{traces.name}"'
        f" WHERE tenant_id = {mark} AND trace_id IN ({marks})"
    )


def existing_trace_ids(conn: Connection, tenant_id: str, trace_ids: list[str]) -> dict[str, int]:
    """Which of ``trace_ids`` have a ``traces`` row, each with its
    ``arrival_us`` (its span batches' key), asked through the driver.

    The same query as ``select(traces.c.trace_id, traces.c.arrival_us)
    .where(tenant, trace_id IN chunk)``, written once per (dialect, chunk
    size): every commit asks it, and
    SQLAlchemy spent more building, cache-keying and expanding the Core
    statement than SQLite spent answering it: one request (25 traces) per
    commit, decode to commit took 459.6k instructions a trace with it and
    424.7k without (``bench/receiver_instr.py``). Errors still come wrapped
    by SQLAlchemy (``exec_driver_sql``), as the writer classifies them."""
    found: dict[str, int] = {}
    dialect = conn.dialect.name
    for chunk in _chunks(trace_ids):
        sql = _existing_sql(dialect, len(chunk))
        for trace_id, key in conn.exec_driver_sql(sql, (tenant_id, *chunk)):
            found[trace_id] = key
    return found


# The columns of a new trace row, in the order ``_apply_tenant`` builds them.
# Content columns stay NULL until a worker derives them (derived: False).
_TRACE_COLUMNS: tuple[str, ...] = (
    "tenant_id",
    "trace_id",
    "agent_name",
    "timestamp",
    "created_at",
    "arrival_us",
    "source",
    "status",
    "revision",
    "root_span_id",
    "has_root",
    "error",
    "span_count",
    "last_span_at",
    "finalize_requested",
    "derived",
    "otel_service_name",
    "metadata",
)


def _apply_tenant(conn: Connection, tenant_id: str, jobs: list[SpanBatchWrite]) -> int:
    merged: dict[str, list[tuple[SpanBatchWrite, TraceDelta]]] = {}
    for job in jobs:
        for delta in job.deltas:
            merged.setdefault(delta.trace_id, []).append((job, delta))
    trace_ids = list(merged)

    existing_traces = existing_trace_ids(conn, tenant_id, trace_ids)
    stored = stored_span_ids(conn, tenant_id, [t for t in trace_ids if t in existing_traces])

    # Rows are built as the driver takes them (``insert_values``): each
    # request's arrival time converted once, not once per row and column.
    as_param = driver_datetime(conn.dialect.name)
    as_bool = driver_bool(conn.dialect.name)
    no = as_bool(False)
    arrivals = {id(job): as_param(job.received_at) for job in jobs}
    # A new trace's key is its first request's arrival (``storage.arrival``).
    keys = {id(job): arrival_key(job.received_at) for job in jobs}
    new_rows: list[tuple[Any, ...]] = []
    updates: list[dict[str, Any]] = []
    batch_rows: list[tuple[Any, ...]] = []
    for trace_id, pieces in merged.items():
        job0, delta0 = pieces[0]
        known_key = existing_traces.get(trace_id)
        key = keys[id(job0)] if known_key is None else known_key
        if len(pieces) == 1 and known_key is None and _distinct(delta0):
            # The common case: a trace's first spans, in one request, none
            # repeated: every piece is kept whole, no per-span walk.
            fresh = _whole_pieces(tenant_id, key, trace_id, delta0, arrivals[id(job0)], batch_rows)
        else:
            fresh = _fold_pieces(
                tenant_id, key, trace_id, pieces, stored.get(trace_id, []), arrivals, batch_rows
            )
        has_root, root_span_id, error, finalize, first_start = _trace_facts(pieces)
        if known_key is None:
            arrival = arrivals[id(job0)]
            new_rows.append(
                (
                    tenant_id,
                    trace_id,
                    delta0.service_name or "otel",
                    as_param(first_start),
                    arrival,
                    key,
                    job0.source,
                    "open",
                    1,
                    root_span_id,
                    as_bool(has_root),
                    as_bool(error),
                    fresh,
                    arrival,
                    as_bool(finalize),
                    no,
                    delta0.service_name,
                    "{}",
                )
            )
        elif fresh or finalize:
            updates.append(
                {
                    "b_trace_id": trace_id,
                    "b_count": fresh,
                    "b_has_root": has_root,
                    "b_root": root_span_id,
                    "b_error": error,
                    "b_finalize": finalize,
                    "b_now": job0.received_at,
                    "b_first": first_start,
                }
            )

    resources: dict[str, bytes] = {}
    for job in jobs:
        resources.update(job.resources)
    insert_rows(
        conn,
        span_resources,
        [
            {"tenant_id": tenant_id, "resource_hash": key, "otlp_resource": raw}
            for key, raw in resources.items()
        ],
        ignore_conflicts=True,
    )
    insert_values(conn, traces, _TRACE_COLUMNS, new_rows)
    if updates:
        _update_aggregates(conn, tenant_id, updates)
    # The batches are new as of this transaction's reads above, on both
    # databases (no OR IGNORE): another writer committing spans of the same
    # trace in between takes the same ``seq``, so this fails with a unique
    # violation and the writer retries the request, which then reads those
    # spans as stored and counts each once (``storage.writer.run_transaction``).
    insert_values(conn, span_batches, BATCH_COLUMNS, [_json_text(row) for row in batch_rows])
    return len(new_rows)


def _distinct(delta: TraceDelta) -> bool:
    """Whether no span id repeats within the delta."""
    ids = [sid for piece in delta.pieces for sid in piece.span_ids]
    return len(set(ids)) == len(ids)


def _trace_facts(
    pieces: list[tuple[SpanBatchWrite, TraceDelta]],
) -> tuple[bool, str | None, bool, bool, datetime]:
    """(has root, root span id, error, finalize, first start) of a trace's
    deltas in this write; one delta (the common case) gives its own."""
    if len(pieces) == 1:
        d = pieces[0][1]
        return d.has_root, d.root_span_id, d.error, d.finalize, d.first_start
    deltas = [d for _, d in pieces]
    return (
        any(d.has_root for d in deltas),
        next((d.root_span_id for d in deltas if d.has_root), None),
        any(d.error for d in deltas),
        any(d.finalize for d in deltas),
        min(d.first_start for d in deltas),
    )


def _whole_pieces(
    tenant_id: str,
    key: int,
    trace_id: str,
    delta: TraceDelta,
    arrival: Any,
    out: list[tuple[Any, ...]],
) -> int:
    """Append the batch rows of a new trace's pieces, each kept whole;
    returns how many spans they hold."""
    seq = 0
    for piece in delta.pieces:
        out.append(batch_values(tenant_id, key, trace_id, seq, piece, arrival))
        seq += len(piece.span_ids)
    return seq


def _fold_pieces(
    tenant_id: str,
    key: int,
    trace_id: str,
    pieces: list[tuple[SpanBatchWrite, TraceDelta]],
    known: list[str],
    arrivals: dict[int, Any],
    out: list[tuple[Any, ...]],
) -> int:
    """Append the batch rows of a trace's pieces, leaving out spans stored
    before or repeated in this write; returns how many spans are new. A
    batch's key is how many spans of its trace came before it."""
    seen = set(known)
    seq = len(known)
    fresh = 0
    for job, delta in pieces:
        for piece in delta.pieces:
            wanted = []
            for i, sid in enumerate(piece.span_ids):
                if sid not in seen:  # stored before, or twice in this write
                    seen.add(sid)
                    wanted.append(i)
            if not wanted:
                continue
            kept = piece if len(wanted) == len(piece.span_ids) else piece.keep(wanted)
            out.append(batch_values(tenant_id, key, trace_id, seq, kept, arrivals[id(job)]))
            seq += len(wanted)
            fresh += len(wanted)
    return fresh


def _json_text(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A batch row with its JSON spans (the last column) as text."""
    if row[-1] is None:
        return row
    return (*row[:-1], jsontext.dumps(row[-1]))


def _update_aggregates(conn: Connection, tenant_id: str, updates: list[dict[str, Any]]) -> None:
    """Fold late spans into existing traces: a ready trace reopens at the next revision."""
    was_ready = traces.c.status == "ready"
    stmt = (
        update(traces)
        .where(and_(traces.c.tenant_id == tenant_id, traces.c.trace_id == bindparam("b_trace_id")))
        .values(
            span_count=traces.c.span_count + bindparam("b_count"),
            has_root=traces.c.has_root | bindparam("b_has_root"),
            root_span_id=case(
                (
                    bindparam("b_has_root"),
                    func.coalesce(bindparam("b_root"), traces.c.root_span_id),
                ),
                else_=traces.c.root_span_id,
            ),
            error=traces.c.error | bindparam("b_error"),
            finalize_requested=traces.c.finalize_requested | bindparam("b_finalize"),
            last_span_at=bindparam("b_now"),
            timestamp=case(
                (bindparam("b_first") < traces.c.timestamp, bindparam("b_first")),
                else_=traces.c.timestamp,
            ),
            derived=False,
            revision=traces.c.revision + case((was_ready, 1), else_=0),
            status="open",
        )
    )
    conn.execute(stmt.execution_options(synchronize_session=False), updates)


@dataclass
class LogEventsWrite(WriteJob):
    """GenAI events from OTLP logs; their trace is re-derived when it exists."""

    tenant_id: str
    rows: list[dict[str, Any]]
    received_at: datetime
    nbytes: int = 0
    spans: int = 0
    kind: ClassVar[str] = "otlp-logs"

    def __post_init__(self) -> None:
        self.spans = len(self.rows)

    @classmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        batch = [j for j in jobs if isinstance(j, LogEventsWrite)]
        for job in batch:
            if not job.rows:
                continue
            insert_rows(conn, log_events, job.rows)
            touched = sorted({r["trace_id"] for r in job.rows})
            for chunk in _chunks(touched):
                conn.execute(
                    update(traces)
                    .where(and_(traces.c.tenant_id == job.tenant_id, traces.c.trace_id.in_(chunk)))
                    .values(
                        derived=False,
                        log_writes=traces.c.log_writes + 1,
                        last_span_at=job.received_at,
                        revision=traces.c.revision + case((traces.c.status == "ready", 1), else_=0),
                        status="open",
                    )
                )
        return [len(j.rows) for j in batch]
