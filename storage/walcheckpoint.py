"""SQLite WAL checkpoints off the commit path.

Under WAL a commit appends its pages to the ``-wal`` file; from time to time
those pages are copied back into the database file (a checkpoint), which
also syncs both files to disk. By default the connection whose commit takes
the log past 1,000 pages runs the checkpoint inside that ``COMMIT``: on the
ingest path that is the group-commit writer, so every client waiting for the
commit waited for the copy and the two ``fsync`` calls as well. On the
replayed standard load (``docs/performance.md``) the commits' wall time was
~3 times what it is with checkpoints taken elsewhere.

Iris's connections instead checkpoint by themselves only past
``storage.engine.AUTOCHECKPOINT_PAGES`` (a safety net), and the
receiving process runs a ``PASSIVE`` checkpoint from a thread of its own
every ``INTERVAL_S``. (The workers' connections too: with the log kept
longer, a worker at SQLite's default threshold of 1,000 pages would
checkpoint, and sync, inside nearly every commit.) A passive
checkpoint copies what no reader still needs without taking the write lock,
so the writer keeps committing while it copies and syncs. Durability is
unchanged: a commit under ``synchronous=NORMAL`` was never synced by itself;
what a checkpoint syncs is the same work, done by another thread.
"""

from __future__ import annotations

import logging
import threading

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from storage.engine import is_sqlite

log = logging.getLogger("iris.checkpoint")

# Each checkpoint copies every page changed since the last one, once, however
# often it changed: the random-keyed primary-key indexes dirty ~2 leaf pages a
# trace in every commit, the same leaves again and again. In process, one
# request (25 traces) per commit and a checkpoint every 8 commits (100 ms at
# a paced 2,000 traces/s) copied 10.8 KiB a trace and spent 20-23 µs a trace
# checkpointing; every 40 commits (500 ms), 5.9 KiB and 12-17 µs (CPU time,
# shared machine). The log then holds ~3,000 pages between checkpoints at
# 2,000 traces/s, well below ``AUTOCHECKPOINT_PAGES``. (A checkpoint every 30
# or 250 ms measured within the noise of 100 ms on the burst load.)
INTERVAL_S = 0.5


def wants_checkpointer(url: str) -> bool:
    """True for a SQLite database in a file (an in-memory one has no WAL)."""
    return is_sqlite(url) and make_url(url).database not in (None, "", ":memory:")


def checkpoint_passive(engine: Engine) -> tuple[int, int, int]:
    """One ``PRAGMA wal_checkpoint(PASSIVE)``: (busy, pages in the log, pages
    copied). Never waits for readers or the writer."""
    with engine.connect() as conn:
        row = conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
    return int(row[0]), int(row[1]), int(row[2])


class WalCheckpointer:
    """A daemon thread taking passive checkpoints of ``engine``'s database."""

    def __init__(self, engine: Engine, *, interval_s: float = INTERVAL_S):
        self.engine = engine
        self.interval_s = interval_s
        self.checkpoints = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="iris-wal-checkpoint", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (SQLite checkpoints what is left when the last
        connection closes)."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                checkpoint_passive(self.engine)
                self.checkpoints += 1
            except Exception as exc:  # the next tick tries again; commits go on regardless
                log.debug("WAL checkpoint failed: %s", exc)
