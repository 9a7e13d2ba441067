"""A tenant's kept trace count is its number of trace rows, whatever door
the traces came through and whatever was deleted."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, delete, func, select

from evaluators.model import AgentTrace
from storage import codec, search, tracecounts
from storage.models import Base, TraceCount
from storage.otlp import traces
from storage.traces import count_traces, delete_trace, insert_traces
from tests.support.ingest import ingest
from tests.support.otlp_bodies import agent_request

T0 = datetime(2026, 12, 6, 21, 0, 0)
TENANTS = ("t", "u")

# One step: OTLP traces in (tenant, how many, seed: the same seed sends the
# same traces again), native traces in (tenant, how many), or a delete (of
# the n-th stored trace of a tenant, if there is one).
steps = st.lists(
    st.one_of(
        st.tuples(st.just("otlp"), st.sampled_from(TENANTS), st.integers(1, 4), st.integers(0, 3)),
        st.tuples(st.just("native"), st.sampled_from(TENANTS), st.integers(1, 3), st.just(0)),
        st.tuples(st.just("delete"), st.sampled_from(TENANTS), st.integers(0, 20), st.just(0)),
    ),
    max_size=10,
)


def _rows(engine: Engine, tenant: str) -> list[str]:
    with engine.connect() as conn:
        return list(
            conn.scalars(
                select(traces.c.trace_id)
                .where(traces.c.tenant_id == tenant)
                .order_by(traces.c.trace_id)
            )
        )


def _native(engine: Engine, tenant: str, n: int, at: datetime) -> None:
    rows = [
        codec.trace_row(
            AgentTrace(agent_name="bot", input="hi", output="ok"),
            trace_id=codec.new_trace_id(),
            tenant_id=tenant,
            source="native",
            now=at,
        )
        for _ in range(n)
    ]
    with engine.begin() as conn:
        insert_traces(conn, rows, [[] for _ in rows])


@given(steps)
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_kept_count_is_the_number_of_rows(
    engine: Engine, plan: list[tuple[str, str, int, int]]
) -> None:
    with engine.begin() as conn:  # each example starts from an empty database
        for table in [*reversed(Base.metadata.sorted_tables), search.search_table]:
            conn.execute(delete(table))
    for i, (door, tenant, n, seed) in enumerate(plan):
        at = T0 + timedelta(seconds=i)
        if door == "otlp":
            body, _ = agent_request(random.Random(seed), n)
            ingest(engine, body, at=at, tenant=tenant)  # sent again: spans of stored traces
        elif door == "native":
            _native(engine, tenant, n, at)
        else:
            stored = _rows(engine, tenant)
            with engine.begin() as conn:
                gone = delete_trace(
                    conn, tenant, stored[n] if n < len(stored) else "f" * 32, now=at
                )
            assert gone == (n < len(stored))
        with engine.connect() as conn:
            for t in TENANTS:
                assert count_traces(conn, t) == len(_rows(engine, t))
    with engine.connect() as conn:
        assert count_traces(conn, "nobody") == 0


def test_the_shards_sum_to_the_total(engine: Engine) -> None:
    """Writers add to shards picked at random; the total is their sum, and a
    zero adds no row."""
    table = TraceCount.__table__
    with engine.begin() as conn:
        conn.execute(delete(table))
        tracecounts.add(conn, "t", 0)
        assert conn.execute(select(func.count()).select_from(table)).scalar_one() == 0
        for delta in (5, -2, 4, 1):
            tracecounts.add(conn, "t", delta)
        conn.execute(table.insert().values(tenant_id="t", shard=99, traces=10))
        tracecounts.add_all(conn, {"u": 3, "t": 0})
    with engine.connect() as conn:
        assert [tracecounts.total(conn, t) for t in ("t", "u", "v")] == [18, 3, 0]
        rows = conn.execute(select(func.count()).where(table.c.tenant_id == "t")).scalar_one()
    assert 2 <= rows <= 5  # one to four shards of the 16, and shard 99
