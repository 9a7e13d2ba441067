"""Writers take turns at SQLite's write lock on a kernel lock (``storage.writeturn``)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from storage.engine import make_engine
from storage.writeturn import WriteTurn, turn_path, write_turn


def _hold_in_process(path: str, seconds: float, ready: object) -> None:
    with WriteTurn(path).held():
        ready.set()  # type: ignore[attr-defined]
        time.sleep(seconds)


@contextmanager
def _held_by_another_process(path: str, seconds: float) -> Iterator[Any]:
    """Another process holding the turn at ``path`` for ``seconds``; yields it."""
    ctx = multiprocessing.get_context("spawn")
    ready = ctx.Event()
    holder = ctx.Process(target=_hold_in_process, args=(path, seconds, ready))
    holder.start()
    try:
        assert ready.wait(30)
        yield holder
    finally:
        holder.join(30)


def test_a_turn_waits_for_another_process_to_finish_its_own(tmp_path: Path) -> None:
    path = str(tmp_path / "db-writeturn")
    with _held_by_another_process(path, 0.4) as holder:
        started = time.monotonic()
        with WriteTurn(path).held() as got:
            waited = time.monotonic() - started
            assert got
        assert waited > 0.2  # it waited for the other process's turn to end
    assert holder.exitcode == 0


def test_a_turn_not_got_in_time_lets_the_writer_go_on(tmp_path: Path) -> None:
    # A stuck holder must fail others as SQLite's own busy timeout did, not hang them.
    path = str(tmp_path / "db-writeturn")
    with _held_by_another_process(path, 2.0):
        started = time.monotonic()
        with WriteTurn(path, timeout_s=0.2).held() as got:
            assert not got
        assert 0.15 < time.monotonic() - started < 1.5


def test_a_writer_works_in_hand_while_another_process_has_the_turn(tmp_path: Path) -> None:
    path = str(tmp_path / "db-writeturn")
    done: list[float] = []

    def judge_one() -> bool:  # ten 20 ms pieces of work, then nothing left
        if len(done) == 10:
            return False
        time.sleep(0.02)
        done.append(time.monotonic())
        return True

    turn = WriteTurn(path)
    with _held_by_another_process(path, 0.5):
        started = time.monotonic()
        with turn.held(judge_one) as got:
            assert got
            taken = time.monotonic()
    assert len(done) == 10  # all of it done while the other process held the turn
    assert done[-1] < taken
    assert taken - started > 0.4  # and the turn still waited for the holder
    # waiting is what was not work: ~0.5 s held less ~0.2 s worked
    assert turn.waited_s < taken - started - 0.15


def test_work_in_hand_stops_once_the_turn_comes_free(tmp_path: Path) -> None:
    path = str(tmp_path / "db-writeturn")
    calls = 0

    def endless() -> bool:
        nonlocal calls
        calls += 1
        time.sleep(0.01)
        return True

    with _held_by_another_process(path, 0.3), WriteTurn(path).held(endless) as got:
        assert got
    assert 5 < calls < 200  # not called on once the turn was free
    with WriteTurn(path).held(endless) as got:  # a free turn: no work first
        assert got
    assert calls < 200


def test_work_in_hand_does_not_use_up_the_timeout(tmp_path: Path) -> None:
    path = str(tmp_path / "db-writeturn")
    worked = 0

    def some_work() -> bool:  # 0.3 s of work, longer than the timeout
        nonlocal worked
        if worked == 6:
            return False
        time.sleep(0.05)
        worked += 1
        return True

    with _held_by_another_process(path, 2.0):
        started = time.monotonic()
        with WriteTurn(path, timeout_s=0.2).held(some_work) as got:
            assert not got
        assert worked == 6
        assert 0.45 < time.monotonic() - started < 1.5


def test_work_in_hand_runs_while_another_thread_has_the_turn(tmp_path: Path) -> None:
    turn = WriteTurn(str(tmp_path / "db-writeturn"))
    holding, finish = threading.Event(), threading.Event()
    worked: list[bool] = []

    def holder() -> None:
        with turn.held():
            holding.set()
            finish.wait(10)

    def work() -> bool:
        worked.append(holding.is_set())
        if len(worked) == 3:
            finish.set()  # the holder's turn ends once the work is done
        time.sleep(0.01)
        return len(worked) < 3

    thread = threading.Thread(target=holder)
    thread.start()
    assert holding.wait(10)
    with turn.held(work) as got:
        assert got
    thread.join()
    assert worked == [True, True, True]


def test_threads_of_one_process_take_turns(tmp_path: Path) -> None:
    turn = WriteTurn(str(tmp_path / "db-writeturn"))
    inside = 0
    most = 0
    lock = threading.Lock()

    def writer() -> None:
        nonlocal inside, most
        for _ in range(20):
            with turn.held():
                with lock:
                    inside += 1
                    most = max(most, inside)
                time.sleep(0.001)
                with lock:
                    inside -= 1

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert most == 1


def _hold_in_fork(turn: WriteTurn, ready: object, done: object) -> None:
    with turn.held() as got:
        assert got
        ready.set()  # type: ignore[attr-defined]
        done.wait(30)  # type: ignore[attr-defined]


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_forked_child_takes_its_turn_apart_from_its_parent(tmp_path: Path) -> None:
    # The child inherits the parent's open lock file. Were it to lock that
    # same open file, the kernel would count the parent as its owner too, and
    # the parent would take its turn while the child is writing.
    turn = WriteTurn(str(tmp_path / "db-writeturn"), timeout_s=0.2)
    with turn.held() as got:  # the parent has used its turn: its lock file is open
        assert got
    ctx = multiprocessing.get_context("fork")
    ready, done = ctx.Event(), ctx.Event()
    child = ctx.Process(target=_hold_in_fork, args=(turn, ready, done))
    child.start()
    try:
        assert ready.wait(30)
        with turn.held() as got:
            assert not got
    finally:
        done.set()
        child.join(30)
    assert child.exitcode == 0
    with turn.held() as got:
        assert got


def test_only_a_sqlite_file_has_a_turn(tmp_path: Path) -> None:
    db = tmp_path / "iris.db"
    engine = make_engine(f"sqlite:///{db}")
    assert turn_path(engine) == f"{db}-writeturn"
    assert turn_path(create_engine("sqlite://")) is None
    assert turn_path(create_engine("sqlite:///:memory:")) is None
    assert turn_path(create_engine("postgresql+psycopg://u@localhost:1/x")) is None
    with write_turn(engine), engine.begin() as conn:
        conn.execute(text("CREATE TABLE t (x INTEGER)"))
    assert (tmp_path / "iris.db-writeturn").exists()
