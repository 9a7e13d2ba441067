"""Span batches keyed by their trace's arrival, not by the trace id alone

Trace ids are random, so the span batches' primary key ``(tenant, trace,
seq)`` took each new trace's batch on a random leaf: one 8 KiB page written
to the log, and copied again by the checkpoint, for nearly every trace, and
more of them the larger the table (``storage.arrival``). ``traces`` gains
``arrival_us``, the microsecond its row was created, and the batches' key
becomes ``(tenant, arrival_us, trace, seq)``, so new batches go at the end
of the index. Readers reach a trace's batches through its ``traces`` row.

Existing rows take their trace's ``created_at``; a batch whose trace row is
gone (none should be) keeps 0. SQLite cannot change a primary key in place,
so there the table is copied; PostgreSQL swaps the constraint.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

NEW_KEY = ("tenant_id", "arrival_us", "trace_id", "seq")
OLD_KEY = ("tenant_id", "trace_id", "seq")
RESOURCE_INDEX = "ix_span_batches_tenant_resource"

# ``created_at`` in microseconds from the epoch, per dialect. SQLite keeps
# the datetime as text, 'YYYY-MM-DD HH:MM:SS.ffffff'.
_ARRIVAL = {
    "sqlite": "CAST(strftime('%s', created_at) AS INTEGER) * 1000000"
    " + CAST(COALESCE(substr(created_at, 21, 6), '0') AS INTEGER)",
    "postgresql": "CAST(ROUND(EXTRACT(EPOCH FROM created_at) * 1000000) AS BIGINT)",
}

# SQLite's copy of ``span_batches`` (the columns as migration 0006 made them).
_SQLITE_TABLE = """
CREATE TABLE span_batches_new (
    tenant_id VARCHAR(64) NOT NULL,
    {arrival}trace_id VARCHAR(32) NOT NULL,
    seq INTEGER NOT NULL,
    span_count INTEGER NOT NULL,
    span_ids TEXT NOT NULL,
    iris_kinds TEXT,
    received_at DATETIME NOT NULL,
    resource_hash VARCHAR(32),
    otlp_spans BLOB,
    spans_json JSON,
    CONSTRAINT pk_span_batches PRIMARY KEY ({key})
)
"""
_COLUMNS = (
    "tenant_id, trace_id, seq, span_count, span_ids, iris_kinds, received_at,"
    " resource_hash, otlp_spans, spans_json"
)


def _sqlite_copy(*, arrival: bool) -> None:
    """Copy ``span_batches`` into a table with the new (or, going down, the
    old) key, then put the copy in its place."""
    key = NEW_KEY if arrival else OLD_KEY
    op.execute(
        _SQLITE_TABLE.format(
            arrival="arrival_us BIGINT NOT NULL,\n    " if arrival else "", key=", ".join(key)
        )
    )
    if arrival:
        op.execute(
            f"INSERT INTO span_batches_new (arrival_us, {_COLUMNS}) "
            "SELECT COALESCE((SELECT t.arrival_us FROM traces t"
            " WHERE t.tenant_id = b.tenant_id AND t.trace_id = b.trace_id), 0), "
            + ", ".join(f"b.{c.strip()}" for c in _COLUMNS.split(","))
            + " FROM span_batches b"
        )
    else:
        op.execute(f"INSERT INTO span_batches_new ({_COLUMNS}) SELECT {_COLUMNS} FROM span_batches")
    op.execute(f"DROP INDEX {RESOURCE_INDEX}")
    op.execute("DROP TABLE span_batches")
    op.execute("ALTER TABLE span_batches_new RENAME TO span_batches")
    op.execute(f"CREATE INDEX {RESOURCE_INDEX} ON span_batches (tenant_id, resource_hash)")


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.add_column(
        "traces", sa.Column("arrival_us", sa.BigInteger(), nullable=False, server_default="0")
    )
    op.execute(f"UPDATE traces SET arrival_us = {_ARRIVAL[dialect]}")
    if dialect == "sqlite":
        _sqlite_copy(arrival=True)
        return
    op.add_column(
        "span_batches",
        sa.Column("arrival_us", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.execute(
        "UPDATE span_batches b SET arrival_us = t.arrival_us FROM traces t"
        " WHERE t.tenant_id = b.tenant_id AND t.trace_id = b.trace_id"
    )
    op.alter_column("span_batches", "arrival_us", server_default=None)
    op.drop_constraint("pk_span_batches", "span_batches", type_="primary")
    op.create_primary_key("pk_span_batches", "span_batches", list(NEW_KEY))


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        _sqlite_copy(arrival=False)
    else:
        op.drop_constraint("pk_span_batches", "span_batches", type_="primary")
        op.create_primary_key("pk_span_batches", "span_batches", list(OLD_KEY))
        op.drop_column("span_batches", "arrival_us")
    with op.batch_alter_table("traces") as batch:  # SQLite drops a column by a copy
        batch.drop_column("arrival_us")
