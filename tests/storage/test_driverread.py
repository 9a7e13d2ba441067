"""Reads through the driver's cursor (``storage.driverread``)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from storage.driverread import fetch_all


def test_rows_are_plain_tuples_in_the_callers_transaction(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.exec_driver_sql("CREATE TEMPORARY TABLE probe (n INTEGER, s TEXT)")
        conn.exec_driver_sql("INSERT INTO probe (n, s) VALUES (1, 'a'), (2, NULL)")
        mark = "?" if engine.dialect.name == "sqlite" else "%s"
        rows = fetch_all(conn, f"SELECT n, s FROM probe WHERE n >= {mark} ORDER BY n", (1,))
        conn.rollback()
    assert rows == [(1, "a"), (2, None)]
    assert all(type(r) is tuple for r in rows)


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(engine: Engine) -> None:
    with engine.connect() as conn, pytest.raises(DBAPIError):
        fetch_all(conn, "SELECT * FROM no_such_table")
