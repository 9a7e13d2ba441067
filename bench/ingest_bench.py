"""Ingest benchmark: OTLP spans/s accepted and stored end to end, and where the time goes.

Two parts:

1. **End to end.** For each protocol (OTLP/HTTP protobuf, OTLP/HTTP JSON,
   OTLP/gRPC) start a fresh ``iris serve`` (SQLite in a temporary home, no
   workers, no evaluation), drive it with ``/work/shared/bench/otlp_load.py``
   and poll the database until every span is committed. Prints accepted
   spans/s (what the load generator saw: every 200/OK is after commit) and
   stored spans/s (spans counted in the database / time from the first send
   to the poll that saw them all), plus the server's CPU seconds per 1,000
   spans (all its processes).

2. **Breakdown.** The same request bodies (dumped by the load generator) run
   through the request path in this process, stage by stage, against a fresh
   SQLite file: decode, row building (``build_deltas``), the writer's reads
   and ``executemany`` (``apply_group``), commit. What the server spends per
   span beyond these stages is the HTTP/gRPC stack, the event loop and the
   assembler; it is reported as "server overhead" = server CPU per span −
   sum of stages.

Usage::

    python bench/ingest_bench.py                    # standard load, all protocols
    python bench/ingest_bench.py --traces 5000 --protocols http-protobuf
    python bench/ingest_bench.py --db-url postgresql://postgres@127.0.0.1/scratch
                                                    # PostgreSQL; the database is EMPTIED

With ``--db-url`` the server and the breakdown use that PostgreSQL database
instead of a scratch SQLite file; its ``public`` schema is dropped and made
anew before each run, so name a database that holds nothing of value.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from loadgen import LOAD, dump_bodies  # noqa: E402

from storage.sqlite_driver import dbapi as sqlite3  # noqa: E402  (the SQLite Iris runs on)

PROTOCOLS = ("http-protobuf", "http-json", "grpc")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_by_process(pid: int) -> dict[int, float]:
    """utime+stime of ``pid`` and each live descendant (Linux /proc).

    Children are listed per thread (``task/<tid>/children``): a process started
    from a helper thread (the writer process) is not a child of the main task.
    """
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[int, float] = {}
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            out[p] = (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return out


def _sample_cpu_until_exit(proc: subprocess.Popen[bytes]) -> list[tuple[float, float]]:
    """(wall clock, CPU seconds) of ``proc`` every 50 ms until it exits."""
    samples: list[tuple[float, float]] = []
    while proc.poll() is None:
        cpu = _cpu_by_process(proc.pid).get(proc.pid)
        if cpu is not None:
            samples.append((time.time(), cpu))
        time.sleep(0.05)
    return samples or [(time.time(), 0.0)]


def _cpu_at(samples: list[tuple[float, float]], when: float) -> float:
    """CPU seconds at the last sample before ``when``."""
    before = [cpu for t, cpu in samples if t <= when]
    return before[-1] if before else samples[0][1]


def _count_spans(db: Path | str) -> int:
    if isinstance(db, str):
        return _count_spans_url(db)
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(
                con.execute("SELECT coalesce(sum(span_count), 0) FROM span_batches").fetchone()[0]
            )
        finally:
            con.close()
    except sqlite3.Error:
        return -1


def _count_spans_url(url: str) -> int:
    from sqlalchemy import create_engine, text

    from storage.engine import normalise_url

    engine = _URL_ENGINES.get(url)
    if engine is None:
        engine = _URL_ENGINES[url] = create_engine(normalise_url(url))
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text("SELECT coalesce(sum(span_count), 0) FROM span_batches")
                ).scalar_one()
            )
    except Exception:
        return -1


_URL_ENGINES: dict[str, Any] = {}


def _empty_database(url: str) -> None:
    """Drop and recreate the ``public`` schema (the benchmark's scratch database)."""
    from sqlalchemy import create_engine, text

    from storage.engine import normalise_url

    engine = create_engine(normalise_url(url))
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def _wait_health(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"iris serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError("iris serve did not become healthy")


def run_end_to_end(protocol: str, args: argparse.Namespace) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="iris-bench-"))
    port, grpc_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "IRIS_HOME": str(home),
        "IRIS_WORKERS": "0",
        "IRIS_EVALUATE_ON_INGEST": "0",
        "IRIS_OTLP_GRPC_PORT": str(grpc_port),
        "IRIS_LOG_LEVEL": "warn",
    }
    if args.db_url:
        _empty_database(args.db_url)
        env["IRIS_DB_URL"] = args.db_url
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE if args.quiet_server else None,
    )
    db: Path | str = args.db_url or home / "iris.db"
    try:
        _wait_health(port, server)
        target = (
            f"127.0.0.1:{grpc_port}"
            if protocol == "grpc"
            else (f"http://127.0.0.1:{port}/v1/traces")
        )
        out = home / "load.json"
        expected = args.traces * 4
        seen: dict[str, float] = {}

        def poll() -> None:
            while "done" not in seen:
                n = _count_spans(db)
                if n >= expected:
                    seen["done"] = time.time()
                    return
                time.sleep(0.05)

        cpu0 = _cpu_by_process(server.pid)
        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        client = subprocess.Popen(
            [
                sys.executable,
                str(LOAD),
                "--protocol",
                protocol,
                "--target",
                target,
                "--traces",
                str(args.traces),
                "--spans-per-request",
                str(args.spans_per_request),
                "--concurrency",
                str(args.concurrency),
                "--json-out",
                str(out),
                "--quiet",
            ],
        )
        client_cpu = _sample_cpu_until_exit(client)
        if client.returncode:
            raise RuntimeError(f"the load generator exited with {client.returncode}")
        poller.join(timeout=args.store_timeout)
        cpu1 = _cpu_by_process(server.pid)
        per_process = [round(v - cpu0.get(p, 0.0), 2) for p, v in cpu1.items()]
        cpu = sum(per_process)
        load = json.loads(out.read_text())
        # The generator encodes every body before its clock starts: count
        # only its CPU from the first send on.
        sending = client_cpu[-1][1] - _cpu_at(client_cpu, load["first_send_unix"])
        stored = _count_spans(db)
        done = seen.get("done")
        stored_rate = (
            stored / (done - load["first_send_unix"]) if done and stored >= expected else None
        )
        return {
            "protocol": protocol,
            "accepted": load["spans_accepted"],
            "failed_requests": load["requests_failed_final"],
            "failures": load["failures_by_status"],
            "wall_s": load["wall_seconds"],
            "accepted_per_s": load["accepted_spans_per_s"],
            "stored": stored,
            "stored_per_s": round(stored_rate, 1) if stored_rate else None,
            "p50_ms": load["latency_ms_p50"],
            "p99_ms": load["latency_ms_p99"],
            "server_cpu_s": round(cpu, 2),
            "cpu_ms_per_1k_spans": round(cpu * 1e6 / max(stored, 1), 1),
            "client_cpu_us_per_span": round(sending * 1e6 / max(stored, 1), 1),
            "cpu_us_per_span_by_process": [round(c * 1e6 / max(stored, 1), 1) for c in per_process],
        }
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(home, ignore_errors=True)


# ---------------------------------------------------------------------------
# breakdown


def _dump_bodies(protocol: str, args: argparse.Namespace, where: Path) -> list[bytes]:
    return dump_bodies(
        where, traces=args.traces, protocol=protocol, spans_per_request=args.spans_per_request
    )


def run_breakdown(protocol: str, args: argparse.Namespace) -> dict[str, float]:
    """Per-stage CPU time of the request path, run in this process on dumped bodies."""
    from receivers.otlp.decode import decode_traces_json
    from service.ingest import decode_otlp_protobuf, jobs_for_batch
    from storage import migrate
    from storage.engine import make_engine
    from storage.otlp import SpanBatchWrite

    tmp = Path(tempfile.mkdtemp(prefix="iris-bench-stages-"))
    try:
        bodies = _dump_bodies(protocol, args, tmp / "bodies")
        if args.db_url:
            _empty_database(args.db_url)
        engine = make_engine(args.db_url or f"sqlite:///{tmp / 'iris.db'}")
        migrate.upgrade(engine)
        # OTLP/HTTP protobuf and gRPC (handed the raw bytes) take the lean path
        # that keeps spans as wire bytes; OTLP/JSON converts every attribute.
        decode = decode_traces_json if protocol == "http-json" else decode_otlp_protobuf
        stages = {"decode": 0.0, "rows": 0.0, "apply": 0.0, "commit": 0.0}
        clock = time.process_time
        pending: list[SpanBatchWrite] = []
        spans = 0

        def flush() -> None:
            t0 = clock()
            with engine.connect() as conn:
                conn.begin()
                SpanBatchWrite.apply_group(conn, pending)
                t1 = clock()
                conn.commit()
            stages["apply"] += t1 - t0
            stages["commit"] += clock() - t1
            pending.clear()

        batch_spans = 0
        for body in bodies:
            t0 = clock()
            batch = decode(body)
            t1 = clock()
            job = jobs_for_batch(batch, "local", "otlp", len(body))
            t2 = clock()
            stages["decode"] += t1 - t0
            stages["rows"] += t2 - t1
            pending.append(job)
            spans += job.spans
            batch_spans += job.spans
            # the server's batches: what arrives while one commit runs (4 requests here)
            if len(pending) >= args.concurrency:
                flush()
        if pending:
            flush()
        engine.dispose()
        per_span = {k: v * 1e6 / spans for k, v in stages.items()}  # µs per span
        return per_span
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _ceiling(result: dict[str, Any]) -> float:
    """Spans/s at which server and client would use every core of this machine."""
    per_span = result["cpu_ms_per_1k_spans"] + result["client_cpu_us_per_span"]
    return (os.cpu_count() or 1) * 1e6 / per_span if per_span > 0 else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--traces", type=int, default=20_000)
    ap.add_argument("--spans-per-request", type=int, default=100)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--protocols", default=",".join(PROTOCOLS))
    ap.add_argument("--db-url", help="a scratch PostgreSQL database (emptied!)")
    ap.add_argument("--store-timeout", type=float, default=120.0)
    ap.add_argument("--no-breakdown", action="store_true")
    ap.add_argument("--no-e2e", action="store_true")
    ap.add_argument("--quiet-server", action="store_true")
    ap.add_argument("--json-out")
    args = ap.parse_args(argv)
    protocols = [p for p in args.protocols.split(",") if p]
    report: dict[str, Any] = {"e2e": [], "stages": {}}
    print(
        f"load: {args.traces} traces = {args.traces * 4} spans, "
        f"{args.spans_per_request} spans/request, concurrency {args.concurrency}; "
        f"{os.cpu_count()} CPUs; {'PostgreSQL' if args.db_url else 'SQLite'}"
    )
    if not args.no_e2e:
        print(
            f"{'protocol':<14}{'accepted/s':>12}{'stored/s':>12}{'stored':>9}{'failed':>8}"
            f"{'p50 ms':>9}{'p99 ms':>9}{'cpu ms/1k':>11}{'client':>8}{'ceiling/s':>11}"
        )
        for protocol in protocols:
            r = run_end_to_end(protocol, args)
            report["e2e"].append(r)
            print(
                f"{protocol:<14}{r['accepted_per_s']:>12,.0f}"
                f"{(r['stored_per_s'] or 0):>12,.0f}{r['stored']:>9}{r['failed_requests']:>8}"
                f"{r['p50_ms']:>9.1f}{r['p99_ms']:>9.1f}{r['cpu_ms_per_1k_spans']:>11.1f}"
                f"{r['client_cpu_us_per_span']:>8.1f}{_ceiling(r):>11,.0f}"
            )
            if len(r["cpu_us_per_span_by_process"]) > 1:
                print(f"  server CPU µs/span by process: {r['cpu_us_per_span_by_process']}")
            if r["failures"]:
                print(f"  failures: {r['failures']}")
        if report["e2e"]:
            print(
                "(cpu ms/1k = server CPU µs per span; client = the load generator's CPU µs per "
                f"span while sending; ceiling = {os.cpu_count()} cores / (server + client): "
                "the rate with every core busy)"
            )
    if not args.no_breakdown:
        print(
            "\nper-span CPU by stage, µs (in-process replay of the same bodies, 4 requests/commit)"
        )
        print(
            f"{'protocol':<14}{'decode':>9}{'rows':>9}{'apply':>9}{'commit':>9}{'sum':>9}"
            f"{'server':>9}{'overhead':>10}"
        )
        cpu_by_protocol = {r["protocol"]: r["cpu_ms_per_1k_spans"] for r in report["e2e"]}
        for protocol in protocols:
            s = run_breakdown(protocol, args)
            report["stages"][protocol] = s
            total = sum(s.values())
            server = cpu_by_protocol.get(protocol)
            over = f"{server - total:>10.1f}" if server is not None else f"{'-':>10}"
            srv = f"{server:>9.1f}" if server is not None else f"{'-':>9}"
            print(
                f"{protocol:<14}{s['decode']:>9.1f}{s['rows']:>9.1f}{s['apply']:>9.1f}"
                f"{s['commit']:>9.1f}{total:>9.1f}{srv}{over}"
            )
        print(
            "(server = server CPU per span, all processes; overhead = server - stages: "
            "HTTP/gRPC stack, event loop, assembler)"
        )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
