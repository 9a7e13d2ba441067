"""span resources stored once, referenced by hash; no per-row foreign keys

Spans and rule results lose their foreign keys (see ``storage.models``):
checking one per inserted row dominated ingest on PostgreSQL.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30 05:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from storage.spans import resource_hash

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "span_resources",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("resource_hash", sa.String(length=32), nullable=False),
        sa.Column("otlp_resource", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "resource_hash"),
    )
    op.add_column("spans", sa.Column("resource_hash", sa.String(length=32), nullable=True))
    # Existing spans: one resource row per distinct (tenant, bytes), then point the spans at it.
    conn = op.get_bind()
    spans = sa.table(
        "spans",
        sa.column("tenant_id", sa.String),
        sa.column("otlp_resource", sa.LargeBinary),
        sa.column("resource_hash", sa.String),
    )
    resources = sa.table(
        "span_resources",
        sa.column("tenant_id", sa.String),
        sa.column("resource_hash", sa.String),
        sa.column("otlp_resource", sa.LargeBinary),
    )
    distinct = conn.execute(
        sa.select(spans.c.tenant_id, spans.c.otlp_resource)
        .where(spans.c.otlp_resource.is_not(None))
        .distinct()
    ).all()
    for tenant_id, raw in distinct:
        raw = bytes(raw)
        key = resource_hash(raw)
        conn.execute(
            resources.insert().values(tenant_id=tenant_id, resource_hash=key, otlp_resource=raw)
        )
        conn.execute(
            spans.update()
            .where(sa.and_(spans.c.tenant_id == tenant_id, spans.c.otlp_resource == raw))
            .values(resource_hash=key)
        )
    op.drop_column("spans", "otlp_resource")
    op.create_index("ix_spans_tenant_resource", "spans", ["tenant_id", "resource_hash"])
    with op.batch_alter_table("spans") as batch:
        batch.drop_constraint("fk_spans_trace", type_="foreignkey")
    with op.batch_alter_table("evaluation_rule_results") as batch:
        batch.drop_constraint("fk_rule_results_eval", type_="foreignkey")


def downgrade() -> None:
    with op.batch_alter_table("evaluation_rule_results") as batch:
        batch.create_foreign_key(
            "fk_rule_results_eval", "evaluations", ["evaluation_id"], ["id"], ondelete="CASCADE"
        )
    with op.batch_alter_table("spans") as batch:
        batch.create_foreign_key(
            "fk_spans_trace",
            "traces",
            ["tenant_id", "trace_id"],
            ["tenant_id", "trace_id"],
            ondelete="CASCADE",
        )
    op.drop_index("ix_spans_tenant_resource", table_name="spans")
    op.add_column("spans", sa.Column("otlp_resource", sa.LargeBinary(), nullable=True))
    conn = op.get_bind()
    conn.execute(
        sa.text(
            "UPDATE spans SET otlp_resource = (SELECT r.otlp_resource FROM span_resources r "
            "WHERE r.tenant_id = spans.tenant_id AND r.resource_hash = spans.resource_hash) "
            "WHERE resource_hash IS NOT NULL"
        )
    )
    op.drop_column("spans", "resource_hash")
    op.drop_table("span_resources")
