#!/usr/bin/env python3
"""The receiving process's CPU per trace under a paced load (no workers).

Starts ``python -m service serve`` with ``IRIS_WORKERS=0`` (SQLite in a
scratch home) and offers it the load generator's OTLP/HTTP protobuf bodies
(100 spans, 25 traces each) in one of two ways:

* ``--rate R`` (CPU time): bodies on a fixed schedule of ``R`` traces/s, as
  ``bench/e2e_bench.py --rate`` sends them; prints the server's CPU (from
  ``/proc``) per trace and per thread, from the first body until the sweep
  has readied every trace. Timing on a shared machine: take the best of a few.
* ``--callgrind`` (instructions): the server runs under ``valgrind
  --tool=callgrind``; ``--requests N`` bodies are sent one at a time, each
  after the previous one's answer (the paced regime: one request per
  commit), then the server gets SIGINT and valgrind's "Collected" is read.
  Run it with ``--requests 0`` too and subtract: the difference is what the
  requests cost. ``--grace-ms`` decides whether the sweep readies the traces
  while the process runs (the default, 0, does; a long grace leaves them open).

    python bench/receiver_bench.py --rate 2000 --traces 20000 --repeat 3
    python bench/receiver_bench.py --callgrind --requests 40
    python bench/receiver_bench.py --callgrind --requests 0
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
# The tree the server runs from (``--tree``): this one unless another is compared.
TREE = ROOT
sys.path.insert(0, str(ROOT / "bench"))

from e2e_bench import PacedSender, free_port, process_cpu, settle  # noqa: E402
from loadgen import dump_bodies  # noqa: E402

SPANS_PER_REQUEST = 100
TRACES_PER_REQUEST = SPANS_PER_REQUEST // 4
PROTOBUF = "application/x-protobuf"


def thread_cpu(pid: int) -> dict[str, tuple[float, float]]:
    """CPU seconds (user, system) of each live thread of ``pid``: the event
    loop's thread as ``loop``, the others as ``name:tid`` (Python does not name
    its native threads, so most are ``python``)."""
    out: dict[str, tuple[float, float]] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            comm = (task / "comm").read_text().strip()
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = "loop" if task.name == str(pid) else f"{comm}:{task.name}"
        out[name] = (int(fields[11]) / tick, int(fields[12]) / tick)
    return out


def start_server(
    home: Path, *, grace_ms: int, prefix: list[str], extra_env: dict[str, str]
) -> tuple[subprocess.Popen[bytes], int]:
    http_port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "IRIS_HOME": str(home),
        "IRIS_DB_URL": f"sqlite:///{home / 'iris.db'}",
        "IRIS_DASHBOARD_PORT": str(http_port),
        "IRIS_OTLP_GRPC_PORT": str(grpc_port),
        "IRIS_WORKERS": "0",
        "IRIS_ASSEMBLY_GRACE_MS": str(grace_ms),
        "IRIS_LOG_LEVEL": "warn",
        "PYTHONPATH": str(TREE),
        **extra_env,
    }
    log = (home / "server.log").open("wb")
    server = subprocess.Popen(
        [*prefix, sys.executable, "-m", "service", "serve"],
        env=env,
        stdout=log,
        stderr=log,
        cwd=TREE,
    )
    for _ in range(3000):
        try:
            url = f"http://127.0.0.1:{http_port}/api/v1/health"
            if httpx.get(url, timeout=2).status_code == 200:
                return server, http_port
        except httpx.HTTPError:
            pass
        if server.poll() is not None:
            raise SystemExit(f"server exited: {(home / 'server.log').read_text()[-2000:]}")
        time.sleep(0.1)
    server.kill()
    raise SystemExit("server did not answer its health check")


def ready_count(home: Path) -> int:
    from storage.sqlite_driver import dbapi as sqlite3  # the SQLite Iris runs on

    with sqlite3.connect(home / "iris.db", timeout=30) as db:
        return int(db.execute("SELECT count(*) FROM traces WHERE status = 'ready'").fetchone()[0])


def paced_run(bodies: list[bytes], rate: float, grace_ms: int, env: dict[str, str]) -> None:
    home = Path(tempfile.mkdtemp(prefix="iris-recv-"))
    server, port = start_server(home, grace_ms=grace_ms, prefix=[], extra_env=env)
    try:
        settle(server.pid)
        before, threads_before = process_cpu(server.pid), thread_cpu(server.pid)
        interval = SPANS_PER_REQUEST / (4 * rate)
        sender = PacedSender(f"http://127.0.0.1:{port}/v1/traces", PROTOBUF, bodies, interval, 4)
        started = time.monotonic()
        sender.start()
        sender.join()
        traces = len(bodies) * TRACES_PER_REQUEST
        deadline = time.monotonic() + 60
        while ready_count(home) < traces and time.monotonic() < deadline:
            time.sleep(0.2)
        after, threads_after = process_cpu(server.pid), thread_cpu(server.pid)
        wall = time.monotonic() - started
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    user, system = after[0] - before[0], after[1] - before[1]
    used = user + system
    split = {
        k: (u - threads_before.get(k, (0.0, 0.0))[0], s - threads_before.get(k, (0.0, 0.0))[1])
        for k, (u, s) in threads_after.items()
    }
    print(
        f"rate {rate:,.0f} traces/s, {traces} traces in {wall:.1f} s "
        f"({len(sender.late)} bodies late, {len(sender.errors)} errors): "
        f"receiver {used:.2f} s CPU = {used * 1000 / traces:.3f} ms per trace "
        f"(user {user * 1000 / traces:.3f}, kernel {system * 1000 / traces:.3f}; "
        f"shared machine); threads (user+kernel s): "
        + ", ".join(
            f"{k} {u:.2f}+{s:.2f}"
            for k, (u, s) in sorted(split.items(), key=lambda kv: -sum(kv[1]))
            if u or s
        )
    )


def callgrind_run(bodies: list[bytes], requests: int, grace_ms: int, env: dict[str, str]) -> None:
    home = Path(tempfile.mkdtemp(prefix="iris-recv-cg-"))
    out = os.environ.get("RECEIVER_CG_OUT", "/dev/null")
    prefix = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    server, port = start_server(home, grace_ms=grace_ms, prefix=prefix, extra_env=env)
    sent = 0
    try:
        with httpx.Client(timeout=600) as client:
            for body in bodies[:requests]:
                r = client.post(
                    f"http://127.0.0.1:{port}/v1/traces",
                    content=body,
                    headers={"content-type": PROTOBUF},
                )
                r.raise_for_status()
                sent += 1
        traces = sent * TRACES_PER_REQUEST
        if grace_ms == 0:
            deadline = time.monotonic() + 600
            while ready_count(home) < traces and time.monotonic() < deadline:
                time.sleep(0.5)
        ready = ready_count(home)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=600)
    text = (home / "server.log").read_text(errors="replace")
    found = re.search(r"Collected : (\d+)", text)
    if found is None:
        raise SystemExit(f"no 'Collected' in the server's log: {text[-2000:]}")
    print(f"requests {sent} ({sent * TRACES_PER_REQUEST} traces, {ready} ready): Ir {found[1]}")


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rate", type=float, help="paced traces/s (CPU-time mode)")
    ap.add_argument("--traces", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--callgrind", action="store_true", help="instruction-count mode")
    ap.add_argument("--requests", type=int, default=40)
    ap.add_argument("--grace-ms", type=int, default=None)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server")
    ap.add_argument("--tree", type=Path, help="run the server from this source tree")
    args = ap.parse_args()
    if args.tree:
        global TREE
        TREE = args.tree.resolve()
    env = dict(item.split("=", 1) for item in args.env)
    traces = args.requests * TRACES_PER_REQUEST if args.callgrind else args.traces
    bodies = dump_bodies(
        Path(tempfile.mkdtemp(prefix="iris-bodies-")),
        traces=max(traces, TRACES_PER_REQUEST),
        spans_per_request=SPANS_PER_REQUEST,
    )
    if args.callgrind:
        callgrind_run(bodies, args.requests, 0 if args.grace_ms is None else args.grace_ms, env)
        return 0
    if not args.rate:
        ap.error("give --rate or --callgrind")
    for _ in range(args.repeat):
        paced_run(bodies, args.rate, 2000 if args.grace_ms is None else args.grace_ms, env)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
