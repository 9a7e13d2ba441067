"""FTS5 merges its segments sixteen at a time on SQLite, not eight

A worker indexes every judged trace and commits a batch at a time, so
FTS5 writes a segment per commit and rewrites every indexed word once per
level as it merges them (migration 0010). Over a long run the merges are
most of what a document costs the index: ``bench/fts_merge.py``, 25,600
documents committed 128 at a time, 297k instructions a document at 8 and
243k at 16 (−18 %), which is ~2 % of a worker's instructions a trace once
the file holds tens of thousands of traces. A query reads more segments
(20 instead of 9 there): a ranked query took ~1.1 ms instead of ~0.97 ms.
Sixteen is also FTS5's ``crisismerge``, where a level is merged at once:
an ``automerge`` above it measured no fewer instructions. PostgreSQL's
search table is unchanged.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 13:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

SEGMENTS_MERGED = 16
EARLIER_SEGMENTS_MERGED = 8  # migration 0010's


def _set_automerge(value: int) -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"INSERT INTO trace_search(trace_search, rank) VALUES ('automerge', {value})")


def upgrade() -> None:
    _set_automerge(SEGMENTS_MERGED)


def downgrade() -> None:
    _set_automerge(EARLIER_SEGMENTS_MERGED)
