"""FTS5 merges its segments eight at a time on SQLite, not four

Each commit that indexes traces adds a segment to the ``trace_search`` index,
and FTS5 merges segments of one level into the next once ``automerge`` of
them exist (4 by default), so every indexed word is rewritten once per
level. A worker indexes each verdict's trace: over 12,800 documents
committed 64 at a time, 8 instead of 4 costs ~14 % fewer instructions in
FTS5 (``bench/fts_merge.py``: 397k -> 341k a document; fewer levels, each
word rewritten fewer times). A query reads a few more segments (five ranked
queries over 25,600 such documents took 21.8 and 22.4 ms, within noise).
PostgreSQL's search table is unchanged.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-03 18:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

SEGMENTS_MERGED = 8
DEFAULT_SEGMENTS_MERGED = 4  # FTS5's own


def _set_automerge(value: int) -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"INSERT INTO trace_search(trace_search, rank) VALUES ('automerge', {value})")


def upgrade() -> None:
    _set_automerge(SEGMENTS_MERGED)


def downgrade() -> None:
    _set_automerge(DEFAULT_SEGMENTS_MERGED)
