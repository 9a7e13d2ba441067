"""``GET /api/v1/health``: always reachable, never a stack trace."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.state import ServiceState
from service.version import iris_version
from storage import codec
from storage import jobs as job_store
from storage import traces as trace_store

router = APIRouter(prefix="/api/v1")


@router.get("/health")
async def health(request: Request) -> JSONResponse:
    state: ServiceState = request.app.state.iris
    base: dict[str, Any] = {
        "version": iris_version(),
        "uptime_seconds": round(time.monotonic() - state.started_monotonic, 3),
    }

    def count() -> tuple[int, dict[str, Any]]:
        with state.engine.connect() as conn:
            return trace_store.count_traces(conn, state.tenant), job_store.stats(
                conn, now=codec.utcnow()
            )

    try:
        trace_count, queue = await asyncio.wait_for(asyncio.to_thread(count), timeout=5)
    except Exception:
        return JSONResponse(
            {**base, "status": "degraded", "storage": "disconnected"},
            status_code=503,
            headers={"Retry-After": "1"},
        )
    spans, nbytes = state.writer.inflight
    return JSONResponse(
        {
            **base,
            "status": "ok",
            "trace_count": trace_count,
            "storage": "connected",
            "database": state.engine.dialect.name,
            "judge": {"enabled": False, "provider": None},
            "mode": "real",
            "ingest": {"spans_in_flight": spans, "bytes_in_flight": nbytes},
            "queue": {
                **queue,
                "backlogged": queue["pending"] > state.settings.queue_warn_pending,
            },
            "workers": {
                "configured": state.settings.worker_count,
                "alive": state.workers.alive if state.workers is not None else 0,
                "restarts": state.workers.restarts if state.workers is not None else 0,
            },
        }
    )
