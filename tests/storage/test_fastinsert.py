"""Bulk inserts store exactly what they are given, on both databases and both paths."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError

from storage import jsontext
from storage.fastinsert import COPY_MIN_ROWS, _sqlite_datetime, insert_rows
from storage.models import EvaluationJob, LogEventRow
from storage.spans import span_batches

log_events = LogEventRow.__table__
jobs = EvaluationJob.__table__


def _span(i: int) -> dict[str, object]:
    """A span batch row with awkward values: COPY escapes, JSON, bytes 0-255."""
    return {
        "tenant_id": "t",
        "arrival_us": 1_764_478_800_000_000 + i // 3,
        "trace_id": f"{i // 3:032x}",
        "seq": i % 3,
        "span_count": 1,
        "span_ids": f"{i + 1:016x}",
        "iris_kinds": "TOOL" if i % 2 == 0 else None,
        "received_at": datetime(2026, 11, 30, 5, 0, i % 60, 123456),
        "resource_hash": None,
        "otlp_spans": bytes(range(256)) + bytes([i % 256]) if i % 2 == 0 else None,
        "spans_json": [
            {
                "name": f"span é {i}\ttab\\back\nline",
                "start_unix_nano": 1_764_547_200_000_000_000 + i,
                "attributes": {"k": [1, "two", None, {"n": i}], "q": 'quote " and \\'},
            }
        ]
        if i % 2
        else None,
    }


def _stored(engine: Engine) -> list[dict[str, object]]:
    with engine.connect() as conn:
        rows = conn.execute(select(span_batches).order_by(span_batches.c.span_ids)).mappings().all()
    return [
        {**r, "otlp_spans": None if r["otlp_spans"] is None else bytes(r["otlp_spans"])}
        for r in rows
    ]


@pytest.mark.parametrize("count", [3, COPY_MIN_ROWS * 3])
def test_rows_round_trip_and_duplicates_are_ignored(engine: Engine, count: int) -> None:
    rows = [_span(i) for i in range(count)]
    with engine.begin() as conn:
        insert_rows(conn, span_batches, rows, ignore_conflicts=True)
    with engine.begin() as conn:  # a re-sent batch, half new
        more = rows + [_span(i) for i in range(count, count * 2)]
        insert_rows(conn, span_batches, more, ignore_conflicts=True)
    stored = _stored(engine)
    assert stored == [_span(i) for i in range(count * 2)]


@pytest.mark.parametrize("count", [3, COPY_MIN_ROWS * 3])
def test_duplicates_fail_without_ignore(engine: Engine, count: int) -> None:
    rows = [_span(i) for i in range(count)]
    with engine.begin() as conn:
        insert_rows(conn, span_batches, rows)
    with pytest.raises(IntegrityError), engine.begin() as conn:
        insert_rows(conn, span_batches, [*rows, _span(count)])
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


def test_json_values_are_stored_as_the_text_the_encoder_wrote(engine: Engine) -> None:
    """On SQLite the UTF-8 bytes go to the driver: they must land as text, as
    a ``str`` did, characters beyond Latin-1 and ``Encoded`` values included."""
    bodies = [{"why": "≥ 50 — “quoted” 😀", "n": 1}, jsontext.Encoded('{"kept":"…"}'.encode())]
    rows = [
        {
            "tenant_id": "t",
            "trace_id": "cd" * 16,
            "span_id": f"{i + 1:016x}",
            "name": "gen_ai.choice",
            "time_unix_nano": i,
            "body": body,
            "received_at": datetime(2026, 11, 30, 5, 0, 0),
        }
        for i, body in enumerate(bodies)
    ]
    with engine.begin() as conn:
        insert_rows(conn, log_events, rows)
    with engine.connect() as conn:
        read = [r.body for r in conn.execute(select(log_events).order_by(log_events.c.id))]
        if engine.dialect.name == "sqlite":
            kinds = conn.exec_driver_sql("SELECT DISTINCT typeof(body) FROM log_events").all()
            assert kinds == [("text",)]
    assert read == [bodies[0], {"kept": "…"}]


def test_rows_of_a_table_with_a_generated_key(engine: Engine) -> None:
    """Staged rows leave the key to the table (``evaluation_jobs.id``)."""
    now = datetime(2026, 11, 30, 5, 0, 0)
    rows = [
        {
            "tenant_id": "t",
            "arrival_us": 1_764_478_800_000_000,
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


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=datetime(1000, 1, 1)), st.booleans())
def test_datetimes_are_written_in_sqlalchemys_sqlite_form(value: datetime, aware: bool) -> None:
    if aware:
        value = value.replace(tzinfo=UTC)
    assert _sqlite_datetime(value) == value.strftime("%Y-%m-%d %H:%M:%S.%f")
