"""PostgreSQL: compress large values with lz4 instead of pglz

Every stored verdict carries ~9 KB of JSONB (the rule results, coverage,
provenance…) and every span its OTLP bytes, and PostgreSQL compresses each
value over ~2 KB as it stores it. With the default pglz that compression was
the largest part of the server's CPU per verdict: copying 1,000 verdicts
into ``evaluations`` took 450–630 ms with pglz and ~300 ms with lz4 on the
same rows (``docs/performance.md``). lz4 also decompresses faster on reads.

Only the column's compression method changes: existing values keep theirs
(PostgreSQL reads both) and nothing is rewritten. Servers built without lz4,
or older than PostgreSQL 14, keep pglz. SQLite does not compress; nothing to
do there.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 09:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TABLES = ("evaluations", "traces", "spans", "span_resources", "log_events", "trace_search")


def _lz4_available(conn: sa.Connection) -> bool:
    if int(conn.execute(sa.text("SHOW server_version_num")).scalar_one()) < 140000:
        return False
    methods = conn.execute(
        sa.text("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
    ).scalar_one_or_none()
    return methods is not None and "lz4" in list(methods)


def _toastable_columns(conn: sa.Connection) -> list[tuple[str, str]]:
    """(table, column) of every column of ``TABLES`` whose values may be compressed."""
    rows = conn.execute(
        sa.text(
            "SELECT c.relname, a.attname FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid "
            "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' "
            "AND c.relname = ANY(:tables) AND a.attnum > 0 AND NOT a.attisdropped "
            "AND a.attstorage IN ('x', 'm') ORDER BY c.relname, a.attnum"
        ),
        {"tables": list(TABLES)},
    )
    return [(str(t), str(c)) for t, c in rows]


def _set_compression(method: str) -> None:
    conn = op.get_bind()
    if conn.dialect.name != "postgresql" or not _lz4_available(conn):
        return
    for table, column in _toastable_columns(conn):
        op.execute(
            sa.text(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" SET COMPRESSION {method}')
        )


def upgrade() -> None:
    _set_compression("lz4")


def downgrade() -> None:
    _set_compression("default")
