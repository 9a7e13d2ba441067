"""Database engine setup: SQLite (WAL, busy timeout) or PostgreSQL by URL."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

from storage import jsontext
from storage.sqlite_driver import dbapi as sqlite_dbapi

SQLITE_BUSY_TIMEOUT_MS = 10_000
# A commit checkpoints the WAL by itself only past this many pages (80 MiB of
# 8 KiB pages), not SQLite's 1,000: the receiving process checkpoints from a
# thread of its own (``storage.walcheckpoint``), and a worker finding the log
# past 1,000 pages would copy it and sync the files inside nearly every
# commit. Under a steady stream of commits those passive checkpoints never
# find the log fully copied when a transaction starts, so the log restarts
# only when a commit passes this mark: the ``-wal`` file stays below ~80 MiB.
# (4,000 pages measured ~12 % fewer spans/s: more syncs landed in commits.)
AUTOCHECKPOINT_PAGES = 10_000


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
    cursor.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
    cursor.close()


def _same(value: Any) -> Any:
    return value


def _register_sqlite_adapters() -> None:
    """Tell the SQLite driver module how to bind the types Iris binds besides
    ``int``, ``float`` and ``str``: as they are (``None`` as NULL, ``bytes``
    as a blob, ``bool`` as its integer, exactly as without an adapter).

    For any other type the module searches for an adapter on every value it
    binds, by raising and clearing two formatted ``AttributeError``s: ~3,300
    instructions a ``None``, ``bool`` or ``bytes`` value, and a stored
    verdict binds a dozen of each (its row's NULL columns and flags, its JSON
    columns' UTF-8, ``storage.fastinsert``). A registered adapter is one dict
    look-up and a call: a worker's store stage measured ~39,000 instructions
    a trace less. The registry is the module's, for the whole process."""
    sqlite_dbapi.register_adapter(type(None), _same)
    sqlite_dbapi.register_adapter(bool, int)
    sqlite_dbapi.register_adapter(bytes, bytes)  # bytes(b) is b itself
    sqlite_dbapi.register_adapter(jsontext.Encoded, bytes)


def make_engine(url: str, *, pool_size: int = 8) -> Engine:
    """Create the engine for ``url`` with the pragmas and pool Iris relies on."""
    url = normalise_url(url)
    if is_sqlite(url):
        _register_sqlite_adapters()
        engine = create_engine(
            url,
            module=sqlite_dbapi,  # the one SQLite library (storage.sqlite_driver)
            connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
            pool_size=pool_size,
            max_overflow=8,
            json_serializer=jsontext.dumps,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
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
