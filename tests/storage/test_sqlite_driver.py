"""The embedded store runs on one SQLite library: the current one the install
brings where it has wheels, the standard ``sqlite3`` elsewhere."""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import text

from storage import sqlite_driver
from storage.engine import make_engine

ROOT = Path(__file__).resolve().parents[2]
WHEELS_EXIST = sys.platform == "linux" and platform.machine() == "x86_64"


@pytest.mark.skipif(not WHEELS_EXIST, reason="pysqlite3-binary has wheels for Linux x86-64 only")
def test_the_install_brings_a_current_sqlite() -> None:
    assert sqlite_driver.LIBRARY == "pysqlite3"
    assert tuple(int(p) for p in sqlite_driver.VERSION.split(".")[:2]) >= (3, 45)


def test_every_engine_connection_is_the_drivers(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}", pool_size=1)
    try:
        with engine.connect() as conn:
            driver_connection = conn.connection.dbapi_connection
            version = conn.execute(text("SELECT sqlite_version()")).scalar()
            fts5 = conn.execute(text("SELECT sqlite_compileoption_used('ENABLE_FTS5')")).scalar()
        assert isinstance(driver_connection, sqlite_driver.dbapi.Connection)
        assert version == sqlite_driver.VERSION
        assert fts5 == 1  # full-text search (storage.search) needs it
    finally:
        engine.dispose()


FALLBACK = textwrap.dedent(
    """
    import sys
    sys.modules["pysqlite3"] = None  # as where no wheel exists: the import fails
    from pathlib import Path
    from fastapi.testclient import TestClient
    from service.app import create_app
    from service.settings import Settings
    from service.worker import drain
    from storage import sqlite_driver

    assert sqlite_driver.LIBRARY == "sqlite3", sqlite_driver.LIBRARY
    home = Path(sys.argv[1])
    settings = Settings(home=home, db_url=f"sqlite:///{home / 'iris.db'}", workers=0,
                        otlp_grpc_port=0, evaluate_on_ingest=True)
    with TestClient(create_app(settings)) as client:
        body = {"agent_name": "a", "input": "What is 2 + 2?", "output": "2 + 2 is 4."}
        trace_id = client.post("/api/v1/traces", json=body).json()["trace_id"]
        state = client.app.state.iris
        assert drain(state.engine, state.settings).evaluated == 1
        trace = client.get(f"/api/v1/traces/{trace_id}").json()
        assert trace["evals"][0]["verdict"]["state"] in ("pass", "fail", "warn"), trace
        found = client.get("/api/v1/traces", params={"q": "2"}).json()
        assert [t["trace_id"] for t in found["traces"]] == [trace_id], found
    print("ok", sqlite_driver.VERSION)
    """
)


def test_without_the_wheel_the_standard_sqlite3_serves(tmp_path: Path) -> None:
    """Migrate, ingest, judge and search on the standard library's SQLite."""
    done = subprocess.run(
        [sys.executable, "-c", FALLBACK, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("ok ")
