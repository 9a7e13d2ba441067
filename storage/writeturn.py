"""Take turns at SQLite's write lock on a kernel lock instead of in SQLite's sleeps.

SQLite lets one connection write at a time. A connection that finds the
lock taken waits in its busy handler, which sleeps 1, 2, 5, 10, 15, 20, 25 …
up to 100 ms between attempts: it wakes long after the lock came free. With
the receiving process's group commit, the assembler's sweep and every
evaluator worker writing to one file, a worker spent 12-14 % of a paced
2,000 traces/s run asleep in those waits while jobs were pending (sampled
from ``/proc/<pid>/syscall``), CPU the machine then lacked.

So the writers that contend all the time (the group commit, the sweep, a
worker's claim and its store) first take a turn: a ``flock`` on a sidecar
file next to the database, ``<database>-writeturn``, polled at sub-millisecond
intervals, so a waiter starts within a fraction of a millisecond of the
holder's commit. The turn only orders writers that take it; SQLite's own
lock still guarantees correctness, and any other writer (an API request,
a migration) goes through SQLite's busy handler as before. A writer that
cannot get its turn within SQLite's busy timeout proceeds without one, so
a stuck holder fails others exactly as SQLite's timeout did before.

The lock belongs to the process (one open file, reopened after a fork) and
threads of one process queue on a ``threading.Lock`` in front of it.

A writer with other work in hand can do it instead of waiting: ``meanwhile``
is called between attempts while another writer holds the turn (an
evaluator worker judges its next trace there rather than leave its core
idle), until it says there is nothing left to do.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Callable, Iterator

from sqlalchemy import Engine

from storage.engine import SQLITE_BUSY_TIMEOUT_MS, is_sqlite

# Polling intervals while another process holds the turn: short at first (a
# worker's claim holds it for well under a millisecond), then at most 0.5 ms.
_FIRST_WAIT_S = 0.0001
_LONGEST_WAIT_S = 0.0005

_turns_lock = threading.Lock()  # guards ``_turns`` and each turn's opening


class WriteTurn:
    """The turn at one database file's write lock, for this process."""

    def __init__(self, path: str, *, timeout_s: float = SQLITE_BUSY_TIMEOUT_MS / 1000) -> None:
        self.path = path
        self.timeout_s = timeout_s
        self._threads = threading.Lock()
        self._fd = -1
        self._pid = 0
        # Turns taken and seconds spent waiting for them, in this process:
        # how contended SQLite's single writer is (``GET /metrics``).
        self.turns = 0
        self.waited_s = 0.0

    def _for_this_process(self) -> None:
        """Open the lock file in this process. A forked child reopens it: a
        lock taken on the open file it inherited would be its parent's too
        (``flock`` locks belong to the open file, not the process), and the
        thread lock it inherited may be held by a thread it does not have."""
        if self._pid == os.getpid():
            return
        with _turns_lock:
            if self._pid != os.getpid():
                self._threads = threading.Lock()
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                self._pid = os.getpid()

    @contextlib.contextmanager
    def held(self, meanwhile: Callable[[], bool] | None = None) -> Iterator[bool]:
        """Hold the turn for the block; yields whether it was got in time.

        While another writer holds it, ``meanwhile`` (if given) runs between
        attempts until it returns ``False``; the time it runs is work, not
        waiting, and does not count against the timeout."""
        started = time.monotonic()
        self._for_this_process()
        poll = _Poll(started + self.timeout_s, meanwhile)
        threads = self._threads
        if meanwhile is None:  # the other threads' turns: a blocking wait
            queued = threads.acquire(timeout=self.timeout_s)
        else:
            queued = poll.until(lambda: threads.acquire(blocking=False))
        if not queued:
            yield False
            return
        try:
            fd = self._fd
            got = poll.until(lambda: _try_flock(fd))
            self.turns += got
            self.waited_s += time.monotonic() - started - poll.working_s
            try:
                yield got
            finally:
                if got:
                    fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            threads.release()


class _Poll:
    """Attempts at a lock until a deadline, with ``meanwhile``'s work or
    short sleeps between them; the deadline moves on by the work's time."""

    def __init__(self, deadline: float, meanwhile: Callable[[], bool] | None) -> None:
        self.deadline = deadline
        self.meanwhile = meanwhile
        self.working_s = 0.0

    def until(self, attempt: Callable[[], bool]) -> bool:
        wait = _FIRST_WAIT_S
        while not attempt():
            if time.monotonic() - self.working_s >= self.deadline:
                return False
            if self.meanwhile is not None:
                began = time.monotonic()
                more = self.meanwhile()
                self.working_s += time.monotonic() - began
                if more:
                    continue
                self.meanwhile = None  # nothing left to do: wait as usual
            time.sleep(wait)
            wait = min(wait * 2, _LONGEST_WAIT_S)
        return True


def _try_flock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


_turns: dict[str, WriteTurn] = {}


def wait_totals() -> tuple[int, float]:
    """Turns this process has taken at any database's write lock, and the
    seconds it waited for them (other threads' and processes' turns)."""
    turns = list(_turns.values())
    return sum(t.turns for t in turns), sum(t.waited_s for t in turns)


def turn_path(engine: Engine) -> str | None:
    """The sidecar lock file of ``engine``'s database; ``None`` when it has
    none (PostgreSQL, an in-memory SQLite database)."""
    if not is_sqlite(engine):
        return None
    database = engine.url.database
    if database in (None, "", ":memory:") or database.startswith("file::memory:"):
        return None
    return f"{os.path.abspath(database)}-writeturn"


@contextlib.contextmanager
def write_turn(engine: Engine, meanwhile: Callable[[], bool] | None = None) -> Iterator[None]:
    """Wait for this process's turn to write to ``engine``'s SQLite file,
    running ``meanwhile`` instead of sleeping while another writer has it
    (``WriteTurn.held``); on PostgreSQL (row locks, no single writer) it
    does nothing."""
    path = turn_path(engine)
    if path is None:
        yield
        return
    turn = _turns.get(path)
    if turn is None:
        with _turns_lock:
            turn = _turns.setdefault(path, WriteTurn(path))
    with turn.held(meanwhile):
        yield
