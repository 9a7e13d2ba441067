"""Two writers storing the same spans at once: each span stored once, neither refused.

The span writer reads which spans of its traces are stored, then inserts the
rest as a batch keyed by how many spans the trace had, without an ON CONFLICT
clause. A second receiver committing spans of the same trace between the read
and the insert makes the insert fail with a unique violation; the writer
retries the request, which then reads them as stored.
The test forces that interleaving: both writers read before either inserts.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from storage import otlp
from storage.models import Trace
from storage.otlp import SpanBatchWrite, TraceDelta
from storage.spans import json_piece, spans_of
from storage.writer import run_transaction

T0 = datetime(2026, 1, 1, 12, 0, 0)


def _span(span_id: str, parent: str | None) -> dict[str, Any]:
    return {
        "span_id": span_id,
        "parent_span_id": parent,
        "name": "execute_tool lookup",
        "kind": "INTERNAL",
        "iris_kind": "TOOL",
        "status_code": "OK",
        "status_message": None,
        "start_unix_nano": 1,
        "end_unix_nano": 2,
        "attributes": {"gen_ai.tool.name": "lookup"},
        "events": None,
        "resource": None,
        "scope_name": None,
    }


def _request(trace_id: str, span_ids: list[str], *, root: bool = False) -> SpanBatchWrite:
    rows = [_span(s, None if root and i == 0 else "r0") for i, s in enumerate(span_ids)]
    delta = TraceDelta(
        trace_id=trace_id,
        pieces=[json_piece(rows)],
        has_root=root,
        root_span_id=span_ids[0] if root else None,
        first_start=T0,
        error=False,
        finalize=False,
        service_name="race",
    )
    return SpanBatchWrite(tenant_id="local", source="otlp", deltas=[delta], received_at=T0)


def test_racing_writers_store_each_span_once(engine: Engine, monkeypatch: Any) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip(
            "SQLite has one writer at a time: the second cannot read before the first writes"
        )
    trace_id = "ab" * 16
    # the trace exists (its root came earlier), so the race is on the spans alone
    ok, failures = run_transaction(engine, [_request(trace_id, ["r0"], root=True)])
    assert failures == 0, ok
    both_read = threading.Barrier(2, timeout=20)
    waited: set[int] = set()
    real_insert = otlp.insert_rows

    def insert_after_both_read(conn: Any, table: Any, rows: Any, **kwargs: Any) -> None:
        # the first write of each attempt (the resources, then the trace row
        # and the spans): a second attempt must not wait for a partner
        if threading.get_ident() not in waited:
            waited.add(threading.get_ident())
            both_read.wait()  # both writers have read "not stored" by now
        real_insert(conn, table, rows, **kwargs)

    monkeypatch.setattr(otlp, "insert_rows", insert_after_both_read)
    outcomes: list[tuple[list[Any], int]] = []

    def send() -> None:
        outcomes.append(run_transaction(engine, [_request(trace_id, ["s1", "s2", "s3"])]))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(outcomes) == 2
    assert [failures for _, failures in outcomes] == [0, 0], outcomes
    with engine.connect() as conn:
        stored = sorted(s["span_id"] for s in spans_of(conn, "local", [trace_id]))
        span_count = conn.execute(select(Trace.span_count)).scalar_one()
        traces = conn.execute(select(func.count()).select_from(Trace)).scalar_one()
    assert stored == ["r0", "s1", "s2", "s3"]
    assert (traces, span_count) == (1, 4)
