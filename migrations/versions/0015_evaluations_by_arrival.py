"""Evaluations indexed by their trace's arrival ahead of the trace id

``ix_evaluations_tenant_trace`` was ``(tenant, trace)``: a worker's verdict
for each trace went on a random leaf of it (``storage.arrival``).
Evaluations gain ``trace_arrival_us``, the trace's ``traces.arrival_us``,
and the index becomes ``(tenant, trace_arrival_us, trace)``, so new verdicts
go at its end. A deleted trace's verdicts, and any stored without the
arrival, are filed under 0; a look-up by trace reads the live trace's
arrival and 0 (``storage.evaluations.of_trace``).

Existing evaluations take their trace's arrival where the trace row is
there and 0 otherwise. Adding the column and swapping the index need no
copy of the table on either database; going down, SQLite drops the column
by a copy.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06 05:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

INDEX = "ix_evaluations_tenant_trace"


def upgrade() -> None:
    op.add_column(
        "evaluations",
        sa.Column("trace_arrival_us", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.execute(
        "UPDATE evaluations SET trace_arrival_us = COALESCE((SELECT t.arrival_us FROM traces t"
        " WHERE t.tenant_id = evaluations.tenant_id AND t.trace_id = evaluations.trace_id), 0)"
        " WHERE trace_id IS NOT NULL AND erased_at IS NULL"
    )
    op.drop_index(INDEX, table_name="evaluations")
    op.create_index(INDEX, "evaluations", ["tenant_id", "trace_arrival_us", "trace_id"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="evaluations")
    op.create_index(INDEX, "evaluations", ["tenant_id", "trace_id"])
    with op.batch_alter_table("evaluations") as batch:  # SQLite drops a column by a copy
        batch.drop_column("trace_arrival_us")
