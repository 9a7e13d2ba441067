"""count the log-event writes that reach a trace

OTLP log events reopen their trace for derivation but add no spans, so a
worker that read a trace just before its log events arrived could store a
derivation without them under the ``span_count`` guard alone, and mark the
trace derived: the events then never reached its fields. ``log_writes``
counts those writes; the derivation's UPDATE checks it with ``span_count``.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 19:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN with a constant default: no table copy on SQLite,
    # no rewrite on PostgreSQL, whatever the number of traces.
    op.add_column(
        "traces", sa.Column("log_writes", sa.Integer(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    with op.batch_alter_table("traces") as batch:  # SQLite drops a column by a copy
        batch.drop_column("log_writes")
