"""REST routes for traces: native ingest, query, read, delete."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.http import read_json
from service.operations import traces as ops
from service.state import ServiceState

router = APIRouter(prefix="/api/v1")


def _state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.iris
    return state


@router.post("/traces", status_code=201)
async def post_trace(request: Request) -> JSONResponse:
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    result = await ops.log_trace(state, body, source="http", headers=request.headers)
    return JSONResponse(result, status_code=201)


@router.get("/traces")
async def list_traces(request: Request) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, value in request.query_params.multi_items():
        params[key] = value
    return await ops.get_traces(_state(request), params)


@router.get("/traces/{trace_id}")
async def get_trace(trace_id: str, request: Request) -> dict[str, Any]:
    return await ops.get_trace(_state(request), trace_id)


@router.delete("/traces/{trace_id}")
async def delete_trace(trace_id: str, request: Request) -> dict[str, Any]:
    return await ops.delete_trace(_state(request), trace_id, actor="api")


@router.post("/traces/{trace_id}/finalize")
async def finalize_trace(trace_id: str, request: Request) -> dict[str, Any]:
    """Mark an OTLP trace complete now instead of waiting for the grace period."""
    result = await ops.finalize_trace(_state(request), trace_id)
    assembler = getattr(request.app.state, "assembler", None)
    if assembler is not None:
        assembler.wake()
    return result
