"""Each tenant's number of traces, kept instead of counted

Health counted a tenant's trace rows on every call, which read a whole index
and grew with the table (``storage.tracecounts``). ``trace_counts`` holds the
number, in shards a writer process adds to; existing traces are counted into
shard 0.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06 20:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trace_counts",
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("shard", sa.SmallInteger(), nullable=False, autoincrement=False),
        sa.Column("traces", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "shard", name="pk_trace_counts"),
    )
    op.execute(
        "INSERT INTO trace_counts (tenant_id, shard, traces)"
        " SELECT tenant_id, 0, count(*) FROM traces GROUP BY tenant_id"
    )


def downgrade() -> None:
    op.drop_table("trace_counts")
