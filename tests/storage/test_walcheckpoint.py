"""Checkpoints off the commit path: the writer's commits leave pages in the
WAL, and the checkpointer's thread copies them into the database file."""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import Engine, text

from service.settings import Settings
from service.state import ServiceState
from storage.engine import AUTOCHECKPOINT_PAGES, make_engine
from storage.walcheckpoint import WalCheckpointer, checkpoint_passive, wants_checkpointer


def _fill(engine: Engine, commits: int) -> None:
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v BLOB)")
    for _ in range(commits):
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO t (v) VALUES (:v)"), [{"v": bytes(2000)} for _ in range(20)]
            )


def test_only_sqlite_files_want_one() -> None:
    assert wants_checkpointer("sqlite:////tmp/x/iris.db")
    assert not wants_checkpointer("sqlite://")
    assert not wants_checkpointer("sqlite:///:memory:")
    assert not wants_checkpointer("postgresql://u@localhost/db")


def test_commits_stay_in_the_wal_until_a_checkpoint_copies_them(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    engine = make_engine(f"sqlite:///{db}")
    try:
        _fill(engine, 60)  # ~2.4 MB: past the default threshold of 1,000 pages
        before = db.stat().st_size
        busy, log_pages, copied = checkpoint_passive(engine)
        assert busy == 0 and log_pages > 100 and copied == log_pages
        assert db.stat().st_size > before + 2_000_000
    finally:
        engine.dispose()


def test_the_thread_checkpoints_while_commits_go_on(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    engine = make_engine(f"sqlite:///{db}")
    checkpointer = WalCheckpointer(engine, interval_s=0.01)
    checkpointer.start()
    try:
        _fill(engine, 60)
        deadline = time.monotonic() + 10
        while db.stat().st_size < 2_000_000 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert db.stat().st_size >= 2_000_000
        assert checkpointer.checkpoints > 0
    finally:
        checkpointer.stop()
        engine.dispose()
    assert checkpointer._thread is None


def test_the_receiving_process_checkpoints_from_its_own_thread(tmp_path: Path) -> None:
    state = ServiceState.create(Settings(home=tmp_path, db_url=f"sqlite:///{tmp_path / 'c.db'}"))
    try:
        assert state.writer.checkpointer is not None
        with state.engine.connect() as conn:
            pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one()
        assert pages == AUTOCHECKPOINT_PAGES
    finally:
        state.engine.dispose()


def test_every_iris_engine_raises_the_threshold(tmp_path: Path) -> None:
    # workers too: they share the log the receiver's thread keeps long
    engine = make_engine(f"sqlite:///{tmp_path / 'd.db'}", pool_size=2)
    try:
        with engine.connect() as conn:
            pages = conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one()
        assert pages == AUTOCHECKPOINT_PAGES
    finally:
        engine.dispose()
