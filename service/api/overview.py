"""REST routes: capabilities, summary, filters, runs (the MCP resources' twins)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.http import read_json
from service.mcp.server import RESOURCE_URIS
from service.mcp.tools import BY_NAME
from service.operations import overview, runs
from service.state import ServiceState

router = APIRouter(prefix="/api/v1")


def _state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.iris
    return state


@router.get("/capabilities")
async def capabilities(request: Request) -> dict[str, Any]:
    return await overview.capabilities(
        _state(request), transport="http", tools=list(BY_NAME), resources=RESOURCE_URIS
    )


@router.get("/summary")
async def summary(request: Request) -> dict[str, Any]:
    return await overview.summary(_state(request), request.query_params.get("hours", "24"))


@router.get("/filters")
async def filters(request: Request) -> dict[str, Any]:
    return await overview.filters(_state(request))


@router.get("/proof")
async def proof() -> dict[str, Any]:
    return overview.proof()


@router.get("/runs")
async def list_runs(request: Request) -> dict[str, Any]:
    return await runs.list_runs(_state(request), request.query_params.get("limit", "50"))


@router.get("/runs/{run_id}")
async def get_run(run_id: str, request: Request) -> dict[str, Any]:
    return await runs.get_run(_state(request), run_id)


@router.patch("/runs/{run_id}")
async def patch_run(run_id: str, request: Request) -> dict[str, Any]:
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    return await runs.patch_run(state, run_id, body)


@router.post("/runs/{run_id}/reevaluate")
async def reevaluate(run_id: str, request: Request) -> dict[str, Any]:
    """REST twin of evaluate_runs (the body may carry ``into`` and ``label``)."""
    state = _state(request)
    body = (
        await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
        if await request.body()
        else {}
    )
    if not isinstance(body, dict):
        body = {"invalid": body}
    return await runs.evaluate_runs(state, {**body, "run": run_id})


@router.post("/compare")
async def compare(request: Request) -> dict[str, Any]:
    """REST twin of compare_runs: same handler, same shape."""
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    return await runs.compare_runs(state, body)


@router.get("/reliability")
async def reliability(request: Request) -> dict[str, Any]:
    """REST twin of compare_traces (query parameters are its arguments)."""
    params: dict[str, Any] = dict(request.query_params)
    if "min_attempts" in params:
        params["min_attempts"] = (
            int(params["min_attempts"])
            if params["min_attempts"].isdigit()
            else params["min_attempts"]
        )
    return await runs.compare_traces(_state(request), params)


@router.post("/datasets", status_code=201)
async def create_dataset(request: Request) -> JSONResponse:
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    return JSONResponse(await runs.create_dataset(state, body), status_code=201)


@router.get("/datasets")
async def list_datasets(request: Request) -> dict[str, Any]:
    return await runs.list_datasets(_state(request))


@router.get("/cases/{case_key}")
async def case(case_key: str, request: Request) -> dict[str, Any]:
    return await runs.case_attempts(_state(request), case_key, request.query_params.get("run"))


@router.get("/eval-stats/drift")
async def drift(request: Request) -> dict[str, Any]:
    q = request.query_params
    return await runs.drift(_state(request), q.get("period", "7d"), q.get("run"))
