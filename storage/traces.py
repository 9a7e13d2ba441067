"""Trace and span persistence: inserts, the get_traces query, deletion.

Functions take a SQLAlchemy ``Connection`` so callers decide transaction
boundaries (the group-commit writer puts many requests in one).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from sqlalchemy import Connection, Table, and_, asc, case, delete, desc, func, select, update

from storage import ruleprofiles, search, tracecounts
from storage.evaluations import of_trace
from storage.models import AuditEntry, Evaluation, Trace
from storage.scoreband import score_band
from storage.spans import batch_row, delete_spans, json_piece, span_batches, spans_of

traces = cast(Table, Trace.__table__)
evaluations = cast(Table, Evaluation.__table__)
audit = cast(Table, AuditEntry.__table__)

SORT_COLUMNS = {
    "timestamp": traces.c.timestamp,
    "latency_ms": traces.c.latency_ms,
    "cost_usd": traces.c.cost_usd,
}


def insert_traces(
    conn: Connection,
    rows: Sequence[dict[str, Any]],
    spans: Sequence[Sequence[dict[str, Any]]],
    *,
    index: bool = True,
) -> None:
    """Insert complete traces (``codec.trace_row``), each with its spans
    (``spans[i]`` for ``rows[i]``, one batch), and their search rows."""
    if rows:
        conn.execute(traces.insert(), list(rows))
        tracecounts.add_rows(conn, (row["tenant_id"] for row in rows))
    batches = [
        batch_row(
            row["tenant_id"],
            row["arrival_us"],
            row["trace_id"],
            0,
            json_piece(group),
            row["created_at"],
        )
        for row, group in zip(rows, spans, strict=True)
        if group
    ]
    if batches:
        conn.execute(span_batches.insert(), batches)
    if index:
        search.index_rows(conn, rows)


@dataclass(frozen=True)
class TraceQuery:
    """A validated get_traces query (the service validates user input)."""

    tenant_id: str
    agent_name: str | None = None
    framework: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    min_score: float | None = None
    max_score: float | None = None
    limit: int = 50
    offset: int = 0
    sort_by: Literal["timestamp", "latency_ms", "cost_usd"] | None = None
    sort_order: Literal["asc", "desc"] = "desc"
    q: str | None = None
    run: str | None = None
    session: str | None = None
    case_key: str | None = None


@dataclass
class TracePage:
    rows: list[Any]
    total: int
    highlights: dict[str, list[dict[str, str]]]
    search: dict[str, Any] | None = None


def _filters(query: TraceQuery) -> list[Any]:
    conds: list[Any] = [traces.c.tenant_id == query.tenant_id]
    exact = {
        "agent_name": query.agent_name,
        "framework": query.framework,
        "run": query.run,
        "session_id": query.session,
        "case_key": query.case_key,
    }
    for column, value in exact.items():
        if value is not None:
            conds.append(traces.c[column] == value)
    if query.since is not None:
        conds.append(traces.c.timestamp >= query.since)
    if query.until is not None:
        conds.append(traces.c.timestamp <= query.until)
    # the band through its index, then the exact score (``storage.scoreband``)
    if query.min_score is not None:
        conds.append(traces.c.score_band >= score_band(query.min_score))
        conds.append(traces.c.latest_score >= query.min_score)
    if query.max_score is not None:
        conds.append(traces.c.score_band <= score_band(query.max_score))
        conds.append(traces.c.latest_score <= query.max_score)
    return conds


def scan_traces(conn: Connection, query: TraceQuery, *, budget_ms: int) -> TracePage:
    """``q`` without the index (``IRIS_SEARCH_INDEX=off``): read matching traces
    newest first and keep those containing every word, until the budget runs
    out; ``search.complete`` says whether everything was read."""
    words = [w.casefold() for w in search.query_words(query.q or "")]
    deadline = time.monotonic() + budget_ms / 1000
    stmt = (
        select(traces)
        .where(and_(*_filters(query)))
        .order_by(desc(traces.c.timestamp), desc(traces.c.trace_id))
        .execution_options(yield_per=500)
    )
    matches: list[Any] = []
    scanned = 0
    complete = True
    for row in conn.execute(stmt):
        if time.monotonic() > deadline:
            complete = False
            break
        scanned += 1
        text = " ".join(
            (
                row.input or "",
                row.output or "",
                search.tool_calls_text(row.tool_calls),
                search.values_text(row._mapping["metadata"]),
            )
        ).casefold()
        if words and all(w in text for w in words):
            matches.append(row)
    if query.sort_by is not None:
        key = query.sort_by
        present = [r for r in matches if getattr(r, key) is not None]
        absent = [r for r in matches if getattr(r, key) is None]
        present.sort(key=lambda r: getattr(r, key), reverse=query.sort_order == "desc")
        matches = present + absent
    elif query.sort_order == "asc":
        matches.reverse()
    page = matches[query.offset : query.offset + query.limit]
    return TracePage(
        page,
        len(matches),
        {},
        {"complete": complete, "scanned": scanned, "budget_ms": budget_ms},
    )


def list_traces(
    conn: Connection, query: TraceQuery, *, scan_budget_ms: int | None = None
) -> TracePage:
    """One page of traces; with ``scan_budget_ms``, ``q`` scans instead of
    using the full-text index (which is then assumed off)."""
    if query.q and scan_budget_ms is not None:
        return scan_traces(conn, query, budget_ms=scan_budget_ms)
    conds = _filters(query)
    plan = search.SearchPlan(conn.dialect.name, query.q) if query.q else None
    if plan is not None and plan.empty:
        return TracePage([], 0, {})

    count_stmt = select(func.count()).select_from(traces)
    page_stmt = select(traces)
    if plan is not None:
        count_stmt = plan.apply(count_stmt, traces.c.tenant_id, traces.c.trace_id)
        page_stmt = plan.apply(page_stmt, traces.c.tenant_id, traces.c.trace_id)
        page_stmt = page_stmt.add_columns(*plan.snippets())
    count_stmt = count_stmt.where(and_(*conds))
    page_stmt = page_stmt.where(and_(*conds))

    direction = asc if query.sort_order == "asc" else desc
    order: list[Any] = []
    if plan is not None and query.sort_by is None:
        order.append(asc(plan.rank()))
    column = SORT_COLUMNS[query.sort_by or "timestamp"]
    # NULL latency/cost sort last in both directions: "unknown" is never the extreme.
    order += [column.is_(None), direction(column), direction(traces.c.trace_id)]
    page_stmt = page_stmt.order_by(*order).limit(query.limit).offset(query.offset)

    total = int(conn.execute(count_stmt).scalar_one())
    rows = list(conn.execute(page_stmt))
    marks = {r.trace_id: search.highlights(r) for r in rows} if plan is not None else {}
    return TracePage(rows, total, marks)


def get_trace(conn: Connection, tenant_id: str, trace_id: str) -> Any | None:
    return conn.execute(
        select(traces).where(and_(traces.c.tenant_id == tenant_id, traces.c.trace_id == trace_id))
    ).first()


def get_spans(conn: Connection, tenant_id: str, trace_id: str) -> list[dict[str, Any]]:
    """A trace's spans in start order, each a dict (``storage.spans.SPAN_KEYS``)."""
    found = spans_of(conn, tenant_id, [trace_id])
    found.sort(key=lambda s: (s["start_unix_nano"], s["span_id"]))
    return found


def count_traces(conn: Connection, tenant_id: str) -> int:
    """The tenant's traces, open ones included: kept, not counted
    (``storage.tracecounts``)."""
    return tracecounts.total(conn, tenant_id)


def _erase_rule_messages(rule_results: Any) -> Any:
    """Keep verdicts, scores and evidence offsets; drop every message and quote."""
    if not isinstance(rule_results, list):
        return rule_results
    erased = []
    for result in rule_results:
        if not isinstance(result, dict):
            erased.append(result)
            continue
        item = dict(result)
        item["message"] = ""
        if isinstance(item.get("evidence"), list):
            item["evidence"] = [
                {k: v for k, v in ev.items() if k not in ("text", "quote", "matched", "snippet")}
                if isinstance(ev, dict)
                else ev
                for ev in item["evidence"]
            ]
        item.pop("saw", None)
        erased.append(item)
    return erased


def delete_trace(
    conn: Connection, tenant_id: str, trace_id: str, *, now: datetime, actor: str | None = None
) -> bool:
    """Delete one trace, its spans and index row; erase linked evaluation text.

    Runs in the caller's transaction so nothing is half-done (SPEC §5.7).
    """
    row = get_trace(conn, tenant_id, trace_id)
    if row is None:
        return False
    # Found while the trace row is there: its live verdicts are filed by its
    # arrival, which only the row holds (``storage.evaluations.of_trace``).
    linked = list(
        conn.execute(
            select(evaluations.c.id, evaluations.c.rule_results).where(
                of_trace(tenant_id, trace_id)
            )
        )
    )
    search.remove(conn, [(tenant_id, trace_id)])
    span_count = delete_spans(conn, tenant_id, trace_id, row.arrival_us)
    removed = conn.execute(
        delete(traces).where(and_(traces.c.tenant_id == tenant_id, traces.c.trace_id == trace_id))
    )
    tracecounts.add(conn, tenant_id, -removed.rowcount)
    whole = ruleprofiles.join_all(conn, [(tenant_id, ev.rule_results) for ev in linked])
    for ev, rule_results in zip(linked, whole, strict=True):
        erased, profiles = ruleprofiles.split(_erase_rule_messages(rule_results))
        ruleprofiles.save(conn, tenant_id, profiles)
        conn.execute(
            update(evaluations)
            .where(evaluations.c.id == ev.id)
            .values(
                output_text=None,
                expected_text=None,
                suggestions=[],
                interpretations=None,
                rule_results=erased,
                erased_at=now,
                # filed where ``of_trace`` finds a deleted trace's verdicts
                trace_arrival_us=0,
            )
        )
    conn.execute(
        audit.insert().values(
            tenant_id=tenant_id,
            ts=now,
            action="trace.delete",
            trace_id=trace_id,
            actor=actor,
            detail={
                "agent_name": row.agent_name,
                "spans": span_count,
                "evaluations_erased": len(linked),
            },
        )
    )
    return True


def summary(conn: Connection, tenant_id: str, *, hours: int, now: datetime) -> dict[str, Any]:
    """Dashboard aggregates over the last ``hours`` (SPEC §7.8)."""
    since = now - timedelta(hours=hours)
    window = and_(traces.c.tenant_id == tenant_id, traces.c.timestamp >= since)
    totals = conn.execute(
        select(
            func.count(),
            func.avg(traces.c.latency_ms),
            func.sum(traces.c.cost_usd),
            func.sum(case((traces.c.error.is_(True), 1), else_=0)),
        ).where(window)
    ).one()
    total = int(totals[0] or 0)
    evals = conn.execute(
        select(func.count(), func.sum(case((evaluations.c.passed.is_(True), 1), else_=0))).where(
            and_(evaluations.c.tenant_id == tenant_id, evaluations.c.created_at >= since)
        )
    ).one()
    per_hour: dict[str, int] = {}
    for (stamp,) in conn.execute(select(traces.c.timestamp).where(window)):
        hour = stamp.replace(minute=0, second=0, microsecond=0).isoformat() + "Z"
        per_hour[hour] = per_hour.get(hour, 0) + 1
    top = conn.execute(
        select(traces.c.agent_name, func.count().label("n"))
        .where(window)
        .group_by(traces.c.agent_name)
        .order_by(desc("n"), traces.c.agent_name)
        .limit(10)
    )
    return {
        "hours": hours,
        "total_traces": total,
        "avg_latency_ms": float(totals[1]) if totals[1] is not None else None,
        "total_cost_usd": float(totals[2] or 0.0),
        "error_rate": (int(totals[3] or 0) / total) if total else None,
        "eval_pass_rate": (int(evals[1] or 0) / int(evals[0])) if evals[0] else None,
        "traces_per_hour": [{"hour": h, "count": c} for h, c in sorted(per_hour.items())],
        "top_agents": [{"agent_name": r.agent_name, "count": int(r.n)} for r in top],
    }
