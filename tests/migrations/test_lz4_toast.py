"""Migration 0005 compresses large PostgreSQL values with lz4; SQLite is untouched."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, inspect, text

from storage import migrate
from tests.migrations.revisions import move_to


def _compression(engine: Engine, table: str, column: str) -> str:
    with engine.connect() as conn:
        return str(
            conn.execute(
                text(
                    "SELECT a.attcompression FROM pg_attribute a "
                    "JOIN pg_class c ON c.oid = a.attrelid "
                    "WHERE c.relname = :t AND a.attname = :c "
                    "AND c.relnamespace = current_schema()::regnamespace"
                ),
                {"t": table, "c": column},
            ).scalar_one()
        )


def _lz4_built_in(engine: Engine) -> bool:
    with engine.connect() as conn:
        methods = conn.execute(
            text("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        ).scalar_one_or_none()
    return bool(methods) and "lz4" in methods


def test_postgresql_large_columns_use_lz4_and_downgrade_restores_the_default(
    engine: Engine,
) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: SQLite has no value compression")
    if not _lz4_built_in(engine):
        pytest.skip("this PostgreSQL server was built without lz4")
    big = [("evaluations", "rule_results"), ("traces", "tool_calls")]
    # span_batches (revision 0006) is made with lz4 where the server has it
    assert _compression(engine, "span_batches", "otlp_spans") == "l"
    assert all(_compression(engine, t, c) == "l" for t, c in big)
    move_to(engine, "0004", down=True)
    try:
        assert all(_compression(engine, t, c) == "" for t, c in big)
    finally:
        move_to(engine, "head", down=False)
    assert all(_compression(engine, t, c) == "l" for t, c in big)
    # a value written after the change is stored lz4-compressed and reads back whole
    payload = "lz4 " * 20_000
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO trace_search (tenant_id, trace_id, input, output, tools, metadata, "
                "document) VALUES ('t', 'probe', :v, '', '', '', to_tsvector('simple', 'probe'))"
            ),
            {"v": payload},
        )
        stored, method = conn.execute(
            text("SELECT input, pg_column_compression(input) FROM trace_search")
        ).one()
    assert (stored, method) == (payload, "lz4")


def test_sqlite_schema_is_the_same_either_side_of_the_migration(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("the PostgreSQL case is the test above")

    def schema() -> dict[str, list[str]]:
        insp = inspect(engine)
        return {t: [c["name"] for c in insp.get_columns(t)] for t in insp.get_table_names()}

    move_to(engine, "0005", down=True)
    try:
        before = schema()
        move_to(engine, "0004", down=True)
        assert schema() == before
    finally:
        move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
