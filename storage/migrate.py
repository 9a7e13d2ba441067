"""Apply Alembic migrations programmatically (``iris migrate`` and on start)."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

import migrations

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent
# Any constant works; it only has to be the same for every Iris process.
_PG_MIGRATION_LOCK = 0x1215_C011


def alembic_config() -> Config:
    logging.getLogger("alembic").setLevel(logging.WARNING)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> str:
    """Migrate to head, safely when several processes start at once.

    SQLite: ``BEGIN IMMEDIATE`` takes the write lock before Alembic reads the
    version table, so two processes opening a fresh file both succeed.
    PostgreSQL: a transaction-level advisory lock serialises migrators.
    """
    cfg = alembic_config()
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.begin()
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
        conn.commit()
    return head_revision()
