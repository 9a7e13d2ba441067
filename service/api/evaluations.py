"""REST routes for evaluations: evaluate now, list, read one."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.http import read_json
from service.operations import evaluations as ops
from service.state import ServiceState

router = APIRouter(prefix="/api/v1")


def _state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.iris
    return state


@router.post("/evaluate", status_code=201)
async def evaluate(request: Request) -> JSONResponse:
    """The REST twin of evaluate_output: judge, store, return the evaluation."""
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    return JSONResponse(await ops.evaluate_output(state, body), status_code=201)


@router.get("/evaluations")
async def list_evaluations(request: Request) -> dict[str, Any]:
    return await ops.list_evaluations(_state(request), dict(request.query_params))


@router.get("/evaluations/{evaluation_id}")
async def get_evaluation(evaluation_id: str, request: Request) -> dict[str, Any]:
    return await ops.get_evaluation(_state(request), evaluation_id)
