"""Storage side of trace assembly: find traces due, re-read them, mark ready.

A trace is *due* when it is open and either its root has arrived and nothing
new came for the grace period, or nothing came for the idle timeout (no root:
the orphans are kept and judged as they are), or a finalize was requested.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar, Final, NamedTuple, cast

from mypy_extensions import mypyc_attr
from sqlalchemy import (
    JSON,
    ColumnElement,
    Connection,
    ScalarSelect,
    Select,
    Table,
    and_,
    false,
    literal_column,
    select,
    text,
    true,
    tuple_,
    update,
)

from storage import codec, search
from storage.driverread import fetch_all
from storage.fastinsert import (
    driver_datetime,
    driver_mark,
    execute_update,
    insert_rows,
    insert_values,
    update_statement,
)
from storage.models import (
    OPEN_TRACE,
    EvaluationJob,
    LogEventRow,
    Trace,
)
from storage.writer import WriteJob

traces = cast(Table, Trace.__table__)
log_events = cast(Table, LogEventRow.__table__)
jobs = cast(Table, EvaluationJob.__table__)


# The reasons an open trace is due, as (finalize requested, root seen): each
# is one range of the partial index ``ix_traces_open_due`` (finalize, root,
# last span), read by both the sweep and ``next_due``.
_FINALIZE, _ROOTED, _ROOTLESS = (True, None), (False, True), (False, False)
_CTID: ColumnElement[Any] = literal_column("traces.ctid")


def _open_in(reason: tuple[bool, bool | None]) -> list[ColumnElement[bool]]:
    """The WHERE terms of one reason's range (the index predicate as a literal)."""
    finalize, has_root = reason
    terms: list[ColumnElement[bool]] = [
        text(OPEN_TRACE),  # type: ignore[list-item]
        traces.c.finalize_requested == (true() if finalize else false()),
    ]
    if has_root is not None:
        terms.append(traces.c.has_root == (true() if has_root else false()))
    return terms


def _due_keys(
    *, now: datetime, grace: timedelta, idle: timedelta, limit: int, dialect: str
) -> list[Select[Any]]:
    """One query per reason a trace is due, each of up to ``limit`` (tenant,
    trace) of open traces, oldest first: finalize requested, root seen and
    quiet for ``grace``, quiet for ``idle`` without one.

    Each reads one index range, so a sweep reads the traces it readies and
    not every open trace: its cost does not grow with traffic. (A root seen
    and quiet for ``idle`` is due too, hence the earlier of the two bounds
    for traces with a root.)
    """
    bounds = {_FINALIZE: None, _ROOTED: now - min(grace, idle), _ROOTLESS: now - idle}
    queries = []
    for reason, bound in bounds.items():
        query = select(traces.c.tenant_id, traces.c.trace_id).where(*_open_in(reason))
        if bound is not None:
            query = query.where(traces.c.last_span_at <= bound).order_by(traces.c.last_span_at)
        query = query.limit(limit)
        if dialect == "postgresql":
            # Another sweeper (a second receiver) takes other traces, not these.
            query = query.with_for_update(skip_locked=True, of=traces)
        queries.append(query)
    return queries


def next_due(conn: Connection, *, grace: timedelta, idle: timedelta) -> datetime | None:
    """When the earliest open trace becomes due, by the rules of
    :func:`_due_keys` (None: no open trace). Lets the assembler sleep exactly
    until there is work instead of sweeping on a fixed period. Three index
    look-ups, whatever the number of open traces."""

    def earliest(reason: tuple[bool, bool | None]) -> ScalarSelect[Any]:
        q = select(traces.c.last_span_at).where(*_open_in(reason))
        if reason != _FINALIZE:  # any finalize at all will do
            q = q.order_by(traces.c.last_span_at)
        return q.limit(1).scalar_subquery()

    # SQLAlchemy's types call a row a tuple; it is a Row (compiled code checks).
    result: Any = conn.execute(select(earliest(_FINALIZE), earliest(_ROOTED), earliest(_ROOTLESS)))
    finalize, rooted, rootless = result.one()
    if finalize is not None:
        return datetime.min
    times = []
    if rooted is not None:
        times.append(rooted + min(grace, idle))
    if rootless is not None:
        times.append(rootless + idle)
    return min(times, default=None)


# What a readied trace's job needs, returned by the UPDATE that readies it.
_READIED_COLUMNS = (
    traces.c.tenant_id,
    traces.c.arrival_us,
    traces.c.trace_id,
    traces.c.revision,
    traces.c.eval_type,
    traces.c.evaluate,
    traces.c.derived,
)


# The columns of a queued job, in the order ``_queued_jobs`` builds them.
_JOB_COLUMNS: tuple[str, ...] = (
    "tenant_id",
    "arrival_us",
    "trace_id",
    "revision",
    "eval_type",
    "evaluate",
    "state",
    "attempts",
    "created_at",
    "updated_at",
)


def _queued_jobs(
    readied: Sequence[Any], *, default_evaluate: bool, max_revision: int, now: Any
) -> list[tuple[Any, ...]]:
    """The evaluation jobs of traces just readied, as driver rows in
    ``_JOB_COLUMNS`` order (``now`` already in the driver's form, see
    ``storage.fastinsert.insert_values``): judged when the trace asks for it
    (``iris.evaluate``) or the service default says so, within the
    re-evaluation cap; queued unjudged (to derive fields only) when its
    stored fields lag its spans; not queued otherwise.

    Built as tuples, not the dicts ``insert_rows`` takes, which it turned
    into tuples again (each datetime looked up) for every readied trace: a
    sweep readying 500 traces took 102.7k instructions a trace with the
    dicts, 78.6k with tuples (``bench/receiver_instr.py --phase sweep``)."""
    rows = []
    for tenant_id, arrival_us, trace_id, revision, eval_type, evaluate, derived in readied:
        wanted = default_evaluate if evaluate is None else evaluate
        judge = bool(wanted) and revision <= max_revision
        if judge or not derived:
            rows.append(
                (
                    tenant_id,
                    arrival_us,
                    trace_id,
                    revision,
                    eval_type,
                    judge,
                    "pending",
                    0,
                    now,
                    now,
                )
            )
    return rows


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
    readied: list[Any] = []
    postgresql = conn.dialect.name == "postgresql"
    for due in _due_keys(now=now, grace=grace, idle=idle, limit=limit, dialect=conn.dialect.name):
        # One statement per reason: the traces are chosen and marked in the
        # same step, so a span arriving meanwhile waits for this transaction
        # and then reopens the trace at its next revision. (Selecting first
        # and updating trace by trace cost ~30 µs of Python per readied trace
        # in the receiving process.)
        where: list[ColumnElement[bool]]
        if postgresql:
            # A CTE runs once. As an IN subquery, PostgreSQL may re-run the
            # locking SELECT as rows change under it, and each run's LIMIT
            # takes new traces. The guard re-checks rows another transaction
            # changed since. The CTE names the locked rows by their physical
            # address (a locked row keeps it until this transaction ends), so
            # the update reaches each by a TID scan whatever the planner
            # believes of the table: joined on the key, a table younger than
            # its statistics (estimated at one open trace) was scanned once
            # per chosen trace, ~0.8 ms of server CPU per readied trace.
            chosen = due.with_only_columns(_CTID.label("tid")).cte("due")
            where = [_CTID.in_(select(chosen.c.tid)), traces.c.status == "open"]
        else:
            # SQLite runs each statement alone; a status guard here would
            # lead its planner away from the primary key.
            where = [tuple_(traces.c.tenant_id, traces.c.trace_id).in_(due)]
        readied.extend(
            conn.execute(
                update(traces)
                .where(*where)
                .values(status="ready", ready_at=now)
                .returning(*_READIED_COLUMNS)
                .execution_options(synchronize_session=False)
            ).all()
        )
    # The UPDATE hands back what the jobs need: reading the readied traces
    # again (INSERT … SELECT by status and ready time) cost ~26 µs a trace
    # on SQLite and an index on (status, ready_at) kept for that alone.
    queued = _queued_jobs(
        readied,
        default_evaluate=default_evaluate,
        max_revision=max_revision,
        now=driver_datetime(conn.dialect.name)(now),
    )
    insert_values(conn, jobs, _JOB_COLUMNS, queued, ignore_conflicts=True)
    return len(readied)


@mypyc_attr(native_class=False)  # compiled: its base, an ABC, is interpreted
@dataclass
class SweepWrite(WriteJob):
    """A readiness sweep (``ready_due``) as a job of the group-commit writer.

    On SQLite the receiver submits its sweeps to its writer: a sweep then
    joins the writer's next transaction, in the process that owns the
    database's one write lock (the writer process with
    ``IRIS_WRITER_PROCESS``), instead of contending for it from a thread of
    its own, whose loser sleeps in SQLite's busy handler. ``now`` is taken
    when the sweep runs."""

    grace: timedelta
    idle: timedelta
    default_evaluate: bool
    max_revision: int
    limit: int = 500
    kind: ClassVar[str] = "sweep"

    @classmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        return [
            ready_due(
                conn,
                now=codec.utcnow(),
                grace=j.grace,
                idle=j.idle,
                default_evaluate=j.default_evaluate,
                max_revision=j.max_revision,
                limit=j.limit,
            )
            for j in jobs
            if isinstance(j, SweepWrite)
        ]


def as_dicts(result: Any) -> list[dict[str, Any]]:
    """A result's rows as plain dicts.

    Without its C extension (this machine's build), a SQLAlchemy row costs
    ~1 µs per attribute read; the worker reads each of ~20 columns of every
    span and trace once or more, so it takes the values out once."""
    keys = tuple(result.keys())
    return [dict(zip(keys, row, strict=True)) for row in result]


def log_events_of(conn: Connection, tenant_id: str, trace_ids: list[str]) -> list[dict[str, Any]]:
    """Log events of several traces at once, in arrival order, as dicts.

    Most traces have none, and a worker asks for a whole batch's: through
    SQLAlchemy's Core the query cost ~15,000 instructions a trace even when
    it found nothing (callgrind). So the driver first reads which of the
    traces have any (a search of ``ix_log_events_tenant_trace``), and only
    those are read whole. (A trace row's ``log_writes`` cannot tell: events
    stored before their trace's first span count on no row.)"""
    out: list[dict[str, Any]] = []
    mark = driver_mark(conn.dialect.name)
    for i in range(0, len(trace_ids), 500):
        chunk = trace_ids[i : i + 500]
        having = fetch_all(
            conn,
            f"SELECT DISTINCT trace_id FROM log_events WHERE tenant_id = {mark} "
            f"AND trace_id IN ({', '.join(mark for _ in chunk)})",
            (tenant_id, *chunk),
        )
        if not having:
            continue
        chunk = [str(row[0]) for row in having]
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


class DerivedFrom(NamedTuple):
    """What a derivation was made from, as counted on the trace row it read
    with its spans and log events: its UPDATE holds only while both counts
    are unchanged. Log events reopen a trace without adding spans, so the
    span count alone let a derivation made before they arrived be stored
    as current, and the events never reached the trace's fields."""

    span_count: int
    log_writes: int


def save_derivations(
    conn: Connection,
    items: list[tuple[str, str, dict[str, Any], DerivedFrom]],
    *,
    index: bool = True,
    stored: Sequence[dict[str, Any] | None] | None = None,
) -> list[bool]:
    """Store fresh derivations: (tenant, trace, column values, inputs) each.

    A derivation is written only if no span or log event arrived since its
    inputs were read (``DerivedFrom`` unchanged); otherwise the trace's next
    job derives again.
    One guarded UPDATE executed for the whole batch (a statement per trace
    cost more than the rest of storing a verdict); when it changed fewer rows
    than given, the traces' span counts tell which guards held. The search
    rows of the traces that were updated are rebuilt together, from all the
    given values.

    ``stored``, the trace rows as read with those spans (``None`` for an item
    without one), leaves out of each UPDATE the columns the row already
    holds (``changed_values``).
    """
    prepared = prepare_derivations(conn.dialect.name, items, index=index, stored=stored)
    return apply_derivations(conn, prepared)


class PreparedDerivations:
    """``save_derivations``'s statements and search rows, built before the
    transaction (``prepare_derivations``; see ``storage.evaluations``'s
    ``PreparedEvaluations`` for why)."""

    def __init__(
        self,
        items: list[tuple[str, str, dict[str, Any], DerivedFrom]],
        updates: list[tuple[list[int], tuple[str, list[tuple[Any, ...]]]]],
        documents: list[dict[str, Any]] | None,
    ) -> None:
        self.items = items
        # (positions in items, the guarded UPDATE for them) per set of columns
        self.updates = updates
        self.documents = documents  # an index row per item; None: not indexed


def prepare_derivations(
    dialect: str,
    items: list[tuple[str, str, dict[str, Any], DerivedFrom]],
    *,
    index: bool = True,
    stored: Sequence[dict[str, Any] | None] | None = None,
) -> PreparedDerivations:
    """What ``apply_derivations`` runs for ``items`` (see ``save_derivations``)."""
    # One UPDATE per set of columns (a derivation may also point the trace at
    # the verdict stored with it, see ``service.worker``): a column missing
    # from one item must not be written as NULL by another item's statement.
    written = [values for _, _, values, _ in items]
    if stored is not None:
        written = [
            values if row is None else changed_values(values, row)
            for values, row in zip(written, stored, strict=True)
        ]
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, values in enumerate(written):
        groups.setdefault(tuple(sorted(values)), []).append(i)
    updates = [
        (positions, _guarded_update(dialect, columns, [(items[i], written[i]) for i in positions]))
        for columns, positions in groups.items()
    ]
    documents = None
    if index:
        documents = [
            search.document_of(tenant_id, trace_id, values)
            for tenant_id, trace_id, values, _ in items
        ]
    return PreparedDerivations(items, updates, documents)


def apply_derivations(conn: Connection, prepared: PreparedDerivations) -> list[bool]:
    """Run a ``prepare_derivations``: which derivations applied (their guards held)."""
    items = prepared.items
    if not items:
        return []
    applied = [False] * len(items)
    for positions, statement in prepared.updates:
        changed = execute_update(conn, statement)
        if conn.dialect.supports_sane_multi_rowcount and changed == len(positions):
            held = [True] * len(positions)
        else:  # a span or a log event arrived for some (or the driver cannot say): ask the rows
            group = [items[i] for i in positions]
            now = _inputs_now(conn, [(t, i) for t, i, _, _ in group])
            held = [now.get((t, i)) == inputs for t, i, _, inputs in group]
        for i, ok in zip(positions, held, strict=True):
            applied[i] = ok
    if prepared.documents is not None:  # two revisions of one trace in a batch: index the last once
        docs: dict[tuple[str, str], dict[str, Any]] = {}
        for ok, (tenant_id, trace_id, _, _), doc in zip(
            applied, items, prepared.documents, strict=True
        ):
            if ok:
                docs[(tenant_id, trace_id)] = doc
        search.index_documents(conn, list(docs.values()), replace=True)
    return applied


# What a JSON column held is compared as parsed values, which may be equal
# where the stored text is not (key order); such columns are always written.
# (Final: compiled, a static instead of a lookup in the module's globals per column.)
_JSON_COLUMNS: Final = frozenset(c.name for c in traces.c if isinstance(c.type, JSON))


# Stands for a column ``row`` lacks in ``changed_values`` (no column holds it).
_ABSENT: Final = object()


def changed_values(values: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """``values`` without the columns ``row`` (the trace row as read) already
    holds, of the same type (``2`` is not ``2.0``: they read back apart).

    Left out of the UPDATE, they cost no index entries: a trace's derivation
    rewrites ~30 columns, most often with the agent name, timestamp, run and
    assembly facts the row had, and SQLite re-files the row in every index
    whose columns the statement sets (six of them), changed or not. Safe
    under the ``DerivedFrom`` guard: what else writes these columns without
    adding spans (a finalize request) is then kept instead of overwritten.
    Typed as dicts, which they are, so the compiled lookups are dict lookups."""
    return {
        c: v
        for c, v in values.items()
        if c in _JSON_COLUMNS
        or (old := row.get(c, _ABSENT)) is _ABSENT
        or type(old) is not type(v)
        or old != v
    }


def _guarded_update(
    dialect: str,
    columns: tuple[str, ...],
    items: list[tuple[tuple[str, str, dict[str, Any], DerivedFrom], dict[str, Any]]],
) -> tuple[str, list[tuple[Any, ...]]]:
    """The UPDATE of items that all set ``columns`` (each item with the values
    it writes), guarded by the span and log counts its derivation read."""
    rows = []
    for (tenant_id, trace_id, _, inputs), values in items:
        row = {c: values.get(c) for c in columns}
        row.update(
            derived=True,
            tenant_id=tenant_id,
            trace_id=trace_id,
            span_count=inputs.span_count,
            log_writes=inputs.log_writes,
        )
        rows.append(row)
    keys = ("tenant_id", "trace_id", "span_count", "log_writes")
    return update_statement(dialect, traces, rows, keys=keys)


def _inputs_now(
    conn: Connection, keys: list[tuple[str, str]]
) -> dict[tuple[str, str], DerivedFrom]:
    by_tenant: dict[str, list[str]] = {}
    for tenant_id, trace_id in keys:
        by_tenant.setdefault(tenant_id, []).append(trace_id)
    found: dict[tuple[str, str], DerivedFrom] = {}
    for tenant_id, ids in by_tenant.items():
        for i in range(0, len(ids), 500):
            # SQLAlchemy's types call a row a tuple; it is a Row (compiled code checks).
            rows: Iterable[Sequence[Any]] = conn.execute(
                select(traces.c.trace_id, traces.c.span_count, traces.c.log_writes).where(
                    and_(traces.c.tenant_id == tenant_id, traces.c.trace_id.in_(ids[i : i + 500]))
                )
            )
            for trace_id, span_count, log_writes in rows:
                found[(tenant_id, trace_id)] = DerivedFrom(int(span_count), int(log_writes))
    return found


def enqueue_jobs(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Queue jobs, one per (tenant, trace, revision); an existing one is kept."""
    insert_rows(conn, jobs, rows, ignore_conflicts=True)


def job_row(
    tenant_id: str,
    trace_id: str,
    revision: int,
    eval_type: str | None,
    *,
    arrival_us: int,
    now: datetime,
) -> dict[str, Any]:
    """A pending job for ``enqueue_jobs``; ``arrival_us`` is the trace's
    (``traces.arrival_us``)."""
    return {
        "tenant_id": tenant_id,
        "arrival_us": arrival_us,
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
