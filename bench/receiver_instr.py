#!/usr/bin/env python3
"""Instruction counts of the receiving process's per-request work, in process.

Each phase runs inside ``bench/counted.py``'s ``run_counted`` so callgrind can
count it alone:

    valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=ffi_call --callgrind-out-file=/dev/null \\
        python bench/receiver_instr.py --phase ingest --requests 40

Phases (bodies: the load generator's, 100 spans = 25 traces a request):

* ``ingest``: each body decoded, turned into its write job
  (``service.ingest.jobs_for_batch``) and committed alone
  (``storage.writer.run_transaction``): the paced regime, one request per
  commit, without the HTTP stack and the thread hand-off.
* ``sweep``: the bodies ingested first (not counted), then the sweeps that
  ready every trace and queue its job (``storage.assembly.SweepWrite``,
  grace 0), each in a transaction of its own, as the writer runs them.
* ``decode`` / ``build``: only the decoding of each body
  (``decode_otlp_protobuf``), or only the building of each decoded body's
  write job (``jobs_for_batch``): the event loop's share of ``ingest``.
* ``--per-commit K``: K requests in each transaction (the burst regime's
  coalescing), for the per-commit share of the cost.
* ``checkpoint``: ingest as above with a passive WAL checkpoint after every
  ``--checkpoint-every`` requests, counted with the ingest.

Divide "Collected" by the traces printed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from counted import run_counted  # noqa: E402
from loadgen import dump_bodies  # noqa: E402

from service.ingest import decode_otlp_protobuf, jobs_for_batch  # noqa: E402
from storage import migrate  # noqa: E402
from storage.assembly import SweepWrite  # noqa: E402
from storage.engine import make_engine  # noqa: E402
from storage.walcheckpoint import checkpoint_passive  # noqa: E402
from storage.writer import WriteJob, run_transaction  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--phase", choices=["ingest", "decode", "build", "sweep", "checkpoint"], default="ingest"
    )
    ap.add_argument("--requests", type=int, default=40)
    ap.add_argument("--checkpoint-every", type=int, default=1)
    ap.add_argument("--per-commit", type=int, default=1, help="requests per transaction")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="iris-rinstr-"))
    bodies = dump_bodies(home / "bodies", traces=(args.requests + 2) * 25)
    engine = make_engine(f"sqlite:///{home / 'iris.db'}", pool_size=2)
    migrate.upgrade(engine)
    # warm: the first request pays lazy imports and statement caches
    warm, bodies = bodies[:2], bodies[2 : 2 + args.requests]
    every = args.checkpoint_every if args.phase == "checkpoint" else 0

    group = args.per_commit

    def ingest(todo: list[bytes]) -> int:
        for i in range(0, len(todo), group):
            jobs: list[WriteJob] = [
                jobs_for_batch(decode_otlp_protobuf(body), "default", "otlp", len(body))
                for body in todo[i : i + group]
            ]
            results, failures = run_transaction(engine, jobs)
            assert not failures, results
            if every and (i // group + 1) % every == 0:
                checkpoint_passive(engine)
        return 0

    def sweep() -> int:
        readied = 0
        while True:
            job = SweepWrite(
                grace=timedelta(0),
                idle=timedelta(seconds=30),
                default_evaluate=True,
                max_revision=3,
            )
            (done,), failures = run_transaction(engine, [job])
            assert not failures, done
            readied += done
            if done < job.limit:
                return readied

    ingest(warm)
    sweep()
    if args.phase == "sweep":
        ingest(bodies)
        checkpoint_passive(engine)
        readied = run_counted(sweep)
        print(f"phase sweep: {readied} traces readied")
    elif args.phase == "decode":
        run_counted(lambda: [decode_otlp_protobuf(b) for b in bodies])
        print(f"phase decode: {len(bodies) * 25} traces ({len(bodies)} requests)")
    elif args.phase == "build":
        batches = [decode_otlp_protobuf(b) for b in bodies]
        run_counted(lambda: [jobs_for_batch(x, "default", "otlp", 1) for x in batches])
        print(f"phase build: {len(bodies) * 25} traces ({len(bodies)} requests)")
    else:
        run_counted(lambda: ingest(bodies))
        print(f"phase {args.phase}: {len(bodies) * 25} traces ({len(bodies)} requests)")
    engine.dispose()
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
