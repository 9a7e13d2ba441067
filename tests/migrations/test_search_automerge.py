"""Migrations 0010 and 0012 have FTS5 merge eight, then sixteen segments at a
time on SQLite; PostgreSQL is untouched."""

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


def test_each_revision_sets_its_automerge_and_downgrades_restore_the_one_before(
    engine: Engine,
) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite only: PostgreSQL's search table has no FTS5 options")
    assert _automerge(engine) == 16
    try:
        move_to(engine, "0011", down=True)
        assert _automerge(engine) == 8
        move_to(engine, "0009", down=True)
        assert _automerge(engine) == 4
        move_to(engine, "0010", down=False)
        assert _automerge(engine) == 8
    finally:
        move_to(engine, "head", down=False)
    assert _automerge(engine) == 16
    assert migrate.current_revision(engine) == migrate.head_revision()
