"""Migration 0006 moves span rows into span batches and back, losing nothing."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from sqlalchemy import Engine, text

from service.derivation import record_from_row
from storage import migrate
from storage.spans import spans_of
from tests.migrations.revisions import move_to

T0 = datetime(2026, 1, 1, 12, 0, 0)
TRACE = "ab" * 16
PB_SPAN = Span(
    trace_id=bytes.fromhex(TRACE),
    span_id=bytes.fromhex("00000000000000a1"),
    parent_span_id=bytes.fromhex("00000000000000a2"),
    name="chat gpt-4o",
    kind=Span.SPAN_KIND_CLIENT,
    start_time_unix_nano=10,
    end_time_unix_nano=20,
    status=Status(code=Status.STATUS_CODE_ERROR, message="boom"),
    attributes=[KeyValue(key="gen_ai.operation.name", value=AnyValue(string_value="chat"))],
).SerializeToString()

OLD_ROWS: list[dict[str, Any]] = [
    {
        "span_id": "00000000000000a1",
        "parent_span_id": "00000000000000a2",
        "name": "chat gpt-4o",
        "kind": "CLIENT",
        "iris_kind": "LLM",
        "status_code": "ERROR",
        "status_message": "boom",
        "start_unix_nano": 10,
        "end_unix_nano": 20,
        "attributes": None,
        "events": None,
        "resource": None,
        "scope_name": "opentelemetry.instrumentation.openai",
        "otlp_span": PB_SPAN,
        "resource_hash": "0f" * 16,
    },
    {
        "span_id": "00000000000000a2",
        "parent_span_id": None,
        "name": "invoke_agent helper",
        "kind": "INTERNAL",
        "iris_kind": "AGENT",
        "status_code": "UNSET",
        "status_message": None,
        "start_unix_nano": 5,
        "end_unix_nano": 30,
        "attributes": '{"gen_ai.agent.name": "helper", "n": [1, 2]}',
        "events": '[{"name": "e", "time_unix_nano": 7, "attributes": {}}]',
        "resource": '{"service.name": "svc"}',
        "scope_name": None,
        "otlp_span": None,
        "resource_hash": None,
    },
]


def _old_rows(engine: Engine) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT * FROM spans ORDER BY span_id")).mappings().all()
    out = []
    for r in rows:
        row = {k: r[k] for k in OLD_ROWS[0]}
        if row["otlp_span"] is not None:
            row["otlp_span"] = bytes(row["otlp_span"])
        for k in ("attributes", "events", "resource"):  # SQLite: JSON text, in any spacing
            if isinstance(row[k], str):
                row[k] = json.loads(row[k])
        out.append(row)
    return out


def _insert_old(engine: Engine) -> None:
    with engine.begin() as conn:
        # The spans' trace: readers reach a trace's batches through its row
        # (migration 0013).
        conn.execute(
            text(
                "INSERT INTO traces (tenant_id, trace_id, agent_name, timestamp, created_at,"
                " source, status, revision, has_root, error, span_count, finalize_requested,"
                " derived) VALUES ('t', :trace, 'helper', :ts, :ts, 'otlp', 'ready', 1, true,"
                " true, 2, false, true)"
            ),
            {"trace": TRACE, "ts": T0},
        )
        conn.execute(
            text(
                "INSERT INTO span_resources (tenant_id, resource_hash, otlp_resource) "
                "VALUES ('t', :h, :raw)"
            ),
            {"h": "0f" * 16, "raw": b"\x0a\x00"},
        )
        for row in OLD_ROWS:
            cast = "CAST(:{} AS JSONB)" if engine.dialect.name == "postgresql" else ":{}"
            columns = ", ".join(row)
            values = ", ".join(
                cast.format(k) if k in ("attributes", "events", "resource") else f":{k}"
                for k in row
            )
            conn.execute(
                text(
                    f"INSERT INTO spans (tenant_id, trace_id, received_at, {columns}) "
                    f"VALUES ('t', :trace, :ts, {values})"
                ),
                {**row, "trace": TRACE, "ts": T0},
            )


def test_upgrade_moves_each_span_into_a_batch_and_downgrade_restores_the_rows(
    engine: Engine,
) -> None:
    move_to(engine, "0005", down=True)
    try:
        _insert_old(engine)
        before = _old_rows(engine)
        move_to(engine, "head", down=False)
        with engine.connect() as conn:
            spans = {s["span_id"]: s for s in spans_of(conn, "t", [TRACE])}
            batches = conn.execute(
                text("SELECT seq, span_count, span_ids FROM span_batches ORDER BY seq")
            ).all()
        # one batch per old row, keyed in arrival order (then span id)
        assert [tuple(b) for b in batches] == [
            (0, 1, "00000000000000a1"),
            (1, 1, "00000000000000a2"),
        ]
        pb, js = spans["00000000000000a1"], spans["00000000000000a2"]
        assert pb["otlp_span"] == PB_SPAN and pb["otlp_resource"] == b"\x0a\x00"
        assert (pb["name"], pb["kind"], pb["iris_kind"], pb["status_code"]) == (
            "chat gpt-4o",
            "CLIENT",
            "LLM",
            "ERROR",
        )
        assert pb["scope_name"] == "opentelemetry.instrumentation.openai"
        assert record_from_row(pb).attributes == {"gen_ai.operation.name": "chat"}
        assert js["attributes"] == {"gen_ai.agent.name": "helper", "n": [1, 2]}
        assert js["resource"] == {"service.name": "svc"}
        assert (js["iris_kind"], js["start_unix_nano"], js["parent_span_id"]) == ("AGENT", 5, None)
        move_to(engine, "0005", down=True)
        assert _old_rows(engine) == before
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM spans"))
            conn.execute(text("DELETE FROM span_resources"))
            conn.execute(text("DELETE FROM traces"))
        move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
