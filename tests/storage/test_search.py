"""The search index: the text it stores for a trace, and its rows on re-indexing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, text

from evaluators.model import AgentTrace
from storage import codec, search
from storage.models import Trace
from storage.traces import TraceQuery, list_traces


def _reference(value: Any, out: list[str]) -> None:
    """The plain recursive walk ``values_text`` must agree with."""
    if value is None:
        return
    if isinstance(value, dict):
        for item in value.values():
            _reference(item, out)
    elif isinstance(value, list | tuple):
        for item in value:
            _reference(item, out)
    elif isinstance(value, str):
        out.append(value)
    else:
        out.append(json.dumps(value))


_CALL_KEYS = ("tool_name", "input", "output", "error", "latency_ms", "call_id", "started_at")

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and infinities included: json.dumps spells them its own way
    | st.text(max_size=8)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4) | st.integers(-3, 3), inner, max_size=4)
    ),
    max_leaves=25,
)


@given(values)
@settings(max_examples=400, deadline=None)
def test_values_text_is_every_leaf_in_order_without_keys(value: Any) -> None:
    parts: list[str] = []
    _reference(value, parts)
    assert search.values_text(value) == " ".join(parts)


@given(st.lists(st.dictionaries(st.sampled_from(_CALL_KEYS), values, max_size=8), max_size=4))
@settings(max_examples=300, deadline=None)
def test_tool_calls_text_is_each_calls_name_input_output_and_error(calls: list[Any]) -> None:
    parts: list[str] = []
    for call in calls:
        for key in ("tool_name", "input", "output", "error"):
            _reference(call.get(key), parts)
    assert search.tool_calls_text(calls) == " ".join(parts)


def test_tool_calls_text_leaves_out_timings_ids_and_key_names() -> None:
    calls = [
        {
            "tool_name": "lookup_order",
            "input": {"order_id": "NW-1"},
            "output": {"carrier": "UPS", "eta_days": 4},
            "latency_ms": 162.5,
            "started_at": "2025-12-01T00:00:00.055Z",
            "call_id": "call_bacfb3d0",
            "cost_usd": 0.001,
        },
        {"tool_name": "refund", "error": "HTTPError: 502"},
        "not a call",
    ]
    expected = "lookup_order NW-1 UPS 4 refund HTTPError: 502 not a call"
    assert search.tool_calls_text(calls) == expected


def _stored_trace(engine: Engine, trace_id: str, output: str) -> dict[str, Any]:
    row = codec.trace_row(
        AgentTrace(agent_name="a", output=output),
        trace_id=trace_id,
        tenant_id="t",
        source="otlp",
        now=codec.utcnow(),
    )
    with engine.begin() as conn:
        conn.execute(Trace.__table__.insert(), [row])
    return row


def _found(engine: Engine, word: str) -> list[str]:
    with engine.connect() as conn:
        page = list_traces(conn, TraceQuery(tenant_id="t", q=word))
    return sorted(r.trace_id for r in page.rows)


def test_reindexing_replaces_the_rows_of_those_traces_only(engine: Engine) -> None:
    first = _stored_trace(engine, "a" * 32, "apples")
    second = _stored_trace(engine, "b" * 32, "apples")
    with engine.begin() as conn:
        search.index_rows(conn, [first, second])
    with engine.begin() as conn:
        search.index_rows(conn, [{**first, "output": "pears"}], replace=True)
    assert _found(engine, "pears") == ["a" * 32]
    assert _found(engine, "apples") == ["b" * 32]
    with engine.connect() as conn:
        count = conn.execute(text("SELECT count(*) FROM trace_search")).scalar_one()
    assert count == 2


def test_a_tool_calls_values_and_error_are_found_and_its_bookkeeping_is_not(
    engine: Engine,
) -> None:
    row = _stored_trace(engine, "a" * 32, "done")
    row["tool_calls"] = [
        {
            "tool_name": "lookup_order",
            "input": {"order_id": "NW-356787"},
            "output": {"city": "Seattle"},
            "error": "Gateway timeout",
            "call_id": "call_bacfb3d00b1f",
        }
    ]
    row["metadata"] = {"model": "gpt-4o"}
    with engine.begin() as conn:
        search.index_rows(conn, [row])
    for word in ("lookup_order", "NW-356787", "Seattle", "timeout", "gpt-4o"):
        assert _found(engine, word) == ["a" * 32], word
    for word in ("call_bacfb3d00b1f", "city", "model"):
        assert _found(engine, word) == [], word


def test_numbers_addresses_and_hyphenated_codes_are_found_by_their_parts(
    engine: Engine,
) -> None:
    row = _stored_trace(engine, "a" * 32, "Refunded 12.50 to ana@example.com for order NW-356787")
    with engine.begin() as conn:
        search.index_rows(conn, [row])
    for query in ("12.50", "50", "example.com", "ana", "NW-356787", "356787", "order nw"):
        assert _found(engine, query) == ["a" * 32], query


@given(st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_the_index_splits_text_into_the_words_a_query_does(value: str) -> None:
    assert search.index_words(value).split() == search.query_words(value) or len(value) > 1000


def test_removed_traces_are_no_longer_found(engine: Engine) -> None:
    rows = [_stored_trace(engine, c * 32, "plums") for c in "abc"]
    with engine.begin() as conn:
        search.index_rows(conn, rows)
        search.remove(conn, [("t", "a" * 32), ("t", "c" * 32), ("t", "f" * 32)])
    assert _found(engine, "plums") == ["b" * 32]
