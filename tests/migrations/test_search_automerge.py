"""Migrations 0010 and 0012 have FTS5 merge eight, then sixteen segments at a
time on SQLite, and 0018 has it merge a level at once only past sixty-four
(incrementally before); PostgreSQL is untouched."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from storage import migrate
from tests.migrations.revisions import move_to


def _option(engine: Engine, name: str) -> int | None:
    with engine.connect() as conn:
        row = conn.exec_driver_sql("SELECT v FROM trace_search_config WHERE k = ?", (name,)).first()
    return None if row is None else int(row[0])


def _automerge(engine: Engine) -> int | None:
    return _option(engine, "automerge")


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


def test_crisismerge_is_raised_above_automerge_and_restored_on_downgrade(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite only: PostgreSQL's search table has no FTS5 options")
    assert _option(engine, "crisismerge") == 64
    assert _automerge(engine) == 16
    try:
        move_to(engine, "0017", down=True)
        assert _option(engine, "crisismerge") == 16
        assert _automerge(engine) == 16
    finally:
        move_to(engine, "head", down=False)
    assert _option(engine, "crisismerge") == 64
