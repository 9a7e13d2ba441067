"""Verdicts are filed by their trace's arrival and found by trace id through
the API, before and after the trace is deleted and sent again."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select

from service.assembler import sweep_once
from service.worker import drain
from storage.evaluations import evaluations, of_trace
from storage.models import Trace
from tests.support.fixtures import scenarios

HEADERS = {"content-type": "application/x-protobuf"}


def _filed(engine: Engine, trace_id: str) -> list[int]:
    with engine.connect() as conn:
        return sorted(
            conn.execute(
                select(evaluations.c.trace_arrival_us).where(evaluations.c.trace_id == trace_id)
            ).scalars()
        )


def _arrival(engine: Engine, trace_id: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(select(Trace.arrival_us).where(Trace.trace_id == trace_id)).scalar_one()
        )


def test_verdicts_follow_their_trace_through_deletion_and_a_second_sending(
    make_client: Callable[..., TestClient],
) -> None:
    scenario = next(s for s in scenarios() if s.id == "pydantic_ai/tools_ok")
    body = scenario.bodies("pb")[0]
    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0)
    state = client.app.state.iris  # type: ignore[attr-defined]

    def send_and_judge() -> None:
        assert client.post("/v1/traces", content=body, headers=HEADERS).status_code == 200
        sweep_once(state.engine, state.settings)
        drain(state.engine, state.settings)

    send_and_judge()
    (trace_id,) = [t["trace_id"] for t in client.get("/api/v1/traces").json()["traces"]]
    first = _arrival(state.engine, trace_id)
    assert _filed(state.engine, trace_id) == [first]  # the worker filed it by arrival
    assert len(client.get(f"/api/v1/traces/{trace_id}").json()["evals"]) == 1

    assert client.delete(f"/api/v1/traces/{trace_id}").json()["deleted"] is True
    assert _filed(state.engine, trace_id) == [0]  # erased, filed where a lookup still looks
    listed = client.get("/api/v1/evaluations", params={"trace_id": trace_id}).json()
    assert listed["total"] == 1 and "erased_at" in listed["results"][0]

    send_and_judge()  # the same trace id again: a new trace, judged again
    second = _arrival(state.engine, trace_id)
    assert second > first
    assert _filed(state.engine, trace_id) == [0, second]
    listed = client.get("/api/v1/evaluations", params={"trace_id": trace_id}).json()
    assert listed["total"] == 2
    assert len(client.get(f"/api/v1/traces/{trace_id}").json()["evals"]) == 2


def test_sqlite_finds_a_traces_verdicts_by_key(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    engine = client.app.state.iris.engine  # type: ignore[attr-defined]
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner only: PostgreSQL plans by its statistics")
    query = select(evaluations.c.id).where(of_trace("t", "ab" * 16))
    sql = query.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True}).string
    with engine.connect() as conn:
        plan = [row[-1] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")]
    assert any(
        "USING INDEX ix_evaluations_tenant_trace (tenant_id=? AND trace_arrival_us=? AND "
        "trace_id=?)" in step
        for step in plan
    ), plan
    assert not any(step.startswith("SCAN") for step in plan), plan
