"""Migration 0014 keys evaluation jobs by their trace's arrival, and back."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from sqlalchemy import Engine, inspect, select, text

from storage import assembly, migrate
from storage.otlp import traces
from storage.traces import delete_trace
from tests.migrations.revisions import move_to
from tests.support.ingest import ingest, sweep
from tests.support.otlp_bodies import agent_request

T0 = datetime(2026, 12, 6, 4, 0, 0)


def _unique_key(engine: Engine) -> list[str]:
    (unique,) = inspect(engine).get_unique_constraints("evaluation_jobs")
    return list(unique["column_names"])


def _jobs(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text("SELECT id, trace_id, revision, state FROM evaluation_jobs ORDER BY id")
            )
        ]


def _ingest_and_sweep(engine: Engine, body: bytes, at: datetime) -> None:
    ingest(engine, body, at=at)
    with engine.begin() as conn:
        sweep(conn, at + timedelta(seconds=5))


def test_upgrade_keys_jobs_by_their_traces_arrival_and_downgrade_keeps_one_per_revision(
    engine: Engine,
) -> None:
    body, ids = agent_request(random.Random(3), 4)
    _ingest_and_sweep(engine, body, T0)
    gone = sorted({t for t, _ in ids})[0]
    with engine.begin() as conn:
        assert delete_trace(conn, "t", gone, now=T0 + timedelta(seconds=6))
    _ingest_and_sweep(engine, body, T0 + timedelta(minutes=1))  # the deleted one again
    jobs = _jobs(engine)
    assert len(jobs) == 5

    move_to(engine, "0013", down=True)
    assert _unique_key(engine) == ["tenant_id", "trace_id", "revision"]
    # one job per (trace, revision) again: of the deleted trace's two, the latest
    assert _jobs(engine) == [j for j in jobs if not (j[1] == gone and j[0] != jobs[-1][0])]

    move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert _unique_key(engine) == ["tenant_id", "arrival_us", "trace_id", "revision"]
    with engine.connect() as conn:
        keys = {r.trace_id: r.arrival_us for r in conn.execute(select(traces))}
        carried = conn.execute(select(assembly.jobs.c.trace_id, assembly.jobs.c.arrival_us)).all()
    assert len(carried) == 4 and all(key == keys[t] for t, key in carried)
