"""FTS5 merges a level at once only past sixty-four segments, not sixteen

Migration 0012 had FTS5 merge sixteen segments at a time, which is also
FTS5's ``crisismerge``: so every merge of a level ran at once, inside the
commit that brought its sixteenth segment, holding SQLite's write lock for
as long as rewriting the whole level took. The merges grow sixteenfold a
level: at a steady 2,000 traces/s the merge ~490,000 traces in stopped
every receiver and worker for seconds (p99 root → verdict 4.6 s over five
minutes, against 2.4 s over one), and the next, at 4–8 million (by the
bench below), would have stopped them for over half a minute. With
``crisismerge`` above ``automerge`` FTS5 merges incrementally instead, a
bounded amount of work in each commit:
``bench/fts_stall.py``, documents committed 64 at a time: over 600,000,
the longest commit 1,620 ms → 37 ms (each document 3.6 % more time); over
4.3 million, 35.8 s → 150 ms (each document 13 % less time). A level
still merges at once if it ever reaches sixty-four segments, which the
incremental merges keep it from. PostgreSQL's search table is unchanged.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07 10:40:00
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

SEGMENTS_AT_ONCE = 64
EARLIER_SEGMENTS_AT_ONCE = 16  # FTS5's default, which 0012 left in place


def _set_crisismerge(value: int) -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(f"INSERT INTO trace_search(trace_search, rank) VALUES ('crisismerge', {value})")


def upgrade() -> None:
    _set_crisismerge(SEGMENTS_AT_ONCE)


def downgrade() -> None:
    _set_crisismerge(EARLIER_SEGMENTS_AT_ONCE)
