"""Migration 0004 swaps the unused (tenant, status, last span) index for the sweep's partial one."""

from __future__ import annotations

from sqlalchemy import Engine

from storage import migrate
from tests.migrations.revisions import move_to, trace_indexes


def test_upgrade_and_downgrade_swap_the_indexes(engine: Engine) -> None:
    assert "ix_traces_open_due" in trace_indexes(engine)
    move_to(engine, "0003", down=True)
    try:
        names = trace_indexes(engine)
        assert "ix_traces_open_due" not in names
        assert "ix_traces_tenant_status_last_span" in names
    finally:
        move_to(engine, "head", down=False)
    names = trace_indexes(engine)
    assert "ix_traces_open_due" in names
    assert "ix_traces_tenant_status_last_span" not in names
    assert migrate.current_revision(engine) == migrate.head_revision()
