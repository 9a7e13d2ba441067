"""A span acknowledged is a span stored, even when the server is SIGKILLed."""

from __future__ import annotations

import random
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Connection, select

from storage.engine import make_engine
from storage.spans import span_batches
from tests.support.live import live_server
from tests.support.otlp_bodies import agent_request

pytestmark = pytest.mark.slow


def _stored_span_keys(conn: Connection) -> set[tuple[str, str]]:
    """(trace id, span id) of every stored span."""
    return {
        (trace_id, span_id)
        for trace_id, span_ids in conn.execute(
            select(span_batches.c.trace_id, span_batches.c.span_ids)
        )
        for span_id in span_ids.split()
    }


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for task in Path(f"/proc/{p}/task").iterdir():
                children = [int(c) for c in (task / "children").read_text().split()]
                out.extend(children)
                todo.extend(children)
        except OSError:
            continue
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("writer_process", ["0", "1"], ids=["in-process", "writer-process"])
def test_sigkill_mid_load_loses_no_acknowledged_span(
    tmp_path: Path, db_url: str, writer_process: str
) -> None:
    acknowledged: set[tuple[str, str]] = set()
    lock = threading.Lock()
    stop = threading.Event()
    bodies = [agent_request(random.Random(i), 30) for i in range(400)]

    with live_server(
        tmp_path / "home", db_url, IRIS_WORKERS="0", IRIS_WRITER_PROCESS=writer_process
    ) as server:

        def sender(worker: int) -> None:
            with httpx.Client(timeout=10) as client:
                for index in range(worker, len(bodies), 4):
                    if stop.is_set():
                        return
                    body, ids = bodies[index]
                    try:
                        r = client.post(
                            f"{server.url}/v1/traces",
                            content=body,
                            headers={"content-type": "application/x-protobuf"},
                        )
                    except httpx.HTTPError:
                        return  # the server died mid-request: not acknowledged
                    if r.status_code == 200:
                        with lock:
                            acknowledged.update(ids)

        threads = [threading.Thread(target=sender, args=(w,)) for w in range(4)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 30
        while len(acknowledged) < 3000 and time.monotonic() < deadline:
            time.sleep(0.01)
        helpers = _descendants(server.process.pid)
        if writer_process == "1":
            assert helpers, "no writer process"
        server.kill()
        stop.set()
        for thread in threads:
            thread.join(timeout=30)

    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in helpers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in helpers), "a helper process outlived the server"
    assert len(acknowledged) >= 3000, "load never got going"
    assert len(acknowledged) < len(bodies) * 90, "the kill came after the load finished"
    engine = make_engine(db_url)
    with engine.connect() as conn:
        stored = _stored_span_keys(conn)
    engine.dispose()
    missing = acknowledged - stored
    assert not missing, f"{len(missing)} acknowledged spans were lost"


def test_sigterm_stops_every_process_after_committing(tmp_path: Path, db_url: str) -> None:
    """Graceful shutdown in writer-process mode: acknowledged spans are stored,
    the server finishes its shutdown and its writer process exits with it."""
    body, ids = agent_request(random.Random(7), 30)
    with live_server(
        tmp_path / "home", db_url, IRIS_WORKERS="0", IRIS_WRITER_PROCESS="1"
    ) as server:
        r = httpx.post(
            f"{server.url}/v1/traces",
            content=body,
            headers={"content-type": "application/x-protobuf"},
            timeout=10,
        )
        assert r.status_code == 200
        helpers = _descendants(server.process.pid)
        assert helpers
        server.process.send_signal(signal.SIGTERM)
        # uvicorn re-raises the signal once its shutdown has completed
        assert server.process.wait(timeout=30) in (0, -signal.SIGTERM)
        assert "Application shutdown complete" in server.log.read_text()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in helpers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in helpers)
    engine = make_engine(db_url)
    with engine.connect() as conn:
        stored = _stored_span_keys(conn)
    engine.dispose()
    assert set(ids) <= stored
