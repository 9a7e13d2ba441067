"""The durable evaluation queue: claim, complete, fail, measure.

Jobs are rows. A worker claims a batch by stamping its name and a lease;
a job whose lease expired (its worker died) is claimable again. Completion
is conditional on still owning the job (same worker, same attempt), in the
transaction that stores the result, so a job is done exactly once in effect
even when it ran twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, func, select, update
from sqlalchemy.sql import ColumnElement

from evaluators.model import slot_init
from storage.driverread import fetch_all
from storage.fastinsert import driver_datetime, update_rows
from storage.models import EvaluationJob

jobs = cast(Table, EvaluationJob.__table__)

MAX_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    id: int
    tenant_id: str
    trace_id: str
    revision: int
    eval_type: str | None
    evaluate: bool
    attempts: int
    worker: str
    # The trace's ``traces.arrival_us``, which its verdict is filed under.
    arrival_us: int


slot_init(ClaimedJob)


def claim(
    conn: Connection, *, worker: str, limit: int, lease: timedelta, now: datetime
) -> list[ClaimedJob]:
    """Claim up to ``limit`` jobs in the caller's transaction: expired leases
    first, then pending jobs in queue order.

    PostgreSQL: ``FOR UPDATE SKIP LOCKED`` lets many workers claim at once
    without waiting on each other. SQLite: the caller holds the write lock
    (``BEGIN IMMEDIATE``), which makes select-then-update atomic; the same
    statements go to the driver as text there (see ``_claim_sqlite``).
    """
    if conn.dialect.name == "sqlite":
        return _claim_sqlite(conn, worker=worker, limit=limit, lease=lease, now=now)
    rows = list(conn.execute(_claimable(conn, expired(now), limit)))
    if len(rows) < limit:
        pending = jobs.c.state == "pending"
        rows += conn.execute(_claimable(conn, pending, limit - len(rows), jobs.c.created_at))
    if not rows:
        return []
    ids = [r[0] for r in rows]
    conn.execute(
        update(jobs)
        .where(jobs.c.id.in_(ids))
        .values(
            state="running",
            worker=worker,
            attempts=jobs.c.attempts + 1,
            lease_until=now + lease,
            updated_at=now,
        )
    )
    return [
        ClaimedJob(
            job_id, tenant, trace, revision, eval_type, bool(evaluate), tries + 1, worker, arrival
        )
        for job_id, tenant, trace, revision, eval_type, evaluate, tries, arrival in rows
    ]


def expired(now: datetime) -> Any:
    """Running jobs whose worker's lease passed (it died or stalled)."""
    return and_(jobs.c.state == "running", jobs.c.lease_until < now)


# What a claim reads of each job, in ``ClaimedJob``'s order (tuples, not
# rows: a SQLAlchemy row's attribute costs ~1 µs here, a tuple's item ~0.05).
_CLAIMED = (
    jobs.c.id,
    jobs.c.tenant_id,
    jobs.c.trace_id,
    jobs.c.revision,
    jobs.c.eval_type,
    jobs.c.evaluate,
    jobs.c.attempts,
    jobs.c.arrival_us,
)


def _claimable(conn: Connection, where: Any, limit: int, *order: Any) -> Any:
    """Oldest first, straight off ``ix_jobs_state_created``: one condition per
    query, because an OR of the two made SQLite collect and sort every
    pending job for each claim (the queue is thousands deep under load)."""
    stmt = select(*_CLAIMED).where(where).order_by(*order, jobs.c.id).limit(limit)
    if conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True)
    return stmt


def any_claimable(conn: Connection, *, now: datetime) -> bool:
    """Whether a claim would find a job: a read, so an idle worker's polling
    never takes SQLite's write lock away from ingest."""
    if conn.dialect.name == "sqlite":
        return bool(conn.exec_driver_sql(_ANY_SQLITE, (_sqlite_time(now),)).scalar())
    for where in (jobs.c.state == "pending", expired(now)):
        if conn.execute(select(jobs.c.id).where(where).limit(1)).first() is not None:
            return True
    return False


def _still_ours(job: ClaimedJob) -> ColumnElement[bool]:
    """The job's row while this attempt of it is still running for this
    worker (its lease did not pass to another)."""
    return and_(
        jobs.c.id == job.id,
        jobs.c.state == "running",
        jobs.c.worker == job.worker,
        jobs.c.attempts == job.attempts,
    )


def finish(conn: Connection, job: ClaimedJob, *, evaluation_id: str | None, now: datetime) -> bool:
    """Mark done if this worker still owns this attempt; False means drop the result."""
    result = conn.execute(
        update(jobs)
        .where(_still_ours(job))
        .values(state="done", evaluation_id=evaluation_id, lease_until=None, updated_at=now)
    )
    return result.rowcount == 1


def owned(conn: Connection, claimed: list[ClaimedJob]) -> set[int]:
    """The ids of ``claimed`` this worker still owns (same attempt, running),
    locked on PostgreSQL so nobody reclaims them before this transaction ends.
    On SQLite the caller holds the write lock for the same effect."""
    if not claimed:
        return set()
    mine = {(j.id, j.worker, j.attempts) for j in claimed}
    if conn.dialect.name == "sqlite":
        found: list[Any] = []
        for chunk in _chunks([j.id for j in claimed]):
            found += fetch_all(conn, _owned_sql(len(chunk)), tuple(chunk))
        return {job_id for job_id, *attempt in found if (job_id, *attempt) in mine}
    stmt = select(jobs.c.id, jobs.c.worker, jobs.c.attempts).where(
        and_(jobs.c.id.in_([j.id for j in claimed]), jobs.c.state == "running")
    )
    if conn.dialect.name == "postgresql":
        stmt = stmt.with_for_update()
    return {job_id for job_id, *attempt in conn.execute(stmt) if (job_id, *attempt) in mine}


# SQLite: the queue's statements as the driver takes them. SQLAlchemy built,
# keyed and looked up each Core statement (the claim's UPDATE with a fresh
# IN list of 64 literals each time) for ~110 k instructions a claimed job;
# these are the statements Core rendered, the state literal aside (the same
# ``ix_jobs_state_created`` range is read). Times are compared as the text
# SQLAlchemy stores on SQLite (``driver_datetime``), as Core binds them.
_sqlite_time = driver_datetime("sqlite")
_COLUMNS_SQL = ", ".join(c.name for c in _CLAIMED)
_EXPIRED_SQLITE = (
    f"SELECT {_COLUMNS_SQL} FROM evaluation_jobs "
    "WHERE state = 'running' AND lease_until < ? ORDER BY id LIMIT ?"
)
_PENDING_SQLITE = (
    f"SELECT {_COLUMNS_SQL} FROM evaluation_jobs "
    "WHERE state = 'pending' ORDER BY created_at, id LIMIT ?"
)
_ANY_SQLITE = (
    "SELECT EXISTS (SELECT 1 FROM evaluation_jobs WHERE state = 'pending') "
    "OR EXISTS (SELECT 1 FROM evaluation_jobs WHERE state = 'running' AND lease_until < ?)"
)
# Ids per IN list: well below SQLite's bound on a statement's parameters.
_CHUNK = 500


def _chunks(ids: list[int]) -> list[list[int]]:
    return [ids[i : i + _CHUNK] for i in range(0, len(ids), _CHUNK)]


def _marks(count: int) -> str:
    return ", ".join("?" for _ in range(count))


@lru_cache(maxsize=32)
def _claim_update_sql(count: int) -> str:
    return (
        "UPDATE evaluation_jobs SET state = 'running', worker = ?, attempts = attempts + 1, "
        f"lease_until = ?, updated_at = ? WHERE id IN ({_marks(count)})"
    )


@lru_cache(maxsize=32)
def _owned_sql(count: int) -> str:
    return (
        "SELECT id, worker, attempts FROM evaluation_jobs "
        f"WHERE state = 'running' AND id IN ({_marks(count)})"
    )


def _claim_sqlite(
    conn: Connection, *, worker: str, limit: int, lease: timedelta, now: datetime
) -> list[ClaimedJob]:
    """``claim`` on SQLite: the same two reads and one UPDATE, as text (the
    reads through the driver's cursor, ``storage.driverread``)."""
    at = _sqlite_time(now)
    rows = fetch_all(conn, _EXPIRED_SQLITE, (at, limit))
    if len(rows) < limit:
        rows += fetch_all(conn, _PENDING_SQLITE, (limit - len(rows),))
    if not rows:
        return []
    until = _sqlite_time(now + lease)
    for chunk in _chunks([r[0] for r in rows]):
        conn.exec_driver_sql(_claim_update_sql(len(chunk)), (worker, until, at, *chunk))
    return [
        ClaimedJob(
            job_id, tenant, trace, revision, eval_type, bool(evaluate), tries + 1, worker, arrival
        )
        for job_id, tenant, trace, revision, eval_type, evaluate, tries, arrival in rows
    ]


def finish_many(conn: Connection, done: list[tuple[int, str | None]], *, now: datetime) -> None:
    """Mark owned jobs done with their evaluation ids, in one statement."""
    update_rows(
        conn,
        jobs,
        [
            {
                "state": "done",
                "evaluation_id": evaluation_id,
                "lease_until": None,
                "updated_at": now,
                "id": job_id,  # the key: last, as update_rows wants
            }
            for job_id, evaluation_id in done
        ],
        keys=("id",),
    )


def release(conn: Connection, claimed: list[ClaimedJob], *, now: datetime) -> int:
    """Hand jobs this worker claimed but will not run back to the queue, as
    if never claimed: pending again, the attempt not counted (a stopping
    worker's next batch, claimed in its last store). A job whose lease
    passed to another worker meanwhile is left alone. Returns how many."""
    released = 0
    for job in claimed:
        result = conn.execute(
            update(jobs)
            .where(_still_ours(job))
            .values(
                state="pending",
                worker=None,
                attempts=jobs.c.attempts - 1,
                lease_until=None,
                updated_at=now,
            )
        )
        released += result.rowcount
    return released


def attach_evaluation(conn: Connection, job_id: int, evaluation_id: str) -> None:
    conn.execute(update(jobs).where(jobs.c.id == job_id).values(evaluation_id=evaluation_id))


def fail(conn: Connection, job: ClaimedJob, *, error: str, now: datetime) -> bool:
    """Record a failed attempt: back to pending, or ``failed`` after the last one.

    Returns True when no attempt is left (the caller stores the ``unknown``
    evaluation that names the error instead of retrying forever).
    """
    final = job.attempts >= MAX_ATTEMPTS
    conn.execute(
        update(jobs)
        .where(
            and_(jobs.c.id == job.id, jobs.c.worker == job.worker, jobs.c.attempts == job.attempts)
        )
        .values(
            state="failed" if final else "pending",
            last_error=error[:2000],
            lease_until=None,
            updated_at=now,
        )
    )
    return final


# The states ``stats`` counts: what is waiting, running or given up on. Done
# jobs are left out: one stays per judged revision, so counting them read the
# whole table on every health check and scrape (docs/performance.md, session 24).
QUEUE_STATES = ("pending", "running", "failed")


def stats(conn: Connection, *, now: datetime) -> dict[str, Any]:
    """Queue depth by state and the age of the oldest waiting job.

    Each count is a range of ``ix_jobs_state_created`` (one state), so it
    costs what the queue holds, not what the table has held."""
    counts = {
        state: int(
            conn.execute(
                select(func.count()).select_from(jobs).where(jobs.c.state == state)
            ).scalar_one()
        )
        for state in QUEUE_STATES
    }
    oldest = conn.execute(
        select(func.min(jobs.c.created_at)).where(jobs.c.state == "pending")
    ).scalar()
    return {
        **counts,
        "oldest_pending_age_s": (now - oldest).total_seconds() if oldest is not None else 0.0,
    }
