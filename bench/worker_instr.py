#!/usr/bin/env python3
"""Instruction counts of one evaluator worker draining a queue: a figure
that holds still on a shared machine.

On two shared cores a CPU-time figure moves by more than most single
changes save; callgrind's instruction count of the same work moves by
~0.1 %. This fills a template database once with ready traces and their
jobs (the load generator's bodies through the real ingest path, as
``worker_bench.py`` does), then drains a copy of it in a child process run
under callgrind, counting only the drain (it runs inside ``run_counted``,
``bench/counted.py``, which callgrind toggles collection on):

    python bench/worker_instr.py --fill /tmp/tpl.db --traces 500
    python bench/worker_instr.py --measure /tmp/tpl.db
    python bench/worker_instr.py --fill /tmp/tpl1k.db --traces 1000
    python bench/worker_instr.py --measure /tmp/tpl1k.db --skip 500   # steady state

The first traces a fresh worker judges also pay for what it builds once
(assembly plans, the risk layer's per-detector intervals): ``--skip N``
judges N traces before the count starts, so the figure is what each further
trace costs.
Compare two trees by measuring the same template from each
(``PYTHONPATH=<tree> python <tree>/bench/worker_instr.py --measure ...``);
refill the template when what ingest stores has changed. A run takes
~1-3 minutes (callgrind is ~50 times slower than the CPU).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from counted import callgrind, collected, run_counted  # noqa: E402

from service.settings import Settings  # noqa: E402
from storage import migrate  # noqa: E402
from storage.engine import make_engine  # noqa: E402


def fill(template: Path, traces: int) -> None:
    """Ingest ``traces`` load-generator traces into ``template`` and ready them."""
    from worker_bench import fill as fill_db
    from worker_bench import request_bodies

    home = Path(tempfile.mkdtemp(prefix="iris-worker-instr-"))
    try:
        template.unlink(missing_ok=True)
        url = f"sqlite:///{template}"
        settings = Settings(home=home, db_url=url, assembly_grace_ms=0, workers=0)
        engine = make_engine(url, pool_size=2)
        migrate.upgrade(engine)
        queued = fill_db(engine, settings, request_bodies(traces, home / "bodies"))
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        engine.dispose()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"template {template}: {queued} jobs")


@contextlib.contextmanager
def template_worker(template: Path, prefix: str) -> Iterator[tuple[Any, Settings, Any]]:
    """A scratch copy of ``template`` and what one worker drains it with
    (engine, settings, deployed rules), started as a worker process starts
    (warmed up, then the collector tuned); the copy goes on exit."""
    from service.evaluation import DeployedRules
    from service.worker import tune_gc, warm_up

    home = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        db = home / "iris.db"
        shutil.copy(template, db)
        url = f"sqlite:///{db}"
        settings = Settings(home=home, db_url=url, assembly_grace_ms=0, workers=0)
        engine = make_engine(url, pool_size=2)
        warm_up()  # as a worker process starts: before tune_gc, outside any count
        tune_gc()
        try:
            yield engine, settings, DeployedRules()
        finally:
            engine.dispose()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def drain(template: Path, skip: int = 0) -> None:
    """Drain a copy of ``template`` with one worker, inside ``run_counted``;
    the batches that claim the first ``skip`` traces run before it, uncounted."""
    from service.worker import Worker

    with template_worker(template, "iris-worker-instr-") as (engine, settings, rules):
        worker = Worker(engine, settings, "instr", rules)  # each store claims the next batch
        skipped = 0
        while skipped < skip:
            stats = worker.step()
            if not stats.claimed:
                break
            skipped += stats.claimed
        claimed = 0

        def run() -> None:
            nonlocal claimed
            while True:
                stats = worker.step()
                if not stats.claimed:
                    return
                claimed += stats.claimed

        run_counted(run)
    print(f"drained {claimed}")


def measure(template: Path, skip: int = 0) -> int:
    """Run ``drain`` under callgrind; print the drain's instructions in all and per trace."""
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (Debian: apt-get install valgrind)", file=sys.stderr)
        return 2
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(
        [*callgrind(), sys.executable, __file__, "--drain", str(template), "--skip", str(skip)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    out = done.stdout + done.stderr
    ir = collected(out)
    drained = re.search(r"drained (\d+)", out)
    if done.returncode or not ir or not drained or not int(drained.group(1)):
        print(out[-2000:], file=sys.stderr)
        return 1
    n = int(drained.group(1))
    print(f"drained {n} traces: {ir:,} instructions, {ir // n:,} a trace")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--fill", type=Path, help="write a template database here")
    mode.add_argument("--measure", type=Path, help="count a drain of this template")
    mode.add_argument("--drain", type=Path, help=argparse.SUPPRESS)  # the child callgrind runs
    ap.add_argument("--traces", type=int, default=500)
    ap.add_argument(
        "--skip",
        type=int,
        default=0,
        help="with --measure: judge this many traces first, uncounted, so the count is a "
        "worker's steady state (its plans and per-process estimates built), not its start",
    )
    args = ap.parse_args()
    if args.fill:
        fill(args.fill, args.traces)
        return 0
    if args.drain:
        drain(args.drain, args.skip)
        return 0
    return measure(args.measure, args.skip)


if __name__ == "__main__":
    raise SystemExit(main())
