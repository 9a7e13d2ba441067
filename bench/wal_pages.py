#!/usr/bin/env python3
"""Which pages SQLite writes for a trace: the WAL's frames by b-tree.

Every commit appends each page it changed, whole (8 KiB), to the ``-wal``
file, and a checkpoint copies them into the database later; a b-tree keyed
by a random id (a trace id) has a different leaf changed for nearly every
trace in a commit. This counts, for a batch of new traces, the frames the
receiving side writes (ingest, a request per commit by default, then the
sweep that queues their jobs) and those one evaluator worker writes (its
stores), each attributed to the table or index that owns the page
(SQLite's ``dbstat``), in KiB a trace:

    python bench/wal_pages.py --base 20000 --traces 1000
    python bench/wal_pages.py --base 20000 --traces 1000 --requests-per-commit 4

``--base`` traces are ingested and judged first, so the indexes have the
size of a file in use (a random key's cost grows with its number of
leaves). No checkpoint runs while a phase is counted.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import struct
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from typing import Any  # noqa: E402

from sqlalchemy import Engine, event  # noqa: E402
from worker_bench import drain_timed, fill, request_bodies  # noqa: E402

from service.assembler import sweep_once  # noqa: E402
from service.ingest import decode_otlp_protobuf, jobs_for_batch  # noqa: E402
from service.settings import Settings  # noqa: E402
from service.worker import tune_gc  # noqa: E402
from storage import migrate  # noqa: E402
from storage.engine import make_engine  # noqa: E402
from storage.otlp import SpanBatchWrite  # noqa: E402
from storage.sqlite_driver import dbapi as sqlite3  # noqa: E402  (the SQLite Iris runs on)

PAGE_SIZE = 8192
_FRAME_HEADER = 24
_WAL_HEADER = 32


def wal_pages(wal: Path) -> list[int]:
    """The page number of each frame in a WAL file, in order."""
    data = wal.read_bytes()
    pages = []
    at = _WAL_HEADER
    while at + _FRAME_HEADER + PAGE_SIZE <= len(data):
        pages.append(struct.unpack_from(">I", data, at)[0])
        at += _FRAME_HEADER + PAGE_SIZE
    return pages


def by_btree(db: Path, wal: Path) -> collections.Counter[str]:
    """The WAL's frames counted by the b-tree owning each page, read from a
    copy of the database and its WAL (so the pages the log added are known)."""
    pages = wal_pages(wal)
    with tempfile.TemporaryDirectory(prefix="iris-wal-pages-") as scratch:
        copy = Path(scratch) / "copy.db"
        shutil.copy(db, copy)
        shutil.copy(wal, f"{copy}-wal")
        conn = sqlite3.connect(copy)
        try:
            owner = dict(conn.execute("SELECT pageno, name FROM dbstat"))
        finally:
            conn.close()
    return collections.Counter(owner.get(page, "(freed)") for page in pages)


def checkpoint(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def report(title: str, counts: collections.Counter[str], traces: int, top: int) -> None:
    frames = sum(counts.values())
    kib = PAGE_SIZE / 1024
    print(f"{title}: {frames:,} frames, {frames * kib / traces:.1f} KiB a trace")
    for name, n in counts.most_common(top):
        print(f"  {n * kib / traces:6.2f} KiB  {name}")


def no_checkpoints(engine: Engine) -> None:
    """Turn off SQLite's own checkpoints on ``engine``'s connections (after
    the pragmas ``make_engine`` sets), so the log keeps every frame."""

    def turn_off(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

    event.listen(engine, "connect", turn_off)


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--base", type=int, default=20000, help="traces in the file first")
    ap.add_argument("--traces", type=int, default=1000, help="traces counted")
    ap.add_argument("--requests-per-commit", type=int, default=1)
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="iris-wal-pages-"))
    try:
        bodies = request_bodies(args.base + args.traces, home / "bodies")
        first = args.base // 25  # the load generator puts 25 traces in a request
        counted = args.base + args.traces - first * 25
        db = home / "iris.db"
        wal = Path(f"{db}-wal")
        url = f"sqlite:///{db}"
        settings = Settings(home=home, db_url=url, assembly_grace_ms=0, workers=0)
        engine = make_engine(url, pool_size=2)
        no_checkpoints(engine)
        migrate.upgrade(engine)
        tune_gc()
        if first:
            fill(engine, settings, bodies[:first])
            drain_timed(engine, settings)
        checkpoint(engine)

        writes = [
            jobs_for_batch(decode_otlp_protobuf(b), settings.tenant, "otlp", len(b))
            for b in bodies[first:]
        ]
        step = args.requests_per_commit
        for i in range(0, len(writes), step):
            with engine.begin() as conn:
                SpanBatchWrite.apply_group(conn, writes[i : i + step])
        while sweep_once(engine, settings):
            pass
        print(
            f"{args.base:,} traces in the file, {counted:,} more counted; "
            f"{step} request(s) of 25 traces a commit"
        )
        report("ingest and queueing", by_btree(db, wal), counted, args.top)
        checkpoint(engine)

        judged = drain_timed(engine, settings)[0].claimed
        report(
            f"one worker judging them ({judged:,}, batches of {settings.job_batch})",
            by_btree(db, wal),
            counted,
            args.top,
        )
        engine.dispose()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
