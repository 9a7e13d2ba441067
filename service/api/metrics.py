"""``GET /metrics``: Prometheus text exposition of Iris's own health."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from service.metrics import Registry
from service.state import ServiceState
from storage import codec
from storage import jobs as job_store
from storage.writeturn import wait_totals

router = APIRouter()


def _writer_series(state: ServiceState) -> str:
    """Writer figures, read straight from the writer's own counters."""
    stats = state.writer.stats
    r = Registry()
    r.counter("iris_commits_total", "Group commits.").inc(stats.commits)
    r.counter("iris_committed_requests_total", "Requests committed.").inc(stats.jobs)
    r.counter("iris_committed_spans_total", "Spans (or native traces) committed.").inc(stats.spans)
    r.counter("iris_commit_failures_total", "Requests whose commit failed.").inc(stats.failures)
    refused = r.counter("iris_admission_refused_total", "Requests refused at admission, by reason.")
    for reason, n in dict(stats.refused).items():
        refused.inc(n, reason=reason)
    batch = r.summary("iris_commit_batch_requests", "Requests coalesced per commit (recent).")
    seconds = r.summary("iris_commit_seconds", "Seconds to apply and commit one batch (recent).")
    for size, took in zip(list(stats.batch_sizes), list(stats.commit_seconds), strict=False):
        batch.observe(size)
        seconds.observe(took)
    spans, nbytes = state.writer.inflight
    inflight = r.gauge("iris_ingest_inflight", "Admitted but not yet committed.")
    inflight.set(spans, unit="spans")
    inflight.set(nbytes, unit="bytes")
    return r.render()


@router.get("/metrics")
async def metrics(request: Request) -> PlainTextResponse:
    state: ServiceState = request.app.state.iris
    m = state.metrics

    def queue() -> dict[str, Any]:
        with state.engine.connect() as conn:
            return job_store.stats(conn, now=codec.utcnow())

    try:
        q = await asyncio.wait_for(asyncio.to_thread(queue), timeout=5)
        for job_state in job_store.QUEUE_STATES:
            m.queue_depth.set(q[job_state], state=job_state)
        m.queue_oldest.set(q["oldest_pending_age_s"])
    except Exception:
        m.queue_depth.set(-1, state="unknown")
    if state.workers is not None:
        m.workers_alive.set(state.workers.alive)
    turns, waited = wait_totals()  # this process's: the group commit and the sweeps
    m.write_turns.set_total(turns, process="receiver")
    m.write_wait_seconds.set_total(waited, process="receiver")
    body = m.registry.render() + _writer_series(state)
    return PlainTextResponse(body, media_type="text/plain; version=0.0.4; charset=utf-8")
