"""SQLite binds None, bools, bytes and encoded JSON as it did without adapters."""

from __future__ import annotations

from pathlib import Path

from storage import jsontext
from storage.engine import make_engine


def test_values_bind_as_without_adapters(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}", pool_size=1)
    values = (None, True, False, b"\x00\xff", jsontext.Encoded(b'{"a":"\xe2\x89\xa5"}'))
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t (a, b, c, d, e)")
        conn.exec_driver_sql("INSERT INTO t VALUES (?, ?, ?, ?, CAST(? AS TEXT))", values)
        row = conn.exec_driver_sql(
            "SELECT a, b, c, d, e, typeof(a), typeof(b), typeof(d), typeof(e) FROM t"
        ).one()
    engine.dispose()
    assert tuple(row) == (None, 1, 0, b"\x00\xff", '{"a":"≥"}', "null", "integer", "blob", "text")
