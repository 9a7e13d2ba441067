#!/usr/bin/env python3
"""Worker benchmark: one evaluator worker draining a queue, stage by stage.

Fills a scratch database with N ready OTLP agent traces and their jobs
through the real ingest path (the load generator's request bodies, decoded
and written as the receivers do, then readied by the assembler's sweep), and
times one worker (``service.worker.Worker``) draining every job in
this process. Prints CPU milliseconds per trace for each stage — claim, read,
derive, convert (stored row → engine model), engine, store — the wall-clock
traces/s, and the stored size of an evaluation.

    python bench/worker_bench.py --traces 1000
    python bench/worker_bench.py --traces 1000 --db-url postgresql://...
    python bench/worker_bench.py --traces 1000 --batch 128 --repeat 3

CPU time (``time.thread_time``) is what the figures mean: the machine is
shared, and wall time moves with whoever else is running.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from loadgen import dump_bodies  # noqa: E402

from service.assembler import sweep_once  # noqa: E402
from service.evaluation import DeployedRules  # noqa: E402
from service.ingest import decode_otlp_protobuf, jobs_for_batch  # noqa: E402
from service.settings import Settings  # noqa: E402
from service.worker import BatchStats, Worker, tune_gc  # noqa: E402
from storage import migrate  # noqa: E402
from storage.engine import make_engine  # noqa: E402
from storage.models import Evaluation, EvaluationJob  # noqa: E402
from storage.otlp import SpanBatchWrite  # noqa: E402

STAGES = ("claim", "read", "derive", "convert", "engine", "store")


def request_bodies(traces: int, where: Path) -> list[bytes]:
    """The load generator's OTLP/protobuf request bodies (100 spans each)."""
    return dump_bodies(where, traces=traces)


def fill(engine: Engine, settings: Settings, bodies: list[bytes]) -> int:
    """Ingest the bodies as the receivers would and ready every trace; returns jobs queued."""
    writes = [
        jobs_for_batch(decode_otlp_protobuf(b), settings.tenant, "otlp", len(b)) for b in bodies
    ]
    for i in range(0, len(writes), 4):  # the writer's groups: a few requests per commit
        with engine.begin() as conn:
            SpanBatchWrite.apply_group(conn, writes[i : i + 4])
    while sweep_once(engine, settings):
        pass
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(EvaluationJob)).scalar_one())


def drain_timed(engine: Engine, settings: Settings) -> tuple[BatchStats, float, int]:
    """One worker drains the queue; returns summed stats, wall seconds, batches."""
    total = BatchStats()
    worker = Worker(engine, settings, "bench", DeployedRules())
    batches = 0
    started = time.perf_counter()
    while True:
        stats = worker.step()  # as a pool worker runs: each store claims the next batch
        if not stats.claimed:
            break
        batches += 1
        total.claimed += stats.claimed
        total.evaluated += stats.evaluated
        total.derived += stats.derived
        total.failed += stats.failed
        for stage, seconds in stats.stage_cpu.items():
            total.stage_cpu[stage] = total.stage_cpu.get(stage, 0.0) + seconds
    return total, time.perf_counter() - started, batches


def evaluation_size(engine: Engine) -> tuple[float, float]:
    """Mean bytes of JSON per stored evaluation, and rule-result rows per evaluation."""
    with engine.connect() as conn:
        row = conn.execute(select(Evaluation).limit(1)).one()
        count = conn.execute(select(func.count()).select_from(Evaluation)).scalar_one()
        rules = conn.execute(text("SELECT count(*) FROM evaluation_rule_results")).scalar_one()
    size = sum(
        len(json.dumps(v, separators=(",", ":")))
        for k, v in row._mapping.items()
        if isinstance(v, dict | list)
    )
    return float(size), rules / max(count, 1)


def reset_postgres(url: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def run_once(args: argparse.Namespace, bodies: list[bytes], home: Path) -> dict[str, Any]:
    if args.db_url:
        reset_postgres(args.db_url)
        url = args.db_url
    else:
        db = home / "iris.db"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        url = f"sqlite:///{db}"
    settings = Settings(home=home, db_url=url, assembly_grace_ms=0, job_batch=args.batch, workers=1)
    engine = make_engine(url, pool_size=2)
    migrate.upgrade(engine)
    queued = fill(engine, settings, bodies)
    tune_gc()  # as a worker process does when it starts
    stats, wall, batches = drain_timed(engine, settings)
    size, rules_per_eval = evaluation_size(engine)
    engine.dispose()
    n = max(stats.claimed, 1)
    per_trace = {s: stats.stage_cpu.get(s, 0.0) * 1000 / n for s in STAGES}
    return {
        "queued": queued,
        "evaluated": stats.evaluated,
        "batches": batches,
        "wall_s": wall,
        "traces_per_s": stats.claimed / wall if wall else 0.0,
        "cpu_ms_per_trace": per_trace,
        "evaluation_json_bytes": size,
        "rule_rows_per_evaluation": rules_per_eval,
    }


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--traces", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=Settings().job_batch)
    ap.add_argument("--db-url", help="PostgreSQL URL (default: SQLite in a scratch home)")
    ap.add_argument("--repeat", type=int, default=1, help="runs; the fastest is reported")
    ap.add_argument("--json-out", help="also write the figures here")
    args = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="iris-worker-bench-"))
    try:
        bodies = request_bodies(args.traces, home / "bodies")
        runs = [run_once(args, bodies, home) for _ in range(args.repeat)]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    best = min(runs, key=lambda r: sum(r["cpu_ms_per_trace"].values()))
    stages = best["cpu_ms_per_trace"]
    print(
        f"database: {'postgresql' if args.db_url else 'sqlite'}; traces: {best['queued']}; "
        f"batch: {args.batch}; batches: {best['batches']}; evaluated: {best['evaluated']}"
    )
    print("CPU ms per trace: " + ", ".join(f"{s} {stages[s]:.3f}" for s in STAGES))
    print(
        f"total CPU {sum(stages.values()):.3f} ms/trace; around the engine "
        f"{sum(v for s, v in stages.items() if s != 'engine'):.3f} ms/trace"
    )
    print(f"wall: {best['traces_per_s']:,.0f} traces/s ({best['wall_s']:.2f} s)")
    print(
        f"stored evaluation: {best['evaluation_json_bytes']:,.0f} bytes of JSON, "
        f"{best['rule_rows_per_evaluation']:.1f} rule-result rows"
    )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"runs": runs, "best": best}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
