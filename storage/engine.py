"""Database engine setup: SQLite (WAL, busy timeout) or PostgreSQL by URL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from storage import jsontext
from storage.walcheckpoint import AUTOCHECKPOINT_PAGES

SQLITE_BUSY_TIMEOUT_MS = 10_000


def is_sqlite(engine_or_url: Engine | str) -> bool:
    url = engine_or_url.url if isinstance(engine_or_url, Engine) else make_url(engine_or_url)
    return url.get_backend_name() == "sqlite"


def normalise_url(url: str) -> str:
    """Use psycopg 3 for plain ``postgresql://`` URLs (the driver we ship)."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """WAL so readers never block the writer; NORMAL sync is durable under WAL
    against process crashes (the guarantee "acknowledged means stored" needs).

    8 KiB pages (set before WAL, so it takes effect only when the file is
    new): a stored span is ~1 KB, and on 4 KiB pages each commit rewrote about
    twice as many partly filled pages — measured ~9 µs less commit CPU per
    span and 17% less file (``docs/performance.md``)."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA page_size=8192")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA temp_store=MEMORY")
    cursor.close()


def make_engine(
    url: str, *, pool_size: int = 8, wal_autocheckpoint: int = AUTOCHECKPOINT_PAGES
) -> Engine:
    """Create the engine for ``url`` with the pragmas and pool Iris relies on.

    ``wal_autocheckpoint`` (SQLite): the log size in pages past which a
    commit checkpoints by itself. Every Iris process raises it from SQLite's
    1,000 (``storage.walcheckpoint``): the receiving process checkpoints from a
    thread of its own, and a worker whose commits found the log past 1,000
    pages would otherwise copy it and sync the files inside each of them."""
    url = normalise_url(url)
    if is_sqlite(url):
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=pool_size,
            max_overflow=8,
            json_serializer=jsontext.dumps,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        pages = int(wal_autocheckpoint)

        def _autocheckpoint(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.execute(f"PRAGMA wal_autocheckpoint={pages}")

        event.listen(engine, "connect", _autocheckpoint)
        return engine
    # No server-side prepared statements (psycopg prepares a statement after
    # its fifth run): PostgreSQL then kept generic plans made while tables
    # were small, and the ingest path's batch SELECTs scanned ``traces`` for
    # as long as the connection lived. Unprepared, each statement is planned
    # with the table's current size.
    return create_engine(
        url,
        pool_size=pool_size,
        max_overflow=8,
        pool_pre_ping=True,
        connect_args={"connect_timeout": 5, "prepare_threshold": None},
        json_serializer=jsontext.dumps,
    )
