"""Traces indexed by the tenth of the score scale their latest verdict is in

``ix_traces_tenant_latest_score`` filed each judged trace at the end of its
score's run of entries; scores take hundreds of values, so a worker's commit
touched about one leaf of it per verdict (``storage.scoreband``). Traces gain
``score_band`` (0–10, ``NULL`` without a score) and the index becomes
``ix_traces_tenant_score_band`` on ``(tenant, score_band)``; score filters
read the band through it and compare the exact score after.

Existing traces take the band of their ``latest_score``, computed as
``storage.scoreband.score_band`` does. Going down, SQLite drops the column
by a copy.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06 07:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

OLD_INDEX = "ix_traces_tenant_latest_score"
NEW_INDEX = "ix_traces_tenant_score_band"

# floor(min(max(score, 0), 1) * 10): SQLite's CAST truncates (the same as
# floor here, the product being positive); PostgreSQL's rounds, so it floors
# first, and its NaN (which Python's function maps to no band) sorts above 1.
_BAND = {
    "sqlite": "CAST(latest_score * 10 AS INTEGER)",
    "postgresql": "CAST(floor(latest_score * 10) AS INTEGER)",
}


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.add_column("traces", sa.Column("score_band", sa.SmallInteger(), nullable=True))
    nan = " OR latest_score = 'NaN'" if dialect == "postgresql" else ""
    op.execute(
        "UPDATE traces SET score_band = CASE"
        f" WHEN latest_score IS NULL{nan} THEN NULL"
        " WHEN latest_score >= 1 THEN 10 WHEN latest_score <= 0 THEN 0"
        f" ELSE {_BAND[dialect]} END"
        " WHERE latest_score IS NOT NULL"
    )
    op.drop_index(OLD_INDEX, table_name="traces")
    op.create_index(NEW_INDEX, "traces", ["tenant_id", "score_band"])


def downgrade() -> None:
    op.drop_index(NEW_INDEX, table_name="traces")
    op.create_index(OLD_INDEX, "traces", ["tenant_id", "latest_score"])
    with op.batch_alter_table("traces") as batch:  # SQLite drops a column by a copy
        batch.drop_column("score_band")
