"""``GET /api/v1/health``: always reachable, never a stack trace."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.state import ServiceState, iris_version
from storage import traces as trace_store

router = APIRouter(prefix="/api/v1")


@router.get("/health")
async def health(request: Request) -> JSONResponse:
    state: ServiceState = request.app.state.iris
    base: dict[str, Any] = {
        "version": iris_version(),
        "uptime_seconds": round(time.monotonic() - state.started_monotonic, 3),
    }

    def count() -> int:
        with state.engine.connect() as conn:
            return trace_store.count_traces(conn, state.tenant)

    try:
        trace_count = await asyncio.wait_for(asyncio.to_thread(count), timeout=5)
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
        }
    )
