"""REST routes for rules (SPEC §7.12) and the audit log."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from service.api.http import read_json
from service.errors import IrisError, invalid_argument
from service.operations import rules as ops
from service.state import ServiceState

router = APIRouter(prefix="/api/v1")


def _state(request: Request) -> ServiceState:
    state: ServiceState = request.app.state.iris
    return state


@router.get("/rules/builtin")
async def builtin_rules(request: Request) -> dict[str, Any]:
    listing = await ops.list_rules(_state(request), {})
    return {"rules": listing["built_in"]}


@router.get("/rules/custom")
async def custom_rules(request: Request) -> dict[str, Any]:
    listing = await ops.list_rules(_state(request), dict(request.query_params))
    return {"rules": listing["rules"], "quarantined": listing["quarantined"]}


@router.post("/rules/custom", status_code=201)
async def deploy(request: Request) -> JSONResponse:
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    return JSONResponse(await ops.deploy_rule(state, body, actor="api"), status_code=201)


@router.post("/rules/custom/preview")
async def preview(request: Request) -> dict[str, Any]:
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    return await ops.preview_rule(state, body)


@router.patch("/rules/custom/{rule_id}")
async def toggle(rule_id: str, request: Request) -> dict[str, Any]:
    state = _state(request)
    body = await read_json(request, state.settings.max_body_bytes, "IRIS_MAX_BODY_BYTES")
    if (
        not isinstance(body, dict)
        or set(body) != {"enabled"}
        or not isinstance(body["enabled"], bool)
    ):
        raise invalid_argument(
            'Invalid toggle request: send exactly {"enabled": true|false}',
            [{"field": "enabled", "message": "the only key; a boolean", "valid": ["enabled"]}],
        )
    result = await ops.delete_rule(state, rule_id, enabled=body["enabled"], actor="api")
    if not result.get("toggled"):
        raise IrisError(
            "IRIS_NOT_FOUND",
            f"Rule {rule_id} not found.",
            status=404,
            recovery=["List rules with GET /api/v1/rules/custom."],
        )
    return {"rule": result["rule"]}


@router.delete("/rules/custom/{rule_id}", status_code=204)
async def remove(rule_id: str, request: Request) -> Response:
    result = await ops.delete_rule(_state(request), rule_id, actor="api")
    if not result["deleted"]:
        raise IrisError(
            "IRIS_NOT_FOUND",
            f"Rule {rule_id} not found.",
            status=404,
            recovery=["List rules with GET /api/v1/rules/custom."],
        )
    return Response(status_code=204)


@router.get("/audit")
async def audit(request: Request) -> dict[str, Any]:
    raw = request.query_params.get("limit", "100")
    if not raw.isdigit() or not 1 <= int(raw) <= 1000:
        raise invalid_argument(
            "limit must be an integer from 1 to 1000", [{"field": "limit", "value": raw}]
        )
    return await ops.audit_entries(_state(request), int(raw))
