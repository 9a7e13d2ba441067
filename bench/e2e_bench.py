#!/usr/bin/env python3
"""End-to-end benchmark: OTLP load in, verdicts out.

Starts a real ``iris serve`` (SQLite in a scratch home, or the PostgreSQL URL
given), drives it with ``shared/bench/otlp_load.py``, and samples the
database until every trace has a stored verdict. Prints spans/s stored,
traces/s evaluated, the evaluation queue depth over time, the p50/p99
delay from a trace's root span arriving to its verdict being stored, and
where the machine's CPU went meanwhile (the receiving process, the workers,
the load generator), in ms per trace, measured after the server's processes
finished starting; how busy the whole machine was while the load arrived
(busy, idle, idle waiting on the disk, stolen by the host: whether the
cores or something else was the limit); on SQLite, the bytes the server's
processes wrote a trace; and how fast the host was just before and just after
the run (``bench/hostspeed.py``: fixed work no change to Iris changes), with
the run's CPU a trace scaled to that reference, so runs on days when the
shared host is faster or slower can be compared.

    python bench/e2e_bench.py --traces 5000 --workers 2
    python bench/e2e_bench.py --db-url postgresql://... --workers 1
    python bench/e2e_bench.py --traces 6000 --rate 300     # a steady 300 traces/s

Without ``--rate`` the load generator sends every trace as fast as the server
takes them (a burst: the queue grows while ingest outruns evaluation, and the
delay measures how long the backlog takes to drain). With ``--rate`` the same
request bodies (dumped by the generator) are sent from this process on a fixed
schedule, so the delay is that of a service offered a steady load: below the
evaluation rate the queue stays short and the delay is the grace period plus a
little; above it the queue grows without bound.

The root span is the last span of each trace the generator sends, so the
trace's ``last_span_at`` is when its root arrived.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import func, select, text

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from hostspeed import HOSTSPEED  # noqa: E402
from loadgen import LOAD, body_spans, dump_bodies  # noqa: E402

from storage.engine import make_engine  # noqa: E402
from storage.models import Evaluation, EvaluationJob, SpanBatchRow, Trace  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def process_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds (user, system) a live process has used; zeros once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0, 0.0
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def worker_pids(server_pid: int) -> list[int]:
    """The server's child processes that are evaluator workers."""
    try:
        children = Path(f"/proc/{server_pid}/task/{server_pid}/children").read_text().split()
    except OSError:
        return []
    out = []
    for child in children:
        try:
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"resource_tracker" not in cmdline:  # multiprocessing's helper, not a worker
            out.append(int(child))
    return out


def cpu_snapshot(server_pid: int) -> dict[str, tuple[float, float]]:
    """CPU seconds (user, system) so far of the server's own process, of each
    of its child processes (the evaluator workers), and of this process (the
    paced sender and the sampler), keyed ``receiver``, ``worker <pid>``,
    ``bench``."""
    out = {"receiver": process_cpu(server_pid)}
    for child in worker_pids(server_pid):
        out[f"worker {child}"] = process_cpu(child)
    usage = os.times()
    out["bench"] = (usage.user, usage.system)
    return out


def machine_ticks() -> tuple[int, int, int, int]:
    """The whole machine's CPU time so far, in clock ticks: (busy, idle,
    idle waiting on I/O, stolen), from ``/proc/stat``. With the processes' own
    CPU it tells whether the cores were the limit or sat idle (waiting on a
    lock, a sleep, the disk). Stolen is time the hypervisor ran something else
    while this machine's cores had work: on a shared host, the part of a slow
    run that is the host's and not the service's."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    idle, iowait, steal = fields[3], fields[4], fields[7]
    return sum(fields) - idle - iowait - steal, idle, iowait, steal


def machine_line() -> str:
    """The processor and the interpreter the figures were measured on: the
    same load took 0.82–1.01 ms a trace on one of this host's machines and
    0.93–1.12 ms on another (docs/performance.md, sessions 23 and 24), and
    interpreters built differently run it at different speeds (sessions 18 and 19)."""
    model = "unknown processor"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"machine: {model}, {os.cpu_count()} cores; "
        f"Python {platform.python_version()} ({sys.executable})"
    )


def bytes_written(server_pid: int) -> int:
    """Bytes the server's processes have handed to ``write`` calls so far
    (``/proc/<pid>/io``'s ``wchar``): on SQLite, the WAL frames of every
    commit and the checkpoint's copies into the database file."""
    total = 0
    for pid in [server_pid, *worker_pids(server_pid)]:
        try:
            for line in Path(f"/proc/{pid}/io").read_text().splitlines():
                if line.startswith("wchar:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def settle(server_pid: int, timeout: float = 20.0) -> None:
    """Wait until the server's processes stop using CPU (the workers import
    and warm up after the health check answers), so the CPU figures are the
    load's, not start-up's."""
    deadline = time.monotonic() + timeout
    last = cpu_snapshot(server_pid)
    while time.monotonic() < deadline:
        time.sleep(0.3)
        now = cpu_snapshot(server_pid)
        busy = [k for k in now if k != "bench" and sum(now[k]) - sum(last.get(k, (0, 0))) > 0.02]
        if not busy:
            return
        last = now


def server_cpu(snapshot: dict[str, tuple[float, float]]) -> float:
    """CPU seconds of the receiver and workers in a ``cpu_snapshot``."""
    return sum(u + s for k, (u, s) in snapshot.items() if k != "bench")


def children_cpu() -> tuple[float, float]:
    """CPU seconds (user, system) of this process's finished children (the load generator)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


def print_cpu(
    before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]], traces: int
) -> float:
    """Where the machine's CPU went while the load was judged: per process
    group, seconds and ms per trace (and how much of it the kernel's, on the
    group's behalf), and the total against the cores; returns the total's ms
    per trace."""
    used = {
        k: (after[k][0] - before.get(k, (0, 0))[0], after[k][1] - before.get(k, (0, 0))[1])
        for k in after
    }
    none = (0.0, 0.0)

    def add(*keys: str) -> tuple[float, float]:
        parts = [used.get(k, none) for k in keys]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)

    workers = sorted(k for k in used if k.startswith("worker "))
    groups = [
        ("receiver", add("receiver")),
        (f"{len(workers)} workers", add(*workers)),
        ("load generator + sampler", add("load generator", "bench")),
    ]
    total = sum(u + s for _, (u, s) in groups)
    system = sum(s for _, (_, s) in groups)
    print(
        "CPU while the load was taken and judged (s, ms per trace; system's share): "
        + ", ".join(
            f"{name} {u + s:.1f} s = {(u + s) * 1000 / traces:.3f} ({s * 1000 / traces:.3f})"
            for name, (u, s) in groups
        )
        + f"; total {total:.1f} s = {total * 1000 / traces:.3f} ms per trace "
        f"({system * 1000 / traces:.3f} in the kernel; "
        f"{os.cpu_count()} cores: {os.cpu_count()} s of CPU per second)"
    )
    return total * 1000 / traces


def print_host(samples: list[float], ms_per_trace: float) -> None:
    """The host's speed during the run (``bench/hostspeed.py``'s samples) and
    the run's cost a trace scaled to a 100 ms reference: runs on a faster or
    slower host's day compare by that figure."""
    if not samples:
        print("host reference: no sample taken")
        return
    middle = statistics.median(samples)
    print(
        f"host reference during the run (bench/hostspeed.py; lower is faster): median "
        f"{middle:.1f} ms, {min(samples):.1f}-{max(samples):.1f} over {len(samples)} samples; "
        f"{ms_per_trace * 100 / middle:.3f} ms a trace scaled to a 100 ms reference"
    )


def write_turns(metrics_url: str) -> dict[str, tuple[float, float]]:
    """Per process (receiver, worker): the write transactions that took a turn
    at SQLite's write lock and the seconds spent waiting for one, from the
    server's ``/metrics`` (empty on PostgreSQL or if it cannot be read)."""
    try:
        text = httpx.get(metrics_url, timeout=10).text
    except httpx.HTTPError:
        return {}
    found: dict[str, list[float]] = {}
    for line in text.splitlines():
        for index, name in enumerate(
            ("iris_sqlite_write_turns_total", "iris_sqlite_write_wait_seconds_total")
        ):
            prefix = name + '{process="'
            if line.startswith(prefix):
                who = line[len(prefix) :].split('"', 1)[0]
                found.setdefault(who, [0.0, 0.0])[index] = float(line.rpartition(" ")[2])
    return {who: (n, waited) for who, (n, waited) in found.items() if n}


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def spans_stored(engine: Any) -> int:
    """The spans the database holds: a scan of every span batch (~25 ms of
    CPU at 30,000 traces, growing with the table)."""
    with engine.connect() as conn:
        return int(
            conn.execute(select(func.coalesce(func.sum(SpanBatchRow.span_count), 0))).scalar_one()
        )


def sample(engine: Any, spans_known: int | None = None) -> dict[str, int]:
    """Spans stored, evaluations stored and jobs not done, read the cheap way:
    the sampler shares the two cores with what it measures. Counts walk
    indexes. The spans are ``spans_known`` when the caller knows them (the
    paced sender's acknowledged spans: the server answers 200 only once a
    request's spans are committed), else the scan of ``spans_stored``, which
    at 0.5 s a sample took ~2 % of the machine's CPU over a 30-second load."""
    spans = spans_known if spans_known is not None else spans_stored(engine)
    with engine.connect() as conn:
        evaluated = conn.execute(select(func.count()).select_from(Evaluation)).scalar_one()
        jobs = conn.execute(select(func.count()).select_from(EvaluationJob)).scalar_one()
        done = conn.execute(
            select(func.count()).select_from(EvaluationJob).where(EvaluationJob.state == "done")
        ).scalar_one()
    return {"spans": spans, "evaluated": evaluated, "queue": jobs - done}


def while_ingesting(
    timeline: list[tuple[float, dict[str, int]]], spans_done_at: float | None
) -> tuple[float, float, float, float, float] | None:
    """The rates while the load was still arriving: from the first verdict
    (the grace period has passed, judging is under way) to the last span
    stored. Returns (start s, end s, traces ingested a second, traces judged
    a second, the queue's growth a second), or None when that window is
    under 3 s (too short to tell). Evaluation keeps up when it judges as
    fast as traces arrive; the end-to-end rate cannot say, since it also
    counts the grace period at the start and the drain after the load."""
    if spans_done_at is None:
        return None
    inside = [(t, p) for t, p in timeline if t <= spans_done_at and p["evaluated"] > 0]
    if len(inside) < 2 or inside[-1][0] - inside[0][0] < 3.0:
        return None
    (t0, first), (t1, last) = inside[0], inside[-1]
    span = t1 - t0
    return (
        t0,
        t1,
        (last["spans"] - first["spans"]) / 4 / span,
        (last["evaluated"] - first["evaluated"]) / span,
        (last["queue"] - first["queue"]) / span,
    )


def delays(engine: Any) -> list[float]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(Trace.last_span_at, func.min(Evaluation.created_at))
            .join(Evaluation, Evaluation.trace_id == Trace.trace_id)
            .group_by(Trace.trace_id, Trace.last_span_at)
        )
        return [(done - root).total_seconds() for root, done in rows if root and done]


class PacedSender(threading.Thread):
    """Sends request bodies on a fixed schedule: body ``i`` is due at
    ``start + i * spans_per_request / (4 * rate)`` seconds. A few threads
    share the schedule so one slow answer does not hold back the next body;
    a body that comes due while every thread is busy goes out late (the
    lateness is reported), never dropped. Refusals (429/503) are retried
    after the Retry-After the server names."""

    def __init__(
        self,
        url: str,
        content_type: str,
        bodies: list[bytes],
        interval: float,
        threads: int,
        spans: list[int] | None = None,
    ) -> None:
        super().__init__(daemon=True)
        self.url, self.content_type, self.bodies = url, content_type, bodies
        self.spans = spans or [0] * len(bodies)  # in each body, to count acknowledged spans
        self.interval, self.threads = interval, threads
        self.next_index = 0
        self.acknowledged = 0  # spans the server answered 200 for: committed
        self.lock = threading.Lock()
        self.late: list[float] = []
        self.errors: list[str] = []
        self.retried = 0
        self.finished_at = 0.0

    def run(self) -> None:
        start = time.monotonic() + 0.2
        workers = [
            threading.Thread(target=self._send_loop, args=(start,), daemon=True)
            for _ in range(self.threads)
        ]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        self.finished_at = time.monotonic()

    def _send_loop(self, start: float) -> None:
        """One thread's share of the schedule, over one keep-alive connection
        (``PlainConnection``: the sender shares the two cores with the server
        it measures, so it should cost as little as it can)."""
        target = urlsplit(self.url)
        conn = PlainConnection(
            target.hostname or "127.0.0.1", target.port or 80, target.path, self.content_type
        )
        try:
            while True:
                with self.lock:
                    i = self.next_index
                    if i >= len(self.bodies):
                        return
                    self.next_index += 1
                due = start + i * self.interval
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                else:
                    self.late.append(-wait)
                for _ in range(20):
                    try:
                        status, headers = conn.post(self.bodies[i])
                    except (OSError, ValueError) as exc:
                        self.errors.append(f"body {i}: {exc!r}")
                        conn.close()  # the next request reconnects
                        break
                    if status in (429, 503):
                        self.retried += 1
                        time.sleep(float(headers.get("retry-after") or "1"))
                        continue
                    if status != 200:
                        self.errors.append(f"body {i}: HTTP {status}")
                    else:
                        with self.lock:
                            self.acknowledged += self.spans[i]
                    break
        finally:
            conn.close()


class PlainConnection:
    """A keep-alive HTTP/1.1 connection that POSTs bodies to one path and
    reads each answer whole (status, headers, a ``Content-Length`` body).

    Just what the paced sender needs, on a plain socket: the standard
    library's client spent ~0.43 ms of CPU a request here (httpx ~1.3), a
    cost on the same two cores as the server being measured. An answer
    without a length (chunked, or read to the close) is an error here; the
    server answers OTLP requests with a length."""

    def __init__(self, host: str, port: int, path: str, content_type: str) -> None:
        self.address = (host, port)
        self.head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: "
        ).encode("ascii")
        self.sock: socket.socket | None = None
        self.pending = b""  # read past the last answer's end

    def post(self, body: bytes) -> tuple[int, dict[str, str]]:
        """Send ``body``; returns the answer's status and headers (lower-case names)."""
        if self.sock is None:
            self.sock = socket.create_connection(self.address, timeout=30)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.pending = b""
        self.sock.sendall(b"%s%d\r\n\r\n%s" % (self.head, len(body), body))
        data = self.pending
        while (end := data.find(b"\r\n\r\n")) < 0:
            data += self._receive()
        status_line, *lines = data[:end].decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" not in headers:
            raise ValueError(f"an answer without a Content-Length: {status_line!r} {headers}")
        rest = end + 4 + int(headers["content-length"])
        while len(data) < rest:
            data += self._receive()
        self.pending = data[rest:]
        if headers.get("connection", "").lower() == "close":
            self.close()
        version, _, rest_of_line = status_line.partition(" ")
        code = rest_of_line[:3]
        if not version.startswith("HTTP/") or not code.isdigit():
            raise ValueError(f"not an HTTP status line: {status_line!r}")
        return int(code), headers

    def _receive(self) -> bytes:
        assert self.sock is not None
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection mid-answer")
        return chunk

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--traces", type=int, default=5000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--protocol", choices=["http-protobuf", "http-json", "grpc"], default="http-protobuf"
    )
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--spans-per-request", type=int, default=100)
    ap.add_argument("--db-url", help="PostgreSQL URL (default: SQLite in a scratch home)")
    ap.add_argument("--grace-ms", type=int, default=2000)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument(
        "--keep",
        action="store_true",
        help="keep the scratch home (database, bodies, server log); it is kept anyway "
        "when the run stops with an error",
    )
    ap.add_argument(
        "--rate",
        type=float,
        help="offer a steady load of this many traces/s (HTTP only) instead of a burst",
    )
    args = ap.parse_args()
    if args.rate and args.protocol == "grpc":
        ap.error("--rate paces HTTP requests; use --protocol http-protobuf or http-json")

    home = Path(tempfile.mkdtemp(prefix="iris-e2e-"))
    db_url = args.db_url or f"sqlite:///{home / 'iris.db'}"
    if args.db_url:  # start from an empty schema so counts are this run's
        engine = make_engine(db_url)
        with engine.begin() as conn:
            conn.execute(text("DROP SCHEMA public CASCADE"))
            conn.execute(text("CREATE SCHEMA public"))
        engine.dispose()
    http_port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "IRIS_HOME": str(home),
        "IRIS_DB_URL": db_url,
        "IRIS_DASHBOARD_PORT": str(http_port),
        "IRIS_OTLP_GRPC_PORT": str(grpc_port),
        "IRIS_WORKERS": str(args.workers),
        "IRIS_ASSEMBLY_GRACE_MS": str(args.grace_ms),
        "IRIS_LOG_LEVEL": "warn",
    }
    bodies = (
        dump_bodies(
            home / "bodies",
            traces=args.traces,
            protocol=args.protocol,
            spans_per_request=args.spans_per_request,
        )
        if args.rate
        else []
    )
    log = (home / "server.log").open("wb")
    host: subprocess.Popen[str] | None = None
    server = subprocess.Popen(
        [sys.executable, "-m", "service", "serve"], env=env, stdout=log, stderr=log, cwd=ROOT
    )
    try:
        for _ in range(300):
            try:
                if (
                    httpx.get(f"http://127.0.0.1:{http_port}/api/v1/health", timeout=1).status_code
                    == 200
                ):
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        engine = make_engine(db_url)
        target = (
            f"127.0.0.1:{grpc_port}"
            if args.protocol == "grpc"
            else f"http://127.0.0.1:{http_port}/v1/traces"
        )
        settle(server.pid)
        host = subprocess.Popen(  # samples the host's speed while the load runs
            [sys.executable, str(HOSTSPEED), "--every", "10"],
            stdout=subprocess.PIPE,
            text=True,
        )
        cpu_before = {**cpu_snapshot(server.pid), "load generator": children_cpu()}
        written_before = bytes_written(server.pid)
        sender: PacedSender | None = None
        load: subprocess.Popen[str] | None = None
        if args.rate:
            content_type = (
                "application/json" if args.protocol == "http-json" else "application/x-protobuf"
            )
            interval = args.spans_per_request / (4 * args.rate)
            spans = body_spans(home / "bodies")
            sender = PacedSender(target, content_type, bodies, interval, args.concurrency, spans)
            sender.start()
        else:
            load = subprocess.Popen(
                [
                    sys.executable,
                    str(LOAD),
                    "--target",
                    target,
                    "--protocol",
                    args.protocol,
                    "--traces",
                    str(args.traces),
                    "--spans-per-request",
                    str(args.spans_per_request),
                    "--concurrency",
                    str(args.concurrency),
                    "--retries",
                    "5",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        total_spans = args.traces * 4
        started = time.monotonic()
        timeline: list[tuple[float, dict[str, int]]] = []
        spans_done_at = evaluated_at = None
        # CPU snapshots at the first verdict and as the last span is stored:
        # how busy the cores were while the load arrived and was judged
        first_verdict: tuple[float, dict[str, tuple[float, float]]] | None = None
        cpu_at_load_end: dict[str, tuple[float, float]] = {}
        # the machine's ticks at the first verdict and at the load's end
        machine_at: dict[str, tuple[int, int, int, int]] = {}
        while time.monotonic() - started < args.timeout:
            known = (
                total_spans
                if spans_done_at is not None
                else sender.acknowledged
                if sender is not None
                else None
            )
            now = sample(engine, known)
            elapsed = time.monotonic() - started
            timeline.append((elapsed, now))
            if spans_done_at is None and now["spans"] >= total_spans:
                spans_done_at = elapsed
                cpu_at_load_end = cpu_snapshot(server.pid)
                machine_at["load end"] = machine_ticks()
            if first_verdict is None and now["evaluated"] > 0:
                first_verdict = (elapsed, cpu_snapshot(server.pid))
                machine_at["first verdict"] = machine_ticks()
            if now["evaluated"] >= args.traces:
                evaluated_at = elapsed
                break
            time.sleep(0.5)
        cpu_after = cpu_snapshot(server.pid)
        written = bytes_written(server.pid) - written_before
        host.terminate()
        host_samples = [float(line) for line in host.communicate(timeout=30)[0].split()]
        if load is not None:
            load_out = load.communicate(timeout=60)[0]
            cpu_after["load generator"] = children_cpu()
        else:
            assert sender is not None
            sender.join(timeout=60)
            late = sorted(sender.late)
            load_out = (
                f"wall: paced at {args.rate:,.0f} traces/s over "
                f"{sender.finished_at - started:.1f} s; {len(late)} of {len(bodies)} bodies late "
                f"(p99 {percentile(late, 99) if late else 0:.2f} s), "
                f"{sender.retried} refusals retried, {len(sender.errors)} errors"
                + (f" (first: {sender.errors[0]})" if sender.errors else "")
            )
        waits = delays(engine)
        stored = spans_stored(engine)  # what the acknowledgements said, checked once
        engine.dispose()
        time.sleep(1.5)  # the server folds its workers' figures into /metrics each second
        turns = write_turns(f"http://127.0.0.1:{http_port}/metrics")
    finally:
        if host is not None and host.poll() is None:  # the run stopped with an error
            host.kill()
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    # Left in place when the run stopped with an error: its server log says why.
    if args.keep:
        print(f"kept {home}")
    else:  # a 120,000-trace run leaves ~2.5 GB here
        shutil.rmtree(home, ignore_errors=True)
    send_line = next((line for line in load_out.splitlines() if line.startswith("wall")), "")
    print(
        f"database: {'postgresql' if args.db_url else 'sqlite'}; workers: {args.workers}; "
        f"protocol: {args.protocol}; traces: {args.traces} ({total_spans} spans)"
    )
    print(machine_line())
    print(f"load generator: {send_line}")
    if spans_done_at:
        print(
            f"stored end to end: {total_spans / spans_done_at:,.0f} spans/s ({spans_done_at:.1f} s)"
        )
    if evaluated_at:
        rate = args.traces / evaluated_at
        print(f"evaluated end to end: {rate:,.0f} traces/s ({evaluated_at:.1f} s)")
    else:
        print(f"NOT all evaluated within {args.timeout:.0f} s: {timeline[-1][1]}")
    print(
        f"root arrival -> verdict stored: p50 {percentile(waits, 50):.2f} s, "
        f"p99 {percentile(waits, 99):.2f} s, max {max(waits, default=float('nan')):.2f} s "
        f"(grace period {args.grace_ms / 1000:.1f} s; goal p99 < {2 + args.grace_ms / 1000:.1f} s)"
    )
    steady = while_ingesting(timeline, spans_done_at)
    if steady is not None:
        t0, t1, arrived, judged, growth = steady
        print(
            f"while the load arrived ({t0:.1f}-{t1:.1f} s): {arrived:,.0f} traces/s in, "
            f"{judged:,.0f} judged/s, queue {growth:+,.0f} jobs/s; evaluation "
            + ("keeps up" if judged >= 0.97 * arrived else "falls behind")
        )
        if first_verdict is not None and cpu_at_load_end and spans_done_at:
            busy = server_cpu(cpu_at_load_end) - server_cpu(first_verdict[1])
            print(
                f"  the server's processes used {busy / (spans_done_at - first_verdict[0]):.2f} "
                f"of {os.cpu_count()} cores meanwhile (the rest: the load generator, or idle)"
            )
        if len(machine_at) == 2:
            start, end = machine_at["first verdict"], machine_at["load end"]
            busy_t, idle_t, iowait_t, steal_t = (e - b for e, b in zip(end, start, strict=True))
            ticks = max(busy_t + idle_t + iowait_t + steal_t, 1)
            print(
                f"  the machine meanwhile: {100 * busy_t / ticks:.0f} % busy, "
                f"{100 * idle_t / ticks:.0f} % idle, {100 * iowait_t / ticks:.0f} % idle "
                f"waiting on the disk, {100 * steal_t / ticks:.1f} % stolen by the host"
            )
    print("queue depth over time (s: pending jobs, evaluated):")
    step = max(1, len(timeline) // 12)
    for elapsed, point in timeline[::step]:
        print(
            f"  {elapsed:6.1f}: queue {point['queue']:>6}  "
            f"evaluated {point['evaluated']:>6}  spans {point['spans']:>7}"
        )
    ms_per_trace = print_cpu(cpu_before, cpu_after, args.traces)
    print_host(host_samples, ms_per_trace)
    if not args.db_url:  # on PostgreSQL its own server process does the writing
        print(
            f"written by the server's processes: {written / 1e6:,.0f} MB, "
            f"{written / 1024 / args.traces:.1f} KiB a trace (WAL frames and the "
            "checkpoints' copies into the database file)"
        )
    if turns:
        print(
            "turns at SQLite's write lock (transactions; seconds waited): "
            + ", ".join(f"{who} {n:,.0f}; {waited:.1f} s" for who, (n, waited) in turns.items())
        )
    if waits:
        print(f"mean delay {statistics.mean(waits):.2f} s over {len(waits)} traces")
    if stored != total_spans:
        print(f"SPANS MISSING: the database holds {stored} of the {total_spans} sent")
    return 0 if evaluated_at and stored == total_spans else 1


if __name__ == "__main__":
    raise SystemExit(main())
