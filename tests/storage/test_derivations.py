"""A derivation stored without the columns its trace row already holds leaves
that row exactly as writing every column would."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, delete, select, update

from evaluators.model import AgentTrace
from storage import assembly, codec
from storage.models import Trace
from storage.traces import TraceQuery, list_traces

traces = Trace.__table__
T0 = datetime(2026, 1, 1, 12, 0, 0, 47065)
FOUR = assembly.DerivedFrom(span_count=4, log_writes=0)  # what _add files


def _add(engine: Engine, trace_id: str, **changes: Any) -> dict[str, Any]:
    row = codec.trace_row(
        AgentTrace(agent_name="bot", output="stored"),
        trace_id=trace_id,
        tenant_id="t",
        source="otlp",
        now=T0,
    )
    row.update(span_count=4, derived=False, **changes)
    with engine.begin() as conn:
        conn.execute(traces.insert(), [row])
    return row


def _read(engine: Engine, trace_id: str) -> dict[str, Any]:
    with engine.connect() as conn:
        found = assembly.as_dicts(conn.execute(select(traces).where(traces.c.trace_id == trace_id)))
    return found[0]


# What a derivation may bring, each either what the row had or something else:
# numbers of another type but equal value (2 for 2.0) must still be written.
fresh = st.fixed_dictionaries(
    {
        "agent_name": st.sampled_from(["bot", "other-bot"]),
        "timestamp": st.sampled_from([T0, T0 + timedelta(microseconds=1)]),
        "run": st.sampled_from([None, "run-1"]),
        "has_root": st.booleans(),
        "finalize_requested": st.booleans(),
        "latency_ms": st.sampled_from([None, 2, 2.0, 3.5]),
        "output": st.sampled_from(["stored", "derived"]),
        "metadata": st.sampled_from([{}, {"model": "m"}]),
        "lacked": st.sampled_from([[], ["tokens"]]),
    }
)


@given(fresh, st.sampled_from([None, 2.0, 2]), st.booleans())
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_leaving_out_unchanged_columns_stores_the_same_row(
    engine: Engine, values: dict[str, Any], latency: float | None, pointed: bool
) -> None:
    with engine.begin() as conn:
        conn.execute(delete(traces))
    for trace_id in ("a" * 32, "b" * 32):
        _add(engine, trace_id, latency_ms=latency, has_root=True)
    if pointed:
        values = {**values, "latest_evaluation_id": "eval_1", "latest_score": 0.5}
    items = [("t", "a" * 32, values, FOUR), ("t", "b" * 32, values, FOUR)]
    stored = [_read(engine, "a" * 32), None]  # b: every column written
    with engine.begin() as conn:
        assert assembly.save_derivations(conn, items, stored=stored) == [True, True]
    first, second = _read(engine, "a" * 32), _read(engine, "b" * 32)
    for row in (first, second):
        del row["trace_id"]
    assert first == second
    assert {c: type(v) for c, v in first.items()} == {c: type(v) for c, v in second.items()}


def test_json_columns_and_changed_types_are_written() -> None:
    row = {"agent_name": "bot", "latency_ms": 2.0, "run": None, "metadata": {}, "error": False}
    values = {"agent_name": "bot", "latency_ms": 2, "run": None, "metadata": {}, "error": 0}
    assert assembly.changed_values(values, row) == {"latency_ms": 2, "metadata": {}, "error": 0}


def test_changed_values_are_the_values_of_the_other_columns() -> None:
    row = {"agent_name": "bot", "latency_ms": 2.0, "run": None, "output": "a"}
    values = {"agent_name": "bot", "latency_ms": 2, "run": None, "output": "b", "session_id": None}
    assert assembly.changed_values(values, row) == {
        "latency_ms": 2,
        "output": "b",
        "session_id": None,  # not in the row as read: written
    }


def test_a_finalize_request_since_the_read_is_kept_when_the_derivation_agrees(
    engine: Engine,
) -> None:
    """Not written, a column another statement set since the read keeps its
    value (writing every column put the read value back)."""
    _add(engine, "c" * 32)
    stored = _read(engine, "c" * 32)
    with engine.begin() as conn:
        conn.execute(update(traces).values(finalize_requested=True))
    values = {"finalize_requested": False, "output": "derived"}
    with engine.begin() as conn:
        assembly.save_derivations(conn, [("t", "c" * 32, values, FOUR)], stored=[stored])
    row = _read(engine, "c" * 32)
    assert (row["finalize_requested"], row["output"], row["derived"]) == (True, "derived", True)


def test_the_search_row_is_built_from_every_value(engine: Engine) -> None:
    """The output the row already had is not written, but is still indexed."""
    _add(engine, "d" * 32, output="kiwis")
    stored = _read(engine, "d" * 32)
    with engine.begin() as conn:
        assembly.save_derivations(
            conn, [("t", "d" * 32, {"output": "kiwis"}, FOUR)], stored=[stored]
        )
    with engine.connect() as conn:
        page = list_traces(conn, TraceQuery(tenant_id="t", q="kiwis"))
    assert [r.trace_id for r in page.rows] == ["d" * 32]
