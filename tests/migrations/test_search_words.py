"""Migration 0011 rebuilds PostgreSQL's search documents from the query's words."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, text

from evaluators.model import AgentTrace
from storage import codec, migrate, search
from storage.models import Trace
from storage.traces import TraceQuery, list_traces
from tests.migrations.revisions import move_to


def _found(engine: Engine, word: str) -> list[str]:
    with engine.connect() as conn:
        page = list_traces(conn, TraceQuery(tenant_id="t", q=word))
    return [r.trace_id for r in page.rows]


def _found_in_documents(engine: Engine, word: str) -> list[str]:
    """The search documents matching one plain word, asked without the
    ``traces`` model (whose columns a downgraded schema lacks)."""
    with engine.connect() as conn:
        return list(
            conn.execute(
                text(
                    "SELECT trace_id FROM trace_search"
                    " WHERE document @@ plainto_tsquery('simple', :word)"
                ),
                {"word": word},
            ).scalars()
        )


def test_upgrade_makes_a_code_found_by_its_number_and_downgrade_restores_the_old_words(
    engine: Engine,
) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only: SQLite's FTS5 index is tokenised by FTS5 itself")
    row = codec.trace_row(
        AgentTrace(agent_name="a", output="order NW-356787 refunded"),
        trace_id="a" * 32,
        tenant_id="t",
        source="otlp",
        now=codec.utcnow(),
    )
    with engine.begin() as conn:
        conn.execute(Trace.__table__.insert(), [row])
        search.index_rows(conn, [row])
    assert _found(engine, "356787") == ["a" * 32]
    move_to(engine, "0010", down=True)
    try:
        assert _found_in_documents(engine, "356787") == []
        assert _found_in_documents(engine, "refunded") == ["a" * 32]
    finally:
        move_to(engine, "head", down=False)
    assert _found(engine, "356787") == ["a" * 32]
    assert _found(engine, "order nw") == ["a" * 32]
    assert migrate.current_revision(engine) == migrate.head_revision()
