"""A span acknowledged is a span stored, even when the server is SIGKILLed."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from storage.engine import make_engine
from storage.models import SpanRow
from tests.support.live import live_server
from tests.support.otlp_bodies import agent_request

pytestmark = pytest.mark.slow


def test_sigkill_mid_load_loses_no_acknowledged_span(tmp_path: Path, db_url: str) -> None:
    acknowledged: set[tuple[str, str]] = set()
    lock = threading.Lock()
    stop = threading.Event()
    bodies = [agent_request(random.Random(i), 30) for i in range(400)]

    with live_server(tmp_path / "home", db_url, IRIS_WORKERS="0") as server:

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
        server.kill()
        stop.set()
        for thread in threads:
            thread.join(timeout=30)

    assert len(acknowledged) >= 3000, "load never got going"
    assert len(acknowledged) < len(bodies) * 90, "the kill came after the load finished"
    engine = make_engine(db_url)
    with engine.connect() as conn:
        stored = {
            (r.trace_id, r.span_id) for r in conn.execute(select(SpanRow.trace_id, SpanRow.span_id))
        }
    engine.dispose()
    missing = acknowledged - stored
    assert not missing, f"{len(missing)} acknowledged spans were lost"
