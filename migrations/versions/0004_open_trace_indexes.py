"""partial indexes over open traces for the assembler's sweeps

The sweep looked for due traces through ``(status, ready_at)`` and sorted
every open trace by ``last_span_at`` each time: its cost grew with the
number of open traces, i.e. with traffic times the grace period. A partial
index holds open traces only, ordered the way the sweep reads them; the
unused ``(tenant_id, status, last_span_at)`` index goes.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 06:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from storage.models import OPEN_TRACE

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_traces_tenant_status_last_span", table_name="traces")
    op.create_index(
        "ix_traces_open_due",
        "traces",
        ["finalize_requested", "has_root", "last_span_at"],
        sqlite_where=sa.text(OPEN_TRACE),
        postgresql_where=sa.text(OPEN_TRACE),
    )


def downgrade() -> None:
    op.drop_index("ix_traces_open_due", table_name="traces")
    op.create_index(
        "ix_traces_tenant_status_last_span", "traces", ["tenant_id", "status", "last_span_at"]
    )
