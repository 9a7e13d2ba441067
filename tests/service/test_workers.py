"""The worker pool as real processes: crashes, restarts, several machines' worth."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from storage.engine import make_engine
from storage.models import Evaluation, EvaluationJob, Trace
from tests.support.live import live_server
from tests.support.otlp_bodies import agent_request

pytestmark = pytest.mark.slow


@contextmanager
def worker_process(
    home: Path, db_url: str, count: int = 1, **env: str
) -> Iterator[subprocess.Popen[bytes]]:
    home.mkdir(parents=True, exist_ok=True)
    environ = {**os.environ, "IRIS_HOME": str(home), "IRIS_DB_URL": db_url, **env}
    with (home / f"worker-{time.monotonic_ns()}.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service", "worker", "--count", str(count)],
            env=environ,
            stdout=log,
            stderr=log,
        )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def job_counts(db_url: str) -> dict[str, int]:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(select(EvaluationJob.state, func.count()).group_by(EvaluationJob.state))
        counts = {state: int(n) for state, n in rows}
    engine.dispose()
    return counts


def evaluations_per_trace(db_url: str) -> dict[str, int]:
    engine = make_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(select(Evaluation.trace_id, func.count()).group_by(Evaluation.trace_id))
        out = {t: int(n) for t, n in rows}
    engine.dispose()
    return out


def wait_until(predicate: object, timeout: float, what: str, every: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")


def post_native(url: str, n: int) -> list[str]:
    ids = []
    with httpx.Client(timeout=30) as client:
        for i in range(n):
            r = client.post(
                f"{url}/api/v1/traces",
                json={
                    "agent_name": "queued",
                    "input": f"question {i}",
                    "output": f"Answer {i}: it works.",
                },
            )
            assert r.status_code == 201, r.text
            ids.append(r.json()["trace_id"])
    return ids


def test_sigkilled_worker_jobs_are_reclaimed_and_judged_once(tmp_path: Path, db_url: str) -> None:
    with live_server(tmp_path / "srv", db_url, IRIS_WORKERS="0") as server:
        ids = post_native(server.url, 400)
    env = {"IRIS_JOB_LEASE_S": "2", "IRIS_JOB_BATCH": "50"}
    # A compiled worker judges these 400 small traces in well under a second,
    # so the poll for a running job must be quick and cheap: one engine, a
    # read every 5 ms (a fresh engine every 0.1 s once missed the whole run).
    watch = make_engine(db_url)
    running = select(func.count()).where(EvaluationJob.state == "running")
    try:

        def any_running() -> bool:
            with watch.connect() as conn:
                return bool(conn.execute(running).scalar_one())

        with worker_process(tmp_path / "w1", db_url, **env) as first:
            wait_until(any_running, 60, "a running job", every=0.005)
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
    finally:
        watch.dispose()
    assert job_counts(db_url).get("running", 0) > 0  # jobs left behind by the kill
    with worker_process(tmp_path / "w2", db_url, **env):
        wait_until(lambda: job_counts(db_url).get("done", 0) == len(ids), 120, "every job done")
    per_trace = evaluations_per_trace(db_url)
    assert set(per_trace) == set(ids)
    assert set(per_trace.values()) == {1}  # once in effect, despite the crash
    engine = make_engine(db_url)
    with engine.connect() as conn:
        attempts = conn.execute(select(func.max(EvaluationJob.attempts))).scalar_one()
    engine.dispose()
    assert attempts >= 2  # some job really was reclaimed after the kill


def test_pending_jobs_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    with live_server(tmp_path / "a", db_url, IRIS_WORKERS="0") as server:
        ids = post_native(server.url, 30)
    assert job_counts(db_url) == {"pending": 30}
    with live_server(tmp_path / "b", db_url, IRIS_WORKERS="1") as server:
        wait_until(lambda: job_counts(db_url).get("done", 0) == 30, 120, "jobs done after restart")
        # The workers' figures reach the server's metrics (folded in each second).
        wait_until(
            lambda: _metric(server.url, "iris_evaluations_total") == 30, 30, "evaluations counted"
        )
        turns = _metric(server.url, 'iris_sqlite_write_turns_total{process="worker"}')
        waited = _metric(server.url, 'iris_sqlite_write_wait_seconds_total{process="worker"}')
        if db_url.startswith("sqlite"):  # a claim and a store a batch, at least
            assert turns >= 2 and waited >= 0
        else:  # PostgreSQL locks rows: no turns to take
            assert turns == 0 and waited == 0
    assert set(evaluations_per_trace(db_url)) == set(ids)


def _metric(url: str, series: str) -> float:
    """``series`` in ``GET /metrics``; a bare name sums its samples over their labels."""
    total = 0.0
    for line in httpx.get(f"{url}/metrics", timeout=30).text.splitlines():
        name, _, value = line.rpartition(" ")
        if not line.startswith("#") and (
            name == series or ("{" not in series and name.startswith(series + "{"))
        ):
            total += float(value)
    return total


def test_two_receivers_two_workers_one_database(tmp_path: Path, db_url: str) -> None:
    bodies = [agent_request(random.Random(seed), 20) for seed in range(20)]
    expected = {trace for _, ids in bodies for trace, _ in ids}
    env = {"IRIS_WORKERS": "0", "IRIS_ASSEMBLY_GRACE_MS": "200"}
    with (
        live_server(tmp_path / "r1", db_url, **env) as one,
        live_server(tmp_path / "r2", db_url, **env) as two,
        worker_process(tmp_path / "w1", db_url),
        worker_process(tmp_path / "w2", db_url),
        httpx.Client(timeout=30) as client,
    ):
        for i, (body, _) in enumerate(bodies):
            target = one if i % 2 == 0 else two
            r = client.post(
                f"{target.url}/v1/traces",
                content=body,
                headers={"content-type": "application/x-protobuf"},
            )
            assert r.status_code == 200
        wait_until(
            lambda: set(evaluations_per_trace(db_url)) == expected, 120, "every trace evaluated"
        )
        time.sleep(1.0)  # let any duplicate that was going to happen, happen
        # Both receivers added to the kept trace count; each reads the whole of it.
        for server in (one, two):
            health = client.get(f"{server.url}/api/v1/health").json()
            assert health["trace_count"] == len(expected)
            assert (health["queue"]["pending"], health["queue"]["running"]) == (0, 0)
    assert set(evaluations_per_trace(db_url).values()) == {1}
    engine = make_engine(db_url)
    with engine.connect() as conn:
        agents = {a for (a,) in conn.execute(select(Trace.agent_name).distinct())}
    engine.dispose()
    assert agents == {"bot"}  # derived by the workers from the spans


def _worker_pids(log: Path) -> list[int]:
    """Pids of the workers that said they started, in order (their names
    are host:pid:index)."""
    text = log.read_text(errors="replace") if log.exists() else ""
    return [int(m.group(1)) for m in re.finditer(r"worker \S+?:(\d+):\d+ started", text)]


def _kill_an_idle_worker_and_wait_for_its_replacement(log: Path) -> None:
    """SIGKILL a worker while it waits for jobs (the queue is empty): the way
    the OOM killer or an operator's ``kill -9`` ends one. The pool restarts it."""
    wait_until(lambda: len(_worker_pids(log)) == 2, 60, "both workers started")
    time.sleep(0.5)  # idle, between polls of an empty queue
    os.kill(_worker_pids(log)[0], signal.SIGKILL)
    wait_until(lambda: len(_worker_pids(log)) == 3, 60, "the killed worker replaced")


def test_the_service_stops_after_an_idle_worker_was_killed(tmp_path: Path, db_url: str) -> None:
    """Once hung for good: the pool's shared stop event still counted the
    killed worker as waiting on it, and setting it waited for that worker."""
    with live_server(tmp_path / "srv", db_url, IRIS_WORKERS="2") as server:
        _kill_an_idle_worker_and_wait_for_its_replacement(server.log)
        ids = post_native(server.url, 5)  # the pool still judges
        wait_until(lambda: set(evaluations_per_trace(db_url)) == set(ids), 60, "judged")
        workers = _worker_pids(server.log)[1:]
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=60) in (0, -signal.SIGTERM)
        log = server.log.read_text(errors="replace")
    assert "Application shutdown complete" in log
    assert "leaked semaphore" not in log
    assert "did not stop" not in log  # each worker stopped when asked, not killed
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_iris_worker_stops_after_one_of_its_workers_was_killed(tmp_path: Path, db_url: str) -> None:
    home = tmp_path / "w"
    with worker_process(home, db_url, count=2) as pool:
        [log] = home.glob("worker-*.log")
        _kill_an_idle_worker_and_wait_for_its_replacement(log)
        pool.send_signal(signal.SIGTERM)
        assert pool.wait(timeout=60) == 0
    text = log.read_text(errors="replace")
    assert "leaked semaphore" not in text
    assert "did not stop" not in text
