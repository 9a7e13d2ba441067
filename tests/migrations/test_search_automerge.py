"""Migration 0010 has FTS5 merge eight segments at a time on SQLite; PostgreSQL is untouched."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from storage import migrate
from tests.migrations.revisions import move_to


def _automerge(engine: Engine) -> int | None:
    with engine.connect() as conn:
        row = conn.exec_driver_sql(
            "SELECT v FROM trace_search_config WHERE k = 'automerge'"
        ).first()
    return None if row is None else int(row[0])


def test_upgrade_sets_automerge_and_downgrade_restores_the_default(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite only: PostgreSQL's search table has no FTS5 options")
    assert _automerge(engine) == 8
    move_to(engine, "0009", down=True)
    try:
        assert _automerge(engine) == 4
    finally:
        move_to(engine, "head", down=False)
    assert _automerge(engine) == 8
    assert migrate.current_revision(engine) == migrate.head_revision()
