"""Storage side of trace assembly: find traces due, re-read them, mark ready.

A trace is *due* when it is open and either its root has arrived and nothing
new came for the grace period, or nothing came for the idle timeout (no root:
the orphans are kept and judged as they are), or a finalize was requested.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    Connection,
    Select,
    Table,
    and_,
    func,
    or_,
    select,
    text,
    tuple_,
    update,
)

from storage import search
from storage.fastinsert import insert_rows, update_rows
from storage.models import EvaluationJob, LogEventRow, SpanRow, Trace
from storage.spans import span_select

traces = cast(Table, Trace.__table__)
spans = cast(Table, SpanRow.__table__)
log_events = cast(Table, LogEventRow.__table__)
jobs = cast(Table, EvaluationJob.__table__)


def _due_keys(*, now: datetime, grace: timedelta, idle: timedelta, limit: int) -> Select[Any]:
    """(tenant, trace) of up to ``limit`` open traces that are due, oldest first:
    root seen and quiet for ``grace``, quiet for ``idle`` without one, or
    finalize requested."""
    return (
        select(traces.c.tenant_id, traces.c.trace_id)
        .where(
            and_(
                traces.c.status == "open",
                or_(
                    and_(traces.c.has_root.is_(True), traces.c.last_span_at <= now - grace),
                    traces.c.last_span_at <= now - idle,
                    traces.c.finalize_requested.is_(True),
                ),
            )
        )
        .order_by(traces.c.last_span_at)
        .limit(limit)
    )


def next_due(conn: Connection, *, grace: timedelta, idle: timedelta) -> datetime | None:
    """When the earliest open trace becomes due, by the rules of
    :func:`due_traces` (None: no open trace). Lets the assembler sleep exactly
    until there is work instead of sweeping on a fixed period."""
    rows = conn.execute(
        select(traces.c.has_root, traces.c.finalize_requested, func.min(traces.c.last_span_at))
        .where(traces.c.status == "open")
        .group_by(traces.c.has_root, traces.c.finalize_requested)
    )
    times = []
    for has_root, finalize, last in rows:
        if finalize:
            return datetime.min
        if last is not None:
            times.append(last + (grace if has_root else idle))
    return min(times, default=None)


_ENQUEUE_READIED = text(
    "INSERT INTO evaluation_jobs (tenant_id, trace_id, revision, eval_type, evaluate, state, "
    "attempts, created_at, updated_at) "
    "SELECT tenant_id, trace_id, revision, eval_type, "
    "(COALESCE(evaluate, :default_evaluate) AND revision <= :max_revision), "
    "'pending', 0, :now, :now FROM traces "
    "WHERE status = 'ready' AND ready_at = :marker "
    "AND ((COALESCE(evaluate, :default_evaluate) AND revision <= :max_revision) OR NOT derived) "
    "ON CONFLICT DO NOTHING"
)


def ready_due(
    conn: Connection,
    *,
    now: datetime,
    grace: timedelta,
    idle: timedelta,
    default_evaluate: bool,
    max_revision: int,
    limit: int = 500,
) -> int:
    """Mark due traces ready and queue their jobs, in bulk, in the caller's
    transaction; returns how many became ready.

    The job is queued when the trace is to be judged
    (its own ``iris.evaluate`` or the service default, within the re-evaluation
    cap) or when its fields still need deriving from its spans.
    """
    due = _due_keys(now=now, grace=grace, idle=idle, limit=limit)
    if conn.dialect.name == "postgresql":
        # Another sweeper (a second receiver) takes other traces, not these.
        due = due.with_for_update(skip_locked=True, of=traces)
    # One statement: the traces are chosen and marked in the same step, so a
    # span arriving meanwhile waits for this transaction and then reopens the
    # trace at its next revision. (Selecting first and updating trace by
    # trace cost ~30 µs of Python per readied trace in the receiving process.)
    result = conn.execute(
        update(traces)
        .where(
            and_(
                traces.c.status == "open",
                tuple_(traces.c.tenant_id, traces.c.trace_id).in_(due),
            )
        )
        .values(status="ready", ready_at=now)
        .execution_options(synchronize_session=False)
    )
    readied = max(int(result.rowcount or 0), 0)
    if not readied:
        return 0
    conn.execute(
        _ENQUEUE_READIED,
        {
            "default_evaluate": default_evaluate,
            "max_revision": max_revision,
            "now": now,
            "marker": now,
        },
    )
    return readied


def as_dicts(result: Any) -> list[dict[str, Any]]:
    """A result's rows as plain dicts.

    Without its C extension (this machine's build), a SQLAlchemy row costs
    ~1 µs per attribute read; the worker reads each of ~20 columns of every
    span and trace once or more, so it takes the values out once."""
    keys = tuple(result.keys())
    return [dict(zip(keys, row, strict=True)) for row in result]


# What deriving and judging read of a span: not its arrival time (parsing
# SQLite's datetime text costs more than the rest of a row), tenant or hash.
_DERIVED_FROM = tuple(
    c for c in spans.c if c.name not in ("received_at", "tenant_id", "resource_hash")
)


def spans_of(conn: Connection, tenant_id: str, trace_ids: list[str]) -> list[dict[str, Any]]:
    """Spans of several traces at once (chunked IN lists), as dicts of what
    deriving and judging read, with the resource bytes
    (``storage.spans.span_select``)."""
    out: list[dict[str, Any]] = []
    for i in range(0, len(trace_ids), 500):
        chunk = trace_ids[i : i + 500]
        out.extend(
            as_dicts(
                conn.execute(
                    span_select(*_DERIVED_FROM).where(
                        and_(spans.c.tenant_id == tenant_id, spans.c.trace_id.in_(chunk))
                    )
                )
            )
        )
    return out


def log_events_of(conn: Connection, tenant_id: str, trace_ids: list[str]) -> list[dict[str, Any]]:
    """Log events of several traces at once, in arrival order, as dicts."""
    out: list[dict[str, Any]] = []
    for i in range(0, len(trace_ids), 500):
        chunk = trace_ids[i : i + 500]
        out.extend(
            as_dicts(
                conn.execute(
                    select(log_events)
                    .where(
                        and_(log_events.c.tenant_id == tenant_id, log_events.c.trace_id.in_(chunk))
                    )
                    .order_by(log_events.c.id)
                )
            )
        )
    return out


def save_derivations(
    conn: Connection, items: list[tuple[str, str, dict[str, Any], int]], *, index: bool = True
) -> list[bool]:
    """Store fresh derivations: (tenant, trace, column values, span_count) each.

    A derivation is written only if no span arrived since its spans were read
    (``span_count`` unchanged); otherwise the trace's next job derives again.
    One guarded UPDATE executed for the whole batch (a statement per trace
    cost more than the rest of storing a verdict); when it changed fewer rows
    than given, the traces' span counts tell which guards held. The search
    rows of the traces that were updated are rebuilt together.
    """
    if not items:
        return []
    columns = sorted(items[0][2])
    rows = []
    for tenant_id, trace_id, values, span_count in items:
        row = {c: values.get(c) for c in columns}
        row.update(derived=True, tenant_id=tenant_id, trace_id=trace_id, span_count=span_count)
        rows.append(row)
    changed = update_rows(conn, traces, rows, keys=("tenant_id", "trace_id", "span_count"))
    if conn.dialect.supports_sane_multi_rowcount and changed == len(items):
        applied = [True] * len(items)
    else:  # a span arrived for some (or the driver cannot say): ask the rows
        counts = _span_counts(conn, [(t, i) for t, i, _, _ in items])
        applied = [counts.get((t, i)) == n for t, i, _, n in items]
    if index:  # two revisions of one trace in a batch: index the last once
        docs: dict[tuple[str, str], dict[str, Any]] = {}
        for ok, (tenant_id, trace_id, values, _) in zip(applied, items, strict=True):
            if ok:
                docs[(tenant_id, trace_id)] = {
                    "tenant_id": tenant_id,
                    "trace_id": trace_id,
                    **values,
                }
        search.index_rows(conn, list(docs.values()), replace=True)
    return applied


def _span_counts(conn: Connection, keys: list[tuple[str, str]]) -> dict[tuple[str, str], int]:
    by_tenant: dict[str, list[str]] = {}
    for tenant_id, trace_id in keys:
        by_tenant.setdefault(tenant_id, []).append(trace_id)
    found: dict[tuple[str, str], int] = {}
    for tenant_id, ids in by_tenant.items():
        for i in range(0, len(ids), 500):
            rows = conn.execute(
                select(traces.c.trace_id, traces.c.span_count).where(
                    and_(traces.c.tenant_id == tenant_id, traces.c.trace_id.in_(ids[i : i + 500]))
                )
            )
            for trace_id, count in rows:
                found[(tenant_id, trace_id)] = int(count)
    return found


def enqueue_jobs(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Queue jobs, one per (tenant, trace, revision); an existing one is kept."""
    insert_rows(conn, jobs, rows, ignore_conflicts=True)


def job_row(
    tenant_id: str, trace_id: str, revision: int, eval_type: str | None, *, now: datetime
) -> dict[str, Any]:
    return {
        "tenant_id": tenant_id,
        "trace_id": trace_id,
        "revision": revision,
        "eval_type": eval_type,
        "evaluate": True,
        "state": "pending",
        "attempts": 0,
        "created_at": now,
        "updated_at": now,
    }


def request_finalize(conn: Connection, tenant_id: str, trace_id: str) -> bool:
    result = conn.execute(
        update(traces)
        .where(and_(traces.c.tenant_id == tenant_id, traces.c.trace_id == trace_id))
        .values(finalize_requested=True)
    )
    return result.rowcount == 1
