"""FTS5 leaves of a database page: pgsz 8000 on SQLite

FTS5 writes its index in leaves of ``pgsz`` bytes, 4,050 by default (sized
for 4 KiB database pages). Iris's pages are 8 KiB (``storage.engine``), so a
leaf took half a page and each segment twice as many rows as it needs. Each
evaluated trace re-indexes its search row, and the segments FTS5 flushes and
merges were the largest part but one of a worker's write-ahead log on a
database of some thousand traces: leaves of 8,000 bytes (one a page, with
room for the row's header) measured 48.6 -> 34.9 dirty pages of
``trace_search_data`` per batch of 64 traces. Existing segments keep their
leaves until FTS5 merges them. PostgreSQL's search table is unchanged.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-03 09:30:00
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

LEAF_BYTES = 8000
DEFAULT_LEAF_BYTES = 4050  # FTS5's own


def _set_pgsz(value: int) -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"INSERT INTO trace_search(trace_search, rank) VALUES ('pgsz', {value})")


def upgrade() -> None:
    _set_pgsz(LEAF_BYTES)


def downgrade() -> None:
    _set_pgsz(DEFAULT_LEAF_BYTES)
