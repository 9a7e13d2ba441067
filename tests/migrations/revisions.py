"""Moving a test database between schema revisions, for the migration tests."""

from __future__ import annotations

from alembic import command
from sqlalchemy import Engine, inspect

from storage import migrate


def move_to(engine: Engine, revision: str, *, down: bool) -> None:
    """Upgrade (or, with ``down``, downgrade) the database to ``revision``."""
    cfg = migrate.alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if down else command.upgrade)(cfg, revision)


def trace_indexes(engine: Engine) -> set[str]:
    """The names of the ``traces`` table's indexes."""
    return {ix["name"] for ix in inspect(engine).get_indexes("traces") if ix["name"]}
