"""Migration 0007 drops the (status, ready_at) index that only the old sweep read."""

from __future__ import annotations

from sqlalchemy import Engine

from storage import migrate
from tests.migrations.revisions import move_to, trace_indexes


def test_upgrade_drops_and_downgrade_restores_the_index(engine: Engine) -> None:
    assert "ix_traces_status_ready_at" not in trace_indexes(engine)
    move_to(engine, "0006", down=True)
    try:
        assert "ix_traces_status_ready_at" in trace_indexes(engine)
    finally:
        move_to(engine, "head", down=False)
    assert "ix_traces_status_ready_at" not in trace_indexes(engine)
    assert migrate.current_revision(engine) == migrate.head_revision()
