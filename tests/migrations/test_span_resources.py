"""Migration 0002 moves each span's resource bytes into ``span_resources`` and back."""

from __future__ import annotations

from sqlalchemy import Engine, text

from storage import migrate
from storage.spans import resource_hash
from tests.migrations.revisions import move_to


def test_upgrade_moves_resources_and_downgrade_restores(engine: Engine) -> None:
    move_to(engine, "0001", down=True)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO traces (tenant_id, trace_id, agent_name, timestamp, created_at, "
                    "source, status, revision, has_root, error, span_count, finalize_requested, "
                    "derived, metadata) VALUES ('t', :tid, 'a', :ts, :ts, 'otlp', 'open', 1, "
                    "false, false, 3, false, false, '{}')"
                ),
                {"tid": "ab" * 16, "ts": "2026-01-01 00:00:00"},
            )
            for i, res in enumerate([b"resource-one", b"resource-one", b"resource-two"]):
                conn.execute(
                    text(
                        "INSERT INTO spans (tenant_id, trace_id, span_id, name, kind, iris_kind, "
                        "status_code, start_unix_nano, end_unix_nano, received_at, otlp_span, "
                        "otlp_resource) VALUES ('t', :tid, :sid, 'n', 'INTERNAL', 'SPAN', 'UNSET', "
                        "1, 2, :ts, :span, :res)"
                    ),
                    {
                        "tid": "ab" * 16,
                        "sid": f"{i + 1:016x}",
                        "ts": "2026-01-01 00:00:00",
                        "span": b"s",
                        "res": res,
                    },
                )
        move_to(engine, "0005", down=False)
        with engine.connect() as conn:
            stored = dict(
                conn.execute(text("SELECT resource_hash, otlp_resource FROM span_resources")).all()
            )
            assert {k: bytes(v) for k, v in stored.items()} == {
                resource_hash(b"resource-one"): b"resource-one",
                resource_hash(b"resource-two"): b"resource-two",
            }
            rows = conn.execute(
                text(
                    "SELECT r.otlp_resource FROM spans s JOIN span_resources r "
                    "ON r.tenant_id = s.tenant_id AND r.resource_hash = s.resource_hash "
                    "ORDER BY s.span_id"
                )
            ).all()
            assert [bytes(r[0]) for r in rows] == [
                b"resource-one",
                b"resource-one",
                b"resource-two",
            ]
        move_to(engine, "0001", down=True)
        with engine.connect() as conn:
            back = conn.execute(text("SELECT otlp_resource FROM spans ORDER BY span_id")).all()
            assert [bytes(r[0]) for r in back] == [
                b"resource-one",
                b"resource-one",
                b"resource-two",
            ]
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM spans"))
            conn.execute(text("DELETE FROM traces"))
        move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
