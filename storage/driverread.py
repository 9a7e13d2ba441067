"""Reads through the driver's own cursor, for a worker's per-batch queries.

A row read with ``Connection.exec_driver_sql`` passes through SQLAlchemy's
result machinery (~1 µs a row on this machine's build, which has no C
extension for it), and the callers here unpack each row at once. A worker's
claim, its ownership check and its search-row lookup each read a row per job
of a batch: through the driver's cursor they get plain tuples, the same
values (these statements are already text SQL for the driver).

The statement runs on the ``Connection``'s driver connection, in whatever
transaction is open there; a driver error is raised as SQLAlchemy raises it
for any other statement (``OperationalError``, …), so callers see one kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError


def fetch_all(conn: Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The rows of ``sql`` as the driver's tuples."""
    driver: Any = conn.connection.dbapi_connection
    cursor = driver.cursor()
    try:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
    except conn.dialect.loaded_dbapi.Error as exc:
        raise DBAPIError.instance(sql, params, exc, conn.dialect.loaded_dbapi.Error) from exc
    finally:
        cursor.close()
