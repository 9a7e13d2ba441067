"""Bulk inserts and updates through the driver, for the ingest and worker hot paths.

SQLAlchemy Core spends more time compiling and processing parameters than
SQLite spends storing a span. This module builds each INSERT (or keyed
UPDATE) statement once per (dialect, table, columns) and hands the driver
plain tuples: JSON columns serialised here, datetimes in the exact text form
SQLAlchemy itself reads back on SQLite. Everything else in storage keeps
using Core.

On SQLite a JSON value goes to the driver as its UTF-8 bytes, which the
statement stores as text (``CAST(? AS TEXT)``: the same bytes, the same
text value a ``str`` would have given): the encoder writes UTF-8, and the
driver would otherwise encode again the ``str`` decoded from it
(``jsontext.dumps_utf8``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Connection,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    SmallInteger,
    String,
    Table,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.exc import DBAPIError

from storage import jsontext

if TYPE_CHECKING:
    import psycopg

_dumps = jsontext.dumps
_dumps_utf8 = jsontext.dumps_utf8


def _sqlite_datetime(value: datetime) -> str:
    """``%Y-%m-%d %H:%M:%S.%f``, SQLAlchemy's SQLite storage form.

    ``isoformat`` is several times cheaper than ``strftime`` (a trace row
    has three datetimes, each distinct), but leaves out a zero fraction and
    adds an offset to an aware value; those take the slow path."""
    text = value.isoformat(" ")
    if len(text) == 26:
        return text
    return value.strftime("%Y-%m-%d %H:%M:%S.%f")


def driver_mark(dialect: str) -> str:
    """The driver's parameter marker: sqlite3's ``?``, psycopg's ``%s``."""
    return "?" if dialect == "sqlite" else "%s"


def _mark(dialect: str, kind: str = "plain") -> str:
    """The parameter marker of a column of this kind (``_kinds``): a JSON
    column's UTF-8 bytes are stored as text on SQLite."""
    if dialect == "sqlite" and kind == "json":
        return "CAST(? AS TEXT)"
    return driver_mark(dialect)


@lru_cache(maxsize=64)
def _kinds(table: Table, columns: tuple[str, ...]) -> tuple[str, ...]:
    """How each column's values go to the driver: JSON text, datetime, as is."""
    kinds = []
    for c in columns:
        col_type = table.c[c].type
        if isinstance(col_type, JSON) or isinstance(getattr(col_type, "impl", None), JSON):
            kinds.append("json")
        elif isinstance(col_type, DateTime):
            kinds.append("datetime")
        else:
            kinds.append("plain")
    return tuple(kinds)


@lru_cache(maxsize=64)
def _plan(
    dialect: str, table: Table, columns: tuple[str, ...], ignore: bool
) -> tuple[str, tuple[str, ...]]:
    names = ", ".join(f'"{c}"' for c in columns)
    kinds = _kinds(table, columns)
    marks = ", ".join(_mark(dialect, kind) for kind in kinds)
    verb = "INSERT OR IGNORE" if ignore and dialect == "sqlite" else "INSERT"
    sql = f'{verb} INTO "{table.name}" ({names}) VALUES ({marks})'
    if ignore and dialect == "postgresql":
        sql += " ON CONFLICT DO NOTHING"
    return sql, kinds


@lru_cache(maxsize=64)
def _update_sql(dialect: str, table: Table, columns: tuple[str, ...], keys: tuple[str, ...]) -> str:
    kinds = _kinds(table, columns)
    sets = ", ".join(f'"{c}" = {_mark(dialect, k)}' for c, k in zip(columns, kinds, strict=True))
    where = " AND ".join(f'"{k}" = {_mark(dialect)}' for k in keys)
    return f'UPDATE "{table.name}" SET {sets} WHERE {where}'


def insert_rows(
    conn: Connection,
    table: Table,
    rows: Sequence[dict[str, Any]],
    *,
    ignore_conflicts: bool = False,
    ordered: bool = False,
) -> None:
    """Insert ``rows`` (all with the same keys) into ``table``.

    SQLite: one ``executemany``. PostgreSQL: ``COPY`` (see ``_copy_rows``)
    when there are enough rows for it to pay, else ``executemany``;
    ``ordered`` insists on ``executemany``, which inserts in the given order."""
    if not rows:
        return
    columns, values = driver_rows(conn.dialect.name, table, rows)
    insert_values(conn, table, columns, values, ignore_conflicts=ignore_conflicts, ordered=ordered)


def driver_rows(
    dialect: str, table: Table, rows: Sequence[dict[str, Any]]
) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    """``rows`` (all with the same keys) as ``insert_values`` takes them: the
    columns, and a tuple of driver values per row. Needs no connection, so a
    worker builds them before it takes its turn at SQLite's write lock."""
    if not rows:
        return (), []
    columns = tuple(rows[0])
    kinds = _kinds(table, columns)
    return columns, _tuples(rows, columns, kinds, sqlite=dialect == "sqlite")


def insert_values(
    conn: Connection,
    table: Table,
    columns: tuple[str, ...],
    values: Sequence[tuple[Any, ...]],
    *,
    ignore_conflicts: bool = False,
    ordered: bool = False,
) -> None:
    """``insert_rows`` for rows already in the driver's form: tuples in
    ``columns`` order, JSON columns as text and datetimes as
    ``driver_datetime`` gives them. For the writer's hot path, which builds
    each row once instead of a dict that is then converted."""
    if not values:
        return
    dialect = conn.dialect.name
    if dialect == "postgresql" and len(values) >= COPY_MIN_ROWS and not ordered:
        _copy_rows(conn, table, columns, values, ignore_conflicts)
        return
    conn.exec_driver_sql(_plan(dialect, table, columns, ignore_conflicts)[0], list(values))


def driver_datetime(dialect: str) -> Callable[[datetime], Any]:
    """How a datetime goes to the driver in ``insert_values``: SQLAlchemy's
    SQLite text form there, the value itself for psycopg."""
    if dialect == "sqlite":
        return _sqlite_datetime
    return _as_is


def driver_bool(dialect: str) -> Callable[[bool], Any]:
    """How a bool goes to the driver in ``insert_values``: as the integer
    SQLite stores for it there (the sqlite3 driver binds exact ints at once;
    for a bool it first looks up an adapter, ~1,400 instructions, see
    ``storage.engine._register_sqlite_adapters``), the bool itself for
    psycopg (a boolean column refuses an integer)."""
    if dialect == "sqlite":
        return int
    return _as_is


def _as_is(value: Any) -> Any:
    return value


def update_rows(
    conn: Connection, table: Table, rows: Sequence[dict[str, Any]], *, keys: tuple[str, ...]
) -> int:
    """``UPDATE table SET <the other columns> WHERE <keys> = …`` once per row
    (all rows with the same keys), in one ``executemany``; returns the number
    of rows changed, or -1 where the driver cannot tell.

    Core spent ~2 µs a column on parameter processing per row (JSON through
    its serializer, datetimes through its SQLite processor); the values are
    converted here as ``insert_rows`` converts them.
    """
    if not rows:
        return 0
    return execute_update(conn, update_statement(conn.dialect.name, table, rows, keys=keys))


def update_statement(
    dialect: str, table: Table, rows: Sequence[dict[str, Any]], *, keys: tuple[str, ...]
) -> tuple[str, list[tuple[Any, ...]]]:
    """``update_rows``'s statement and driver parameters, built without a
    connection (see ``driver_rows``); ``execute_update`` runs them."""
    columns = tuple(c for c in rows[0] if c not in keys)
    order = columns + keys
    sql = _update_sql(dialect, table, columns, keys)
    return sql, _tuples(rows, order, _kinds(table, order), sqlite=dialect == "sqlite")


def execute_update(conn: Connection, statement: tuple[str, list[tuple[Any, ...]]]) -> int:
    """Run an ``update_statement``; the rows changed, or -1 where the driver
    cannot tell."""
    sql, params = statement
    if not params:
        return 0
    return int(conn.exec_driver_sql(sql, params).rowcount)


def _tuples(
    rows: Sequence[dict[str, Any]],
    columns: tuple[str, ...],
    kinds: tuple[str, ...],
    *,
    sqlite: bool,
) -> list[tuple[Any, ...]]:
    """The rows as driver tuples: JSON columns as text (on SQLite its UTF-8
    bytes, see the module's docstring), and on SQLite datetimes in the text
    form SQLAlchemy reads back; every other value as it is."""
    pick = itemgetter(*columns)
    special = [
        (i, kind)
        for i, kind in enumerate(kinds)
        if kind == "json" or (sqlite and kind == "datetime")
    ]
    if len(columns) == 1:
        return [(pick(row),) for row in rows]
    if not special:
        return [pick(row) for row in rows]
    # Rows of one request share their datetimes (received_at): format each once.
    formatted: dict[datetime, str] = {}
    dumps = _dumps_utf8 if sqlite else _dumps
    params: list[tuple[Any, ...]] = []
    append = params.append
    for row in rows:
        values = list(pick(row))
        for i, kind in special:
            value = values[i]
            if value is None:
                continue
            if kind == "json":
                values[i] = dumps(value)
            else:
                text = formatted.get(value)
                if text is None:
                    text = formatted[value] = _sqlite_datetime(value)
                values[i] = text
        append(tuple(values))
    return params


# Below this many rows a pipelined executemany is as fast as COPY's extra statements.
COPY_MIN_ROWS = 8


def _copy_rows(
    conn: Connection,
    table: Table,
    columns: tuple[str, ...],
    values: Sequence[tuple[Any, ...]],
    ignore: bool,
) -> None:
    """PostgreSQL bulk insert through ``COPY … FROM STDIN``.

    One-row INSERTs, even pipelined, cost the server a statement execution
    each, and the writer waited on it for most of its time. COPY streams the
    rows into one command. Without conflicts to ignore it goes straight into
    the table (a duplicate key fails the transaction, as the INSERT did);
    with them, into a per-session staging table emptied by the
    ``INSERT … SELECT … ON CONFLICT DO NOTHING`` that moves its rows.

    The rows travel in COPY's binary format when every column's type has one
    here (see :func:`_binary_oids`): the text format hex-escaped every byte
    of a stored OTLP span and the server parsed it back, ~10 µs of server and
    ~9 µs of client CPU per span.
    """
    names = ", ".join(f'"{c}"' for c in columns)
    target = _staging_table(conn, table) if ignore else table.name
    oids = _binary_oids(table, columns)
    if oids is not None:
        values = _binary_values(values, _jsonb_positions(table, columns))
    # The dialect is PostgreSQL, and the driver Iris ships for it is psycopg 3.
    driver = cast("psycopg.Connection[Any]", conn.connection.dbapi_connection)
    statement = f'COPY "{target}" ({names}) FROM STDIN'
    if oids is not None:
        statement += " (FORMAT BINARY)"
    try:
        with driver.cursor() as cur, cur.copy(statement) as copy:
            if oids is not None:
                copy.set_types(list(oids))
            for row_values in values:
                copy.write_row(row_values)
    except conn.dialect.loaded_dbapi.Error as exc:
        # The driver's own error, raised as SQLAlchemy raises it for any other
        # statement (IntegrityError, OperationalError, …), so callers see one kind.
        raise DBAPIError.instance(statement, None, exc, conn.dialect.loaded_dbapi.Error) from exc
    if ignore:
        conn.exec_driver_sql(
            f'WITH moved AS (DELETE FROM "{target}" RETURNING {names}) '
            f'INSERT INTO "{table.name}" ({names}) SELECT {names} FROM moved '
            "ON CONFLICT DO NOTHING"
        )


# PostgreSQL type oids of the binary formats ``_copy_rows`` writes. A JSONB
# value is sent as ``bytea`` so psycopg passes the bytes as they are: JSONB's
# binary format is a version byte (1) and the JSON text, which the server
# parses as it would the text format's. varchar columns take text's format.
_OID_TEXT, _OID_BYTEA, _OID_BOOL, _OID_INT2, _OID_INT4, _OID_INT8 = 25, 17, 16, 21, 23, 20
_OID_FLOAT8, _OID_TIMESTAMP = 701, 1114


def _postgresql_type(table: Table, column: str) -> Any:
    col_type = table.c[column].type
    return getattr(col_type, "_variant_mapping", {}).get("postgresql", col_type)


@lru_cache(maxsize=64)
def _binary_oids(table: Table, columns: tuple[str, ...]) -> tuple[int, ...] | None:
    """The oid to send each column as, or ``None`` when a column's type has no
    binary format here (the text format is used for the whole COPY)."""
    oids: list[int] = []
    for c in columns:
        t = _postgresql_type(table, c)
        if isinstance(t, JSONB | LargeBinary):
            oids.append(_OID_BYTEA)
        elif isinstance(t, JSON | String):  # Text is a String
            oids.append(_OID_TEXT)
        elif isinstance(t, Boolean):
            oids.append(_OID_BOOL)
        elif isinstance(t, BigInteger):
            oids.append(_OID_INT8)
        elif isinstance(t, SmallInteger):
            oids.append(_OID_INT2)
        elif isinstance(t, Integer):
            oids.append(_OID_INT4)
        elif isinstance(t, Float) and not getattr(t, "asdecimal", False) and t.precision is None:
            oids.append(_OID_FLOAT8)
        elif isinstance(t, DateTime) and not t.timezone:
            oids.append(_OID_TIMESTAMP)
        else:
            return None
    return tuple(oids)


@lru_cache(maxsize=64)
def _jsonb_positions(table: Table, columns: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(i for i, c in enumerate(columns) if isinstance(_postgresql_type(table, c), JSONB))


def _binary_values(
    values: Sequence[tuple[Any, ...]], jsonb: tuple[int, ...]
) -> Sequence[tuple[Any, ...]]:
    """JSONB columns' JSON text in JSONB's binary format (version 1)."""
    if not jsonb:
        return values
    out: list[tuple[Any, ...]] = []
    for row in values:
        row_list = list(row)
        for i in jsonb:
            text = row_list[i]
            if text is not None:
                row_list[i] = b"\x01" + text.encode()
        out.append(tuple(row_list))
    return out


def _staging_table(conn: Connection, table: Table) -> str:
    """A temporary copy of ``table``'s columns for this session.

    Asked for every time (a no-op once it exists): remembering it per
    connection would be wrong after a rollback of the transaction that made it.
    """
    name = f"_stage_{table.name}"
    conn.exec_driver_sql(
        f'CREATE TEMP TABLE IF NOT EXISTS "{name}" '
        f'(LIKE "{table.name}" INCLUDING DEFAULTS) ON COMMIT DELETE ROWS'
    )
    return name
