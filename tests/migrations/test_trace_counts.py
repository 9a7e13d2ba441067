"""Migration 0017 keeps each tenant's trace count, starting from the rows there."""

from __future__ import annotations

import random

from sqlalchemy import Engine, inspect

from storage import migrate
from storage.traces import count_traces
from tests.migrations.revisions import move_to
from tests.support.ingest import ingest
from tests.support.otlp_bodies import agent_request


def test_upgrade_counts_the_traces_already_stored(engine: Engine) -> None:
    ingest(engine, agent_request(random.Random(17), 5)[0], tenant="t")
    ingest(engine, agent_request(random.Random(18), 2)[0], tenant="u")

    move_to(engine, "0016", down=True)
    assert "trace_counts" not in inspect(engine).get_table_names()

    move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
    with engine.connect() as conn:
        assert [count_traces(conn, t) for t in ("t", "u", "v")] == [5, 2, 0]
