"""A tenant's number of traces, kept up to date instead of counted.

``GET /api/v1/health`` reports ``trace_count`` on every call. Counting the
tenant's rows read every entry of a traces index: 0.08–0.13 s at 2,000,000
traces on SQLite, growing with the table until health gave up at its
5-second budget and answered 503 (docs/performance.md, session 24). Each
writer of trace rows adds what it inserted or deleted here, in the same
transaction, so the total is exact and costs a read of a few rows.

A writer adds to one of a few shards of the tenant's count, picked at
random: on PostgreSQL the row it updates stays locked until its commit, and
receivers sharing one row would commit one after another. A service writes
for its one tenant (``IRIS_TENANT``), so a transaction updates one row; a
group of several tenants adds them in order, never in a cycle with another.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import cast

from sqlalchemy import Connection, Table, func, select

from storage.fastinsert import driver_mark
from storage.models import TraceCount

trace_counts = cast(Table, TraceCount.__table__)
SHARDS = 16


def _shard() -> int:
    return random.randrange(SHARDS)


@lru_cache(maxsize=4)
def _add_sql(dialect: str) -> str:
    """The upsert as the driver takes it: SQLAlchemy compiled its
    ``on_conflict_do_update`` afresh on every call (~270 µs, 13 % of the
    receiver's instructions a request); the driver runs this in ~9 µs."""
    m = driver_mark(dialect)
    return (
        f"INSERT INTO trace_counts (tenant_id, shard, traces) VALUES ({m}, {m}, {m}) "
        "ON CONFLICT (tenant_id, shard) "
        "DO UPDATE SET traces = trace_counts.traces + excluded.traces"
    )


def add(conn: Connection, tenant_id: str, delta: int) -> None:
    """Add ``delta`` (inserted minus deleted trace rows) to the tenant's count,
    in the caller's transaction."""
    if delta:
        conn.exec_driver_sql(_add_sql(conn.dialect.name), (tenant_id, _shard(), delta))


def add_all(conn: Connection, deltas: Mapping[str, int]) -> None:
    """``add`` for several tenants, in tenant order (see the module's note)."""
    for tenant_id in sorted(deltas):
        add(conn, tenant_id, deltas[tenant_id])


def add_rows(conn: Connection, tenant_ids: Iterable[str]) -> None:
    """Count one inserted trace row per item of ``tenant_ids``."""
    add_all(conn, Counter(tenant_ids))


def total(conn: Connection, tenant_id: str) -> int:
    """The tenant's trace rows, as of the caller's transaction."""
    found = conn.execute(
        select(func.coalesce(func.sum(trace_counts.c.traces), 0)).where(
            trace_counts.c.tenant_id == tenant_id
        )
    ).scalar_one()
    return int(found)
