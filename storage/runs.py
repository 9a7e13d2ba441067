"""Runs: derived from the rows that mention them, plus an optional registration."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, func, select, union, update

from storage.codec import iso
from storage.models import Evaluation, Run, Trace

traces = cast(Table, Trace.__table__)
evaluations = cast(Table, Evaluation.__table__)
runs = cast(Table, Run.__table__)


def run_ids(conn: Connection, tenant_id: str, limit: int) -> list[str]:
    """Every run mentioned by a trace, an evaluation or a registration, newest first."""
    mentioned = union(
        select(traces.c.run.label("run"), func.max(traces.c.created_at).label("at"))
        .where(and_(traces.c.tenant_id == tenant_id, traces.c.run.is_not(None)))
        .group_by(traces.c.run),
        select(evaluations.c.run.label("run"), func.max(evaluations.c.created_at).label("at"))
        .where(and_(evaluations.c.tenant_id == tenant_id, evaluations.c.run.is_not(None)))
        .group_by(evaluations.c.run),
        select(runs.c.run_id.label("run"), runs.c.created_at.label("at")).where(
            runs.c.tenant_id == tenant_id
        ),
    ).subquery()
    rows = conn.execute(
        select(mentioned.c.run, func.max(mentioned.c.at).label("at"))
        .group_by(mentioned.c.run)
        .order_by(func.max(mentioned.c.at).desc(), mentioned.c.run)
        .limit(limit)
    )
    return [r.run for r in rows]


def latest_per_trace(conn: Connection, tenant_id: str, run: str) -> list[Any]:
    """The run's evaluations collapsed to one per trace (most recent wins);
    evaluations without a trace count on their own."""
    rows = list(
        conn.execute(
            select(evaluations)
            .where(and_(evaluations.c.tenant_id == tenant_id, evaluations.c.run == run))
            .order_by(evaluations.c.created_at, evaluations.c.id)
        )
    )
    latest: dict[str, Any] = {}
    for row in rows:
        latest[row.trace_id or row.id] = row
    return list(latest.values())


def registration(conn: Connection, tenant_id: str, run: str) -> Any | None:
    return conn.execute(
        select(runs).where(and_(runs.c.tenant_id == tenant_id, runs.c.run_id == run))
    ).first()


def describe(conn: Connection, tenant_id: str, run: str) -> dict[str, Any] | None:
    """Counts and provenance of one run, derived from rows (never stored)."""
    trace_count = conn.execute(
        select(func.count())
        .select_from(traces)
        .where(and_(traces.c.tenant_id == tenant_id, traces.c.run == run))
    ).scalar_one()
    evals = latest_per_trace(conn, tenant_id, run)
    reg = registration(conn, tenant_id, run)
    if not trace_count and not evals and reg is None:
        return None
    times = [e.created_at for e in evals]
    trace_times = conn.execute(
        select(func.min(traces.c.created_at), func.max(traces.c.created_at)).where(
            and_(traces.c.tenant_id == tenant_id, traces.c.run == run)
        )
    ).one()
    starts = [t for t in (trace_times[0], min(times, default=None)) if t is not None]
    ends = [t for t in (trace_times[1], max(times, default=None)) if t is not None]
    provenance = [e.provenance or {} for e in evals]
    return {
        "runId": run,
        "label": reg.label if reg is not None else None,
        "reevaluationOf": reg.reevaluation_of if reg is not None else None,
        "baseline": bool(reg.baseline) if reg is not None else False,
        "traces": int(trace_count),
        "evaluated": len(evals),
        "passed": sum(1 for e in evals if e.passed),
        "agentNames": sorted({e.agent_name for e in evals if e.agent_name}),
        "engineVersions": sorted(
            {str(p.get("irisVersion")) for p in provenance if p.get("irisVersion")}
        ),
        "rulesetHashes": sorted(
            {str(p.get("rulesetHash")) for p in provenance if p.get("rulesetHash")}
        ),
        "startedAt": iso(min(starts)) if starts else None,
        "lastActivityAt": iso(max(ends)) if ends else None,
    }


def upsert_registration(
    conn: Connection,
    tenant_id: str,
    run: str,
    *,
    now: datetime,
    label: str | None = None,
    reevaluation_of: str | None = None,
    baseline: bool | None = None,
) -> None:
    if baseline:
        conn.execute(update(runs).where(runs.c.tenant_id == tenant_id).values(baseline=False))
    existing = registration(conn, tenant_id, run)
    values: dict[str, Any] = {}
    if label is not None:
        values["label"] = label
    if reevaluation_of is not None:
        values["reevaluation_of"] = reevaluation_of
    if baseline is not None:
        values["baseline"] = baseline
    if existing is None:
        conn.execute(
            runs.insert().values(
                tenant_id=tenant_id,
                run_id=run,
                label=label,
                reevaluation_of=reevaluation_of,
                baseline=bool(baseline),
                created_at=now,
            )
        )
    elif values:
        conn.execute(
            update(runs)
            .where(and_(runs.c.tenant_id == tenant_id, runs.c.run_id == run))
            .values(**values)
        )


def baseline_run(conn: Connection, tenant_id: str) -> str | None:
    row = conn.execute(
        select(runs.c.run_id).where(and_(runs.c.tenant_id == tenant_id, runs.c.baseline.is_(True)))
    ).first()
    return row.run_id if row is not None else None


def traces_of_run(conn: Connection, tenant_id: str, run: str) -> list[Any]:
    return list(
        conn.execute(
            select(traces)
            .where(and_(traces.c.tenant_id == tenant_id, traces.c.run == run))
            .order_by(traces.c.timestamp, traces.c.trace_id)
        )
    )
