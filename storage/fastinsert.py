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
    # Rows of one request share their datetimes (received_at): format each once.
    formatted: dict[datetime, str] = {}
    plain = [c for c, k in zip(columns, kinds, strict=True) if k == "plain"]
    if len(plain) == len(columns):
        conn.exec_driver_sql(sql, [tuple(row[c] for c in columns) for row in rows])
        return
    params = []
    for row in rows:
        values = []
        for column, kind in zip(columns, kinds, strict=True):
            value = row[column]
            if value is not None and kind != "plain":
                if kind == "json":
                    value = _dumps(value)
                elif sqlite:
                    text = formatted.get(value)
                    if text is None:
                        text = formatted[value] = _sqlite_datetime(value)
                    value = text
            values.append(value)
        params.append(tuple(values))
    conn.exec_driver_sql(sql, params)
