"""``iris worker``: evaluator workers alone, for machines sharing PostgreSQL."""

from __future__ import annotations

import argparse
import signal
import time

from service.settings import Settings
from service.stopflag import StopFlag
from service.worker import WorkerPool, drain, run_worker
from storage import migrate
from storage.engine import make_engine


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = sub.add_parser(
        "worker",
        help="run evaluator workers against the configured database",
        description="Claim queued evaluation jobs and judge them. Point several machines "
        "at one PostgreSQL (IRIS_DB_URL) to scale evaluation out.",
    )
    parser.add_argument("--count", type=int, help="worker processes (IRIS_WORKERS; default: cores)")
    parser.add_argument(
        "--once", action="store_true", help="drain the queue in this process, then exit"
    )
    return parser


def run(args: argparse.Namespace, settings: Settings) -> int:
    settings.ensure_home()
    engine = make_engine(settings.database_url)
    migrate.upgrade(engine)
    if args.once:
        stats = drain(engine, settings)
        engine.dispose()
        print(f"claimed {stats.claimed}, evaluated {stats.evaluated}, failed {stats.failed}")
        return 0
    engine.dispose()
    count = args.count if args.count is not None else max(1, settings.worker_count)
    stop = StopFlag()
    stop.set_on(signal.SIGTERM, signal.SIGINT)
    if count == 1:
        run_worker(settings, 0, stop)
        return 0
    pool = WorkerPool(settings, count)
    pool.start()
    try:
        while not stop.is_set():
            pool.supervise()
            pool.drain_reports()
            time.sleep(0.5)
    finally:
        pool.stop()
    return 0
