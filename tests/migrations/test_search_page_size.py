"""Migration 0009 sets FTS5's leaf size to an 8 KiB page on SQLite; PostgreSQL is untouched."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from storage import migrate
from tests.migrations.revisions import move_to


def _pgsz(engine: Engine) -> int | None:
    with engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT v FROM trace_search_config WHERE k = 'pgsz'").first()
    return None if row is None else int(row[0])


def test_upgrade_sets_the_leaf_size_and_downgrade_restores_the_default(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite only: PostgreSQL's search table has no FTS5 options")
    assert _pgsz(engine) == 8000
    move_to(engine, "0008", down=True)
    try:
        assert _pgsz(engine) == 4050
    finally:
        move_to(engine, "head", down=False)
    assert _pgsz(engine) == 8000
    assert migrate.current_revision(engine) == migrate.head_revision()
