"""rule profiles: each rule's static description stored once, not in every verdict

Stored rule results keep, per rule, the id of a ``rule_profiles`` row and the
values that vary (``storage.ruleprofiles``). Existing evaluations are split on
upgrade and joined back on downgrade.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 07:00:00
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from storage import ruleprofiles
from storage.models import JsonType

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_BATCH = 500
evaluations = sa.table(
    "evaluations",
    sa.column("id", sa.String),
    sa.column("tenant_id", sa.String),
    sa.column("rule_results", JsonType),
)


def upgrade() -> None:
    op.create_table(
        "rule_profiles",
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("profile_id", sa.String(length=32), nullable=False),
        sa.Column("body", JsonType, nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "profile_id", name="pk_rule_profiles"),
    )
    conn = op.get_bind()

    def split(tenant_id: str, value: Any) -> Any:
        stored, profiles = ruleprofiles.split(value)
        ruleprofiles.save(conn, tenant_id, profiles)
        return stored

    _rewrite(conn, split)


def downgrade() -> None:
    conn = op.get_bind()
    _rewrite(conn, lambda tenant_id, value: ruleprofiles.join(conn, tenant_id, value))
    op.drop_table("rule_profiles")


def _rewrite(conn: sa.Connection, change: Callable[[str, Any], Any]) -> None:
    """Replace every evaluation's ``rule_results`` by ``change(tenant, value)``
    where that differs (a list, or a split value), a batch of rows at a time."""
    for rows in _batches(conn):
        for evaluation_id, tenant_id, value in rows:
            if not isinstance(value, list | dict):
                continue
            new = change(tenant_id, value)
            if new is not value:
                conn.execute(
                    evaluations.update()
                    .where(evaluations.c.id == evaluation_id)
                    .values(rule_results=new)
                )


def _batches(conn: sa.Connection) -> Iterator[list[tuple[str, str, Any]]]:
    """Evaluations in id order, read ``_BATCH`` at a time (keyset paging, so
    rows rewritten meanwhile are never read twice)."""
    after = ""
    while True:
        rows: list[tuple[str, str, Any]] = [
            (r[0], r[1], r[2])
            for r in conn.execute(
                sa.select(evaluations.c.id, evaluations.c.tenant_id, evaluations.c.rule_results)
                .where(evaluations.c.id > after)
                .order_by(evaluations.c.id)
                .limit(_BATCH)
            )
        ]
        if not rows:
            return
        yield rows
        after = rows[-1][0]
