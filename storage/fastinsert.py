"""Bulk inserts through the driver, for the ingest hot path.

SQLAlchemy Core spends more time compiling and processing parameters than
SQLite spends storing a span. This module builds each INSERT statement once
per (dialect, table, columns) and hands the driver plain tuples: JSON columns
serialised here, datetimes in the exact text form SQLAlchemy itself reads
back on SQLite. Everything else in storage keeps using Core.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Connection, DateTime, Table

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


def _sqlite_datetime(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


@lru_cache(maxsize=64)
def _plan(
    dialect: str, table: Table, columns: tuple[str, ...], ignore: bool
) -> tuple[str, tuple[str, ...]]:
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" if dialect == "sqlite" else "%s" for _ in columns)
    verb = "INSERT OR IGNORE" if ignore and dialect == "sqlite" else "INSERT"
    sql = f'{verb} INTO "{table.name}" ({names}) VALUES ({marks})'
    if ignore and dialect == "postgresql":
        sql += " ON CONFLICT DO NOTHING"
    kinds = []
    for c in columns:
        col_type = table.c[c].type
        if isinstance(col_type, JSON) or isinstance(getattr(col_type, "impl", None), JSON):
            kinds.append("json")
        elif isinstance(col_type, DateTime):
            kinds.append("datetime")
        else:
            kinds.append("plain")
    return sql, tuple(kinds)


def insert_rows(
    conn: Connection,
    table: Table,
    rows: Sequence[dict[str, Any]],
    *,
    ignore_conflicts: bool = False,
) -> None:
    """``executemany`` of ``rows`` (all with the same keys) into ``table``."""
    if not rows:
        return
    dialect = conn.dialect.name
    columns = tuple(rows[0])
    sql, kinds = _plan(dialect, table, columns, ignore_conflicts)
    sqlite = dialect == "sqlite"
    pick = itemgetter(*columns)
    special = [
        (i, kind)
        for i, kind in enumerate(kinds)
        if kind == "json" or (sqlite and kind == "datetime")
    ]
    if len(columns) == 1:
        params: list[Any] = [(pick(row),) for row in rows]
    elif not special:
        params = [pick(row) for row in rows]
    else:
        # Rows of one request share their datetimes (received_at): format each once.
        formatted: dict[datetime, str] = {}
        params = []
        append = params.append
        for row in rows:
            values = list(pick(row))
            for i, kind in special:
                value = values[i]
                if value is None:
                    continue
                if kind == "json":
                    values[i] = _dumps(value)
                else:
                    text = formatted.get(value)
                    if text is None:
                        text = formatted[value] = _sqlite_datetime(value)
                    values[i] = text
            append(tuple(values))
    conn.exec_driver_sql(sql, params)
