"""The migrated schema is exactly the models, on the dialect under test."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, inspect

from storage import migrate
from storage.models import Base


def test_migrated_schema_equals_models(engine: Engine) -> None:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        diff = compare_metadata(context, Base.metadata)
    # The search index is dialect-specific and deliberately not an ORM model.
    diff = [d for d in diff if "trace_search" not in repr(d)]
    assert diff == []


def test_at_head_and_idempotent(engine: Engine) -> None:
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert migrate.upgrade(engine) == migrate.head_revision()
    tables = set(inspect(engine).get_table_names())
    assert {
        "traces",
        "span_batches",
        "evaluations",
        "evaluation_jobs",
        "custom_rules",
        "audit_entries",
        "runs",
        "evaluation_rule_results",
        "trace_search",
    } <= tables


def test_every_table_carries_tenant_id() -> None:
    for table in Base.metadata.sorted_tables:
        assert "tenant_id" in table.c, table.name
