"""Migration 0004 swaps the unused (tenant, status, last span) index for the sweep's partial one."""

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


def test_upgrade_and_downgrade_swap_the_indexes(engine: Engine) -> None:
    assert "ix_traces_open_due" in _trace_indexes(engine)
    _to(engine, "0003", down=True)
    try:
        names = _trace_indexes(engine)
        assert "ix_traces_open_due" not in names
        assert "ix_traces_tenant_status_last_span" in names
    finally:
        _to(engine, "head", down=False)
    names = _trace_indexes(engine)
    assert "ix_traces_open_due" in names
    assert "ix_traces_tenant_status_last_span" not in names
    assert migrate.current_revision(engine) == migrate.head_revision()
