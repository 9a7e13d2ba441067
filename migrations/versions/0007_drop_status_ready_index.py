"""drop the (status, ready_at) index of traces

The readiness sweep queued the jobs of the traces it had just readied by
reading them back (``INSERT … SELECT … WHERE status = 'ready' AND ready_at =
<this sweep>``), and this index served that query alone. The sweep's UPDATE
now returns what the jobs need, so nothing reads it, while every trace row
paid for it twice: on insert and again when readied (~13 µs of the ~40 µs a
readied trace cost the writer on SQLite).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 02:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_traces_status_ready_at", table_name="traces")


def downgrade() -> None:
    op.create_index("ix_traces_status_ready_at", "traces", ["status", "ready_at"])
