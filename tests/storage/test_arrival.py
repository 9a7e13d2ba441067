"""Span batches and jobs are filed by their trace's arrival, ahead of the random trace id."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine, select

from storage import assembly
from storage.arrival import arrival_key
from storage.otlp import traces
from storage.spans import _batches_sql, span_batches, spans_of
from storage.traces import delete_trace
from tests.support.ingest import ingest, sweep
from tests.support.otlp_bodies import agent_request

jobs = assembly.jobs
T0 = datetime(2026, 12, 6, 4, 0, 0, 250_000)
naive = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1))


@given(naive, naive)
def test_arrival_key_orders_as_the_times_do(a: datetime, b: datetime) -> None:
    assert (arrival_key(a) < arrival_key(b)) == (a < b)
    assert arrival_key(a + timedelta(microseconds=1)) == arrival_key(a) + 1


@given(naive, st.integers(min_value=-12 * 60, max_value=14 * 60))
def test_an_aware_time_keys_as_its_naive_utc(at: datetime, offset_min: int) -> None:
    zone = timezone(timedelta(minutes=offset_min))
    assert arrival_key(at.replace(tzinfo=UTC).astimezone(zone)) == arrival_key(at)


def test_known_value() -> None:
    assert arrival_key(datetime(1970, 1, 1, 0, 0, 1, 5)) == 1_000_005
    assert arrival_key(T0) == 1_796_529_600_250_000


def test_batches_sort_by_arrival_then_trace_and_late_spans_keep_their_trace_key(
    engine: Engine,
) -> None:
    rng = random.Random(5)
    first, first_ids = agent_request(rng, 20)
    second, second_ids = agent_request(rng, 20)
    ingest(engine, first, at=T0)
    ingest(engine, second, at=T0 + timedelta(milliseconds=3))
    # the first request's spans again, later: no new batch, no new key
    ingest(engine, first, at=T0 + timedelta(seconds=9))
    with engine.connect() as conn:
        keys = dict(conn.execute(select(traces.c.trace_id, traces.c.arrival_us)).all())
        created = dict(conn.execute(select(traces.c.trace_id, traces.c.created_at)).all())
        in_key_order = conn.execute(
            select(span_batches.c.trace_id, span_batches.c.arrival_us).order_by(
                span_batches.c.tenant_id,
                span_batches.c.arrival_us,
                span_batches.c.trace_id,
                span_batches.c.seq,
            )
        ).all()
        spans = spans_of(conn, "t", sorted(keys))
    first_traces = {t for t, _ in first_ids}
    second_traces = {t for t, _ in second_ids}
    assert set(keys) == first_traces | second_traces
    assert all(keys[t] == arrival_key(created[t]) for t in keys)
    assert {keys[t] for t in first_traces} == {arrival_key(T0)}
    assert {keys[t] for t in second_traces} == {arrival_key(T0 + timedelta(milliseconds=3))}
    # every batch carries its trace's key; the first request's come first
    assert all(key == keys[t] for t, key in in_key_order)
    order = [t for t, _ in in_key_order]
    assert set(order[: len(first_traces)]) == first_traces
    assert set(order[len(first_traces) :]) == second_traces
    assert sorted((s["trace_id"], s["span_id"]) for s in spans) == sorted(first_ids + second_ids)


def test_sqlite_reads_batches_through_each_traces_key(engine: Engine) -> None:
    """Without statistics SQLite's planner once chose to read every batch of
    the tenant for 128 traces; the read must look each trace up by key."""
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's planner only: PostgreSQL plans by its statistics")
    ids = [f"{i:032x}" for i in range(128)]
    for spans in (True, False):
        statement = _batches_sql("sqlite", spans=spans).params(tenant_id="t", trace_ids=ids)
        sql = statement.compile(
            dialect=engine.dialect, compile_kwargs={"literal_binds": True}
        ).string
        with engine.connect() as conn:
            plan = [row[-1] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")]
        assert plan[0].startswith("SEARCH t USING INDEX sqlite_autoindex_traces_1"), plan
        assert plan[1].startswith("SEARCH b USING INDEX sqlite_autoindex_span_batches_1"), plan
        assert "(tenant_id=? AND arrival_us=? AND trace_id=?)" in plan[1], plan
        assert not any(step.startswith("SCAN") for step in plan), plan


def _sweep_at(engine: Engine, now: datetime) -> int:
    with engine.begin() as conn:
        return sweep(conn, now)


def test_jobs_carry_their_traces_arrival_and_a_trace_sent_again_after_deletion_is_judged(
    engine: Engine,
) -> None:
    body, ids = agent_request(random.Random(9), 3)
    trace_ids = sorted({t for t, _ in ids})
    ingest(engine, body, at=T0)
    assert _sweep_at(engine, T0 + timedelta(seconds=5)) == 3
    with engine.begin() as conn:
        assert delete_trace(conn, "t", trace_ids[0], now=T0 + timedelta(seconds=6))
    later = T0 + timedelta(minutes=1)
    ingest(engine, body, at=later)
    assert _sweep_at(engine, later + timedelta(seconds=5)) == 1
    with engine.connect() as conn:
        queued = conn.execute(
            select(jobs.c.trace_id, jobs.c.revision, jobs.c.arrival_us).order_by(jobs.c.id)
        ).all()
    # the same (trace, revision) twice: the trace sent again is a new arrival
    assert sorted(tuple(j) for j in queued[:3]) == [(t, 1, arrival_key(T0)) for t in trace_ids]
    assert [tuple(j) for j in queued[3:]] == [(trace_ids[0], 1, arrival_key(later))]
