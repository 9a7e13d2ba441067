"""Evaluation jobs unique by their trace's arrival, revision and id

The jobs' unique key ``(tenant, trace, revision)`` put each readied trace's
entry on a random leaf, as the span batches' key did (migration 0013,
``storage.arrival``). It becomes ``(tenant, arrival_us, trace, revision)``
with ``arrival_us`` the trace's, so new entries go at the end of the index.
One job per (trace, revision) still holds: a trace keeps its arrival. A
trace deleted and sent again is a new row with a new arrival, so its
revisions are judged again (under the old key they never were: the old
jobs of the same revisions were in the way).

Existing jobs take their trace's ``arrival_us``; a job whose trace row is
gone keeps 0. SQLite cannot change a table's constraints in place, so
there the table is copied (ids kept); PostgreSQL swaps the constraint.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06 04:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

UNIQUE = "uq_jobs_trace_revision"
NEW_KEY = ("tenant_id", "arrival_us", "trace_id", "revision")
OLD_KEY = ("tenant_id", "trace_id", "revision")
STATE_INDEX = "ix_jobs_state_created"

# SQLite's copy of ``evaluation_jobs`` (the columns as migration 0001 made them).
_SQLITE_TABLE = """
CREATE TABLE evaluation_jobs_new (
    id INTEGER NOT NULL,
    tenant_id VARCHAR(64) NOT NULL,
    {arrival}trace_id VARCHAR(32) NOT NULL,
    revision INTEGER NOT NULL,
    eval_type VARCHAR(16),
    evaluate BOOLEAN NOT NULL,
    state VARCHAR(16) NOT NULL,
    attempts INTEGER NOT NULL,
    lease_until DATETIME,
    worker VARCHAR(128),
    last_error TEXT,
    evaluation_id VARCHAR(40),
    created_at DATETIME NOT NULL,
    updated_at DATETIME NOT NULL,
    CONSTRAINT pk_evaluation_jobs PRIMARY KEY (id),
    CONSTRAINT {unique} UNIQUE ({key})
)
"""
_COLUMNS = (
    "id",
    "tenant_id",
    "trace_id",
    "revision",
    "eval_type",
    "evaluate",
    "state",
    "attempts",
    "lease_until",
    "worker",
    "last_error",
    "evaluation_id",
    "created_at",
    "updated_at",
)
_TRACE_ARRIVAL = (
    "COALESCE((SELECT t.arrival_us FROM traces t"
    " WHERE t.tenant_id = j.tenant_id AND t.trace_id = j.trace_id), 0)"
)


def _sqlite_copy(*, arrival: bool) -> None:
    """Copy ``evaluation_jobs`` into a table with the new (or, going down,
    the old) unique key, then put the copy in its place."""
    op.execute(
        _SQLITE_TABLE.format(
            arrival="arrival_us BIGINT NOT NULL,\n    " if arrival else "",
            unique=UNIQUE,
            key=", ".join(NEW_KEY if arrival else OLD_KEY),
        )
    )
    columns = ", ".join(_COLUMNS)
    selected = ", ".join(f"j.{c}" for c in _COLUMNS)
    if arrival:
        op.execute(
            f"INSERT INTO evaluation_jobs_new (arrival_us, {columns}) "
            f"SELECT {_TRACE_ARRIVAL}, {selected} FROM evaluation_jobs j"
        )
    else:
        # Going down, the old key allows one job per (trace, revision): of
        # a re-sent trace's jobs, the latest stays.
        op.execute(
            f"INSERT INTO evaluation_jobs_new ({columns}) SELECT {selected} FROM evaluation_jobs j"
            " WHERE j.id = (SELECT MAX(k.id) FROM evaluation_jobs k WHERE k.tenant_id ="
            " j.tenant_id AND k.trace_id = j.trace_id AND k.revision = j.revision)"
        )
    op.execute(f"DROP INDEX {STATE_INDEX}")
    op.execute("DROP TABLE evaluation_jobs")
    op.execute("ALTER TABLE evaluation_jobs_new RENAME TO evaluation_jobs")
    op.execute(f"CREATE INDEX {STATE_INDEX} ON evaluation_jobs (state, created_at)")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(arrival=True)
        return
    op.add_column(
        "evaluation_jobs",
        sa.Column("arrival_us", sa.BigInteger(), nullable=False, server_default="0"),
    )
    op.execute(
        "UPDATE evaluation_jobs j SET arrival_us = t.arrival_us FROM traces t"
        " WHERE t.tenant_id = j.tenant_id AND t.trace_id = j.trace_id"
    )
    op.alter_column("evaluation_jobs", "arrival_us", server_default=None)
    op.drop_constraint(UNIQUE, "evaluation_jobs", type_="unique")
    op.create_unique_constraint(UNIQUE, "evaluation_jobs", list(NEW_KEY))


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy(arrival=False)
        return
    op.execute(
        "DELETE FROM evaluation_jobs j USING evaluation_jobs k"
        " WHERE k.tenant_id = j.tenant_id AND k.trace_id = j.trace_id"
        " AND k.revision = j.revision AND k.id > j.id"
    )
    op.drop_constraint(UNIQUE, "evaluation_jobs", type_="unique")
    op.create_unique_constraint(UNIQUE, "evaluation_jobs", list(OLD_KEY))
    op.drop_column("evaluation_jobs", "arrival_us")
