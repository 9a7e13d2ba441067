"""Migration 0007 drops the (status, ready_at) index that only the old sweep read."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine, inspect

from storage import migrate


def _to(engine: Engine, revision: str, *, down: bool) -> None:
    cfg = migrate.alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def _trace_indexes(engine: Engine) -> set[str]:
    return {ix["name"] for ix in inspect(engine).get_indexes("traces") if ix["name"]}


def test_upgrade_drops_and_downgrade_restores_the_index(engine: Engine) -> None:
    assert "ix_traces_status_ready_at" not in _trace_indexes(engine)
    _to(engine, "0006", down=True)
    try:
        assert "ix_traces_status_ready_at" in _trace_indexes(engine)
    finally:
        _to(engine, "head", down=False)
    assert "ix_traces_status_ready_at" not in _trace_indexes(engine)
    assert migrate.current_revision(engine) == migrate.head_revision()
