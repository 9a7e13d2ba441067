"""Migration 0015 files evaluations by their trace's arrival, and back."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from sqlalchemy import Engine, inspect, select, text

from storage import migrate
from storage.evaluations import evaluations, store_evaluation
from storage.otlp import traces
from storage.traces import delete_trace
from tests.migrations.revisions import move_to
from tests.support.ingest import ingest
from tests.support.otlp_bodies import agent_request

T0 = datetime(2026, 12, 6, 5, 0, 0)
RESULT = {"score": 1.0, "passed": True, "rule_results": [], "verdict": {"state": "pass"}}


def _trace_index(engine: Engine) -> list[str]:
    (index,) = [
        ix
        for ix in inspect(engine).get_indexes("evaluations")
        if ix["name"] == "ix_evaluations_tenant_trace"
    ]
    return [str(c) for c in index["column_names"]]


def test_upgrade_files_live_verdicts_by_arrival_and_the_rest_under_zero(engine: Engine) -> None:
    body, ids = agent_request(random.Random(4), 2)
    ingest(engine, body)
    kept, gone = sorted({t for t, _ in ids})
    with engine.begin() as conn:
        for trace_id in (kept, gone, None):
            store_evaluation(conn, tenant_id="t", result=RESULT, now=T0, trace_id=trace_id)
        assert delete_trace(conn, "t", gone, now=T0 + timedelta(seconds=1))

    move_to(engine, "0014", down=True)
    assert _trace_index(engine) == ["tenant_id", "trace_id"]
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM evaluations")).scalar_one() == 3

    move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert _trace_index(engine) == ["tenant_id", "trace_arrival_us", "trace_id"]
    with engine.connect() as conn:
        live = conn.execute(select(traces.c.arrival_us).where(traces.c.trace_id == kept)).scalar()
        filed = dict(
            conn.execute(select(evaluations.c.trace_id, evaluations.c.trace_arrival_us)).all()
        )
    assert live and filed == {kept: live, gone: 0, None: 0}
