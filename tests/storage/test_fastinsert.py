"""Bulk inserts store exactly what they are given, on both databases and both paths."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError

from storage.fastinsert import COPY_MIN_ROWS, insert_rows
from storage.models import EvaluationJob, LogEventRow, SpanRow
from storage.spans import spans

log_events = LogEventRow.__table__
jobs = EvaluationJob.__table__


def _span(i: int) -> dict[str, object]:
    return {
        "tenant_id": "t",
        "trace_id": f"{i // 3:032x}",
        "span_id": f"{i + 1:016x}",
        "parent_span_id": None if i % 3 == 0 else f"{i:016x}",
        "name": f"span é {i}\ttab\\back\nline",
        "kind": "INTERNAL",
        "iris_kind": "TOOL",
        "status_code": "OK",
        "status_message": None,
        "start_unix_nano": 1_764_547_200_000_000_000 + i,
        "end_unix_nano": 1_764_547_200_000_000_100 + i,
        "attributes": {"k": [1, "two", None, {"n": i}], "q": 'quote " and \\'} if i % 2 else None,
        "events": None,
        "resource": None,
        "scope_name": "scope",
        "received_at": datetime(2026, 11, 30, 5, 0, i % 60, 123456),
        "otlp_span": bytes(range(256)) + bytes([i % 256]),
        "resource_hash": None,
    }


def _stored(engine: Engine) -> list[dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(select(spans).order_by(spans.c.span_id)).mappings().all()
    return [{**r, "otlp_span": bytes(r["otlp_span"])} for r in rows]


@pytest.mark.parametrize("count", [3, COPY_MIN_ROWS * 3])
def test_rows_round_trip_and_duplicates_are_ignored(engine: Engine, count: int) -> None:
    rows = [_span(i) for i in range(count)]
    with engine.begin() as conn:
        insert_rows(conn, SpanRow.__table__, rows, ignore_conflicts=True)
    with engine.begin() as conn:  # a re-sent batch, half new
        more = rows + [_span(i) for i in range(count, count * 2)]
        insert_rows(conn, SpanRow.__table__, more, ignore_conflicts=True)
    stored = _stored(engine)
    assert stored == [_span(i) for i in range(count * 2)]


@pytest.mark.parametrize("count", [3, COPY_MIN_ROWS * 3])
def test_duplicates_fail_without_ignore(engine: Engine, count: int) -> None:
    rows = [_span(i) for i in range(count)]
    with engine.begin() as conn:
        insert_rows(conn, SpanRow.__table__, rows)
    with pytest.raises(IntegrityError), engine.begin() as conn:
        insert_rows(conn, SpanRow.__table__, [*rows, _span(count)])
    assert len(_stored(engine)) == count


def test_json_values_keep_their_types(engine: Engine) -> None:
    rows = [
        {
            "tenant_id": "t",
            "trace_id": "ab" * 16,
            "span_id": f"{i + 1:016x}",
            "name": "gen_ai.choice",
            "time_unix_nano": i,
            "body": {"message": {"content": f"answer {i} ✓"}, "index": i, "ok": True},
            "attributes": {},
            "received_at": datetime(2026, 11, 30, 5, 0, 0),
        }
        for i in range(COPY_MIN_ROWS * 2)
    ]
    with engine.begin() as conn:
        insert_rows(conn, log_events, rows)
    with engine.connect() as conn:
        bodies = [r.body for r in conn.execute(select(log_events).order_by(log_events.c.id))]
    assert bodies == [r["body"] for r in rows]


def test_rows_of_a_table_with_a_generated_key(engine: Engine) -> None:
    """Staged rows leave the key to the table (``evaluation_jobs.id``)."""
    now = datetime(2026, 11, 30, 5, 0, 0)
    rows = [
        {
            "tenant_id": "t",
            "trace_id": f"{i:032x}",
            "revision": 1,
            "eval_type": None,
            "evaluate": True,
            "state": "pending",
            "attempts": 0,
            "created_at": now,
            "updated_at": now,
        }
        for i in range(COPY_MIN_ROWS * 2)
    ]
    with engine.begin() as conn:
        insert_rows(conn, jobs, rows, ignore_conflicts=True)
        insert_rows(conn, jobs, rows, ignore_conflicts=True)  # (trace, revision) is unique
    with engine.connect() as conn:
        ids = [r.id for r in conn.execute(select(jobs.c.id).order_by(jobs.c.id))]
    assert len(ids) == len(rows) == len(set(ids))
