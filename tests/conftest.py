"""Shared fixtures: one database per test, on SQLite or PostgreSQL.

``IRIS_TEST_PG_URL`` set (``.ci/run`` does it) runs every database test on
that PostgreSQL server; unset, on a fresh SQLite file. A migrated SQLite
template is built once per session and copied, so each test starts clean
without paying for the migration again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from storage import migrate
from storage.engine import make_engine
from storage.models import Base

PG_URL = os.environ.get("IRIS_TEST_PG_URL")
SHARED_DIR = Path(os.environ.get("IRIS_SHARED_DIR", Path(__file__).resolve().parents[2] / "shared"))


def pytest_report_header() -> str:
    return f"iris database under test: {'postgresql' if PG_URL else 'sqlite'}"


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "iris.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate.upgrade(engine)
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    engine.dispose()
    return path


@pytest.fixture(scope="session")
def _pg_migrated() -> str | None:
    if not PG_URL:
        return None
    engine = make_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    migrate.upgrade(engine)
    engine.dispose()
    return PG_URL


def _truncate_pg(engine: Engine) -> None:
    names = [t.name for t in Base.metadata.sorted_tables] + ["trace_search"]
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {', '.join(names)} RESTART IDENTITY CASCADE"))


@pytest.fixture
def db_url(tmp_path: Path, _sqlite_template: Path, _pg_migrated: str | None) -> Iterator[str]:
    """A migrated, empty database for this test."""
    if _pg_migrated:
        engine = make_engine(_pg_migrated)
        _truncate_pg(engine)
        engine.dispose()
        yield _pg_migrated
        return
    path = tmp_path / "iris.db"
    shutil.copyfile(_sqlite_template, path)
    yield f"sqlite:///{path}"


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    yield eng
    eng.dispose()
