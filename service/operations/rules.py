"""Rule operations shared by REST and MCP: list, deploy, delete/toggle, preview, audit."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import Connection, Table, and_, delete, func, select, update

from evaluators.custom.definition import InvalidRuleConfig, revalidate, validate_definition
from evaluators.request import EvaluationRequest
from evaluators.rules.registry import roster
from receivers.native import register_model
from service.errors import IrisError, invalid_argument
from service.evaluation import engine_config
from service.operations.arguments import validate_args
from service.state import ServiceState
from storage import codec
from storage.models import AuditEntry, CustomRule, Trace

EvalType = Literal["completeness", "relevance", "safety", "cost", "custom"]
RULE_ID_RE = re.compile(r"rule-[0-9a-f]{8,32}")
NAME_RE = re.compile(r"[A-Za-z0-9._-]{1,80}")


class DefinitionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: str = Field(min_length=1)
    config: dict[str, Any]
    weight: float | None = Field(default=None, gt=0)
    name: str | None = Field(default=None, min_length=1, max_length=80)


@register_model
class DeployBody(BaseModel):
    """deploy_rule inputs (SPEC §5.5); camelCase aliases listed there only."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=80)
    definition: DefinitionBody
    eval_type: EvalType | None = None
    evalType: EvalType | None = None
    severity: Literal["low", "medium", "high", "critical"] = "medium"
    description: str | None = Field(default=None, max_length=500)
    replace: bool = False
    source_moment_id: str | None = None
    sourceMomentId: str | None = None

    @model_validator(mode="after")
    def _one_spelling(self) -> DeployBody:
        if self.eval_type is not None and self.evalType is not None:
            raise ValueError("send eval_type or evalType, not both")
        if self.eval_type is None and self.evalType is None:
            raise ValueError(
                "eval_type is required (completeness, relevance, safety, cost, custom)"
            )
        if self.source_moment_id is not None and self.sourceMomentId is not None:
            raise ValueError("send source_moment_id or sourceMomentId, not both")
        return self

    @property
    def bundle(self) -> str:
        return str(self.eval_type or self.evalType)


def rule_to_api(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "description": rule.description,
        "evalType": rule.eval_type,
        "severity": rule.severity,
        "definition": rule.definition,
        "enabled": rule.enabled,
        "createdAt": codec.iso(rule.created_at),
        "updatedAt": codec.iso(rule.updated_at),
        "version": rule.version,
        "sourceMomentId": rule.source_moment_id,
    }


def _entry(rule: Any) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "evalType": rule.eval_type,
        "severity": rule.severity,
        "definition": rule.definition,
        "enabled": rule.enabled,
    }


def _audit(conn: Connection, state: ServiceState, action: str, rule: Any, **extra: Any) -> None:
    conn.execute(
        cast(Table, AuditEntry.__table__)
        .insert()
        .values(
            tenant_id=state.tenant,
            ts=codec.utcnow(),
            action=action,
            rule_id=rule.id if rule is not None else extra.get("rule_id"),
            rule_name=rule.name if rule is not None else extra.get("rule_name"),
            before=extra.get("before"),
            after=extra.get("after"),
            actor=extra.get("actor"),
            detail=extra.get("detail"),
        )
    )


async def list_rules(state: ServiceState, params: Mapping[str, Any]) -> dict[str, Any]:
    eval_type = params.get("eval_type")
    if eval_type is not None and eval_type not in (
        "completeness",
        "relevance",
        "safety",
        "cost",
        "custom",
    ):
        raise invalid_argument(
            f"eval_type {eval_type!r} is not a bundle",
            [
                {
                    "field": "eval_type",
                    "value": eval_type,
                    "valid": ["completeness", "relevance", "safety", "cost", "custom"],
                }
            ],
        )
    enabled_only = str(params.get("enabled_only", "false")).lower() in ("true", "1")

    def run() -> dict[str, Any]:
        with state.engine.connect() as conn:
            rows = list(
                conn.execute(
                    select(CustomRule.__table__)
                    .where(CustomRule.tenant_id == state.tenant)
                    .order_by(CustomRule.created_at)
                )
            )
        _valid, quarantined = revalidate([_entry(r) for r in rows])
        bad = {q["id"] for q in quarantined}
        kept = [
            r
            for r in rows
            if r.id not in bad
            and (eval_type is None or r.eval_type == eval_type)
            and (not enabled_only or r.enabled)
        ]
        return {
            "rules": [rule_to_api(r) for r in kept],
            "total": len(kept),
            "enabled_count": sum(1 for r in kept if r.enabled),
            "built_in": roster(engine_config()),
            "quarantined": quarantined,
            "plugins": [],
        }

    return await asyncio.to_thread(run)


async def deploy_rule(
    state: ServiceState, payload: Any, *, actor: str | None = None
) -> dict[str, Any]:
    body = validate_args(DeployBody, payload, what="rule definition")
    definition = body.definition.model_dump(exclude_none=True)
    definition.pop("name", None)  # the top-level name is the only name (SPEC §5.5)
    try:
        validate_definition(
            {
                "name": body.name,
                "evalType": body.bundle,
                "severity": body.severity,
                "definition": definition,
            }
        )
    except InvalidRuleConfig as exc:
        raise IrisError(
            "IRIS_INVALID_RULE_CONFIG",
            f"The rule definition was refused: {exc}. Nothing was deployed.",
            status=400,
            recovery=["Fix the field named in details and deploy again."],
            details=[
                {"field": f"definition.{getattr(exc, 'field', 'config')}", "message": str(exc)}
            ],
        ) from None

    def run() -> dict[str, Any]:
        now = codec.utcnow()
        with state.engine.begin() as conn:
            same = list(
                conn.execute(
                    select(CustomRule.__table__).where(
                        and_(CustomRule.tenant_id == state.tenant, CustomRule.name == body.name)
                    )
                )
            )
            if same and not body.replace:
                raise IrisError(
                    "IRIS_DUPLICATE_RULE",
                    f"A rule named {body.name!r} is already deployed: {same[0].id}. "
                    "Send replace: true to retire it, or choose another name.",
                    status=409,
                    recovery=["Deploy with replace: true, or pick a new name."],
                    extra={
                        "existing": [
                            {
                                "id": r.id,
                                "evalType": r.eval_type,
                                "severity": r.severity,
                                "enabled": r.enabled,
                            }
                            for r in same
                        ]
                    },
                )
            for old in same:
                conn.execute(delete(CustomRule).where(CustomRule.id == old.id))
                _audit(
                    conn,
                    state,
                    "rule.delete",
                    old,
                    before=rule_to_api(old),
                    actor=actor,
                    detail={"reason": "replaced"},
                )
            rule_id = "rule-" + os.urandom(4).hex()
            conn.execute(
                cast(Table, CustomRule.__table__)
                .insert()
                .values(
                    id=rule_id,
                    tenant_id=state.tenant,
                    name=body.name,
                    description=body.description,
                    eval_type=body.bundle,
                    severity=body.severity,
                    definition=definition,
                    enabled=True,
                    version=1,
                    source_moment_id=body.source_moment_id or body.sourceMomentId,
                    created_at=now,
                    updated_at=now,
                )
            )
            rule = conn.execute(select(CustomRule.__table__).where(CustomRule.id == rule_id)).one()
            _audit(conn, state, "rule.deploy", rule, after=rule_to_api(rule), actor=actor)
            out: dict[str, Any] = {"rule": rule_to_api(rule)}
            if same:
                out["replaced"] = [
                    {"id": r.id, "evalType": r.eval_type, "severity": r.severity} for r in same
                ]
                out["warning"] = f"Retired {len(same)} rule(s) named {body.name!r}: " + ", ".join(
                    r.id for r in same
                )
            return out

    return await asyncio.to_thread(run)


def check_rule_id(rule_id: str) -> None:
    if not RULE_ID_RE.fullmatch(rule_id):
        raise invalid_argument(
            f"rule_id must look like rule-<hex>, got {rule_id!r}",
            [{"field": "rule_id", "value": rule_id, "message": "expected rule-<hex>"}],
        )


async def delete_rule(
    state: ServiceState, rule_id: str, *, enabled: bool | None = None, actor: str | None = None
) -> dict[str, Any]:
    """Remove a rule, or with ``enabled`` switch it (SPEC §5.6)."""
    check_rule_id(rule_id)

    def run() -> dict[str, Any]:
        with state.engine.begin() as conn:
            rule = conn.execute(
                select(CustomRule.__table__).where(
                    and_(CustomRule.tenant_id == state.tenant, CustomRule.id == rule_id)
                )
            ).first()
            if enabled is None:
                if rule is None:
                    return {"deleted": False, "rule_id": rule_id}
                conn.execute(delete(CustomRule).where(CustomRule.id == rule_id))
                _audit(conn, state, "rule.delete", rule, before=rule_to_api(rule), actor=actor)
                return {"deleted": True, "rule_id": rule_id}
            if rule is None:
                return {"deleted": False, "rule_id": rule_id, "toggled": False}
            if rule.enabled != enabled:
                before = rule_to_api(rule)
                conn.execute(
                    update(CustomRule)
                    .where(CustomRule.id == rule_id)
                    .values(enabled=enabled, updated_at=codec.utcnow())
                )
                rule = conn.execute(
                    select(CustomRule.__table__).where(CustomRule.id == rule_id)
                ).one()
                _audit(
                    conn,
                    state,
                    "rule.toggle",
                    rule,
                    before=before,
                    after=rule_to_api(rule),
                    actor=actor,
                )
            return {
                "deleted": False,
                "rule_id": rule_id,
                "toggled": True,
                "enabled": rule.enabled,
                "rule": rule_to_api(rule),
            }

    return await asyncio.to_thread(run)


@register_model
class PreviewBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    definition: DefinitionBody
    evalType: EvalType = "custom"
    windowDays: int = Field(default=7, ge=1, le=30)
    maxTraces: int = Field(default=1000, ge=1, le=5000)
    sampleOutput: str | None = Field(default=None, max_length=100_000)


def _rule_outcome(result: dict[str, Any], name: str) -> dict[str, Any]:
    for rule in result.get("rule_results", []):
        if rule.get("rule") == name or rule.get("ruleName") == name:
            return rule
    return {"verdict": "skipped", "skipped": True, "message": "rule did not run"}


async def preview_rule(state: ServiceState, payload: Any) -> dict[str, Any]:
    """Replay a definition over recent stored traces; writes nothing."""
    body = validate_args(PreviewBody, payload, what="preview request")
    definition = body.definition.model_dump(exclude_none=True)
    definition.pop("name", None)
    name = "preview"
    try:
        validate_definition({"name": name, "evalType": body.evalType, "definition": definition})
    except InvalidRuleConfig as exc:
        raise IrisError(
            "IRIS_INVALID_RULE_CONFIG",
            f"Rule definition rejected: {exc}",
            status=422,
            recovery=["Fix the definition; nothing was run."],
        ) from None
    since = codec.utcnow() - timedelta(days=body.windowDays)

    def load() -> list[Any]:
        with state.engine.connect() as conn:
            return list(
                conn.execute(
                    select(
                        Trace.trace_id,
                        Trace.agent_name,
                        Trace.timestamp,
                        Trace.output,
                        Trace.cost_usd,
                    )
                    .where(and_(Trace.tenant_id == state.tenant, Trace.timestamp >= since))
                    .order_by(Trace.timestamp.desc())
                    .limit(body.maxTraces)
                )
            )

    rows = await asyncio.to_thread(load)
    inline = {"name": name, **definition}
    requests = [
        EvaluationRequest(
            output=r.output or "", eval_type="custom", cost_usd=r.cost_usd, custom_rules=(inline,)
        )
        for r in rows
    ]
    results = await state.engine_pool.evaluate_many(requests, [])
    passed = failed = skipped = 0
    examples: list[dict[str, Any]] = []
    for row, result in zip(rows, results, strict=True):
        outcome = _rule_outcome(result, name)
        verdict = outcome.get("verdict")
        if verdict == "skipped" or outcome.get("skipped"):
            skipped += 1
        elif verdict == "pass" or outcome.get("passed"):
            passed += 1
        else:
            failed += 1
            if len(examples) < 5:
                examples.append(
                    {
                        "traceId": row.trace_id,
                        "agentName": row.agent_name,
                        "timestamp": codec.iso(row.timestamp),
                        "outputPreview": (row.output or "")[:200],
                    }
                )
    out: dict[str, Any] = {
        "tracesEvaluated": len(rows),
        "wouldPass": passed,
        "wouldFail": failed,
        "wouldSkip": skipped,
        "examples": examples,
        "windowSinceIso": codec.iso(since),
    }
    if body.sampleOutput is not None:
        [sample] = await state.engine_pool.evaluate_many(
            [
                EvaluationRequest(
                    output=body.sampleOutput, eval_type="custom", custom_rules=(inline,)
                )
            ],
            [],
        )
        outcome = _rule_outcome(sample, name)
        out["sample"] = {
            "passed": outcome.get("verdict") == "pass" or bool(outcome.get("passed")),
            "score": outcome.get("score"),
            "message": outcome.get("message"),
            "skipped": outcome.get("verdict") == "skipped" or bool(outcome.get("skipped")),
            "skipReason": outcome.get("skipReason") or outcome.get("skip_reason"),
        }
    return out


async def audit_entries(state: ServiceState, limit: int = 100) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        table = AuditEntry.__table__
        with state.engine.connect() as conn:
            total = conn.execute(
                select(func.count()).select_from(table).where(table.c.tenant_id == state.tenant)
            ).scalar_one()
            rows = conn.execute(
                select(table)
                .where(table.c.tenant_id == state.tenant)
                .order_by(table.c.id.desc())
                .limit(limit)
            )
            return {
                "total": int(total),
                "entries": [
                    {
                        "ts": codec.iso(r.ts),
                        "tenantId": r.tenant_id,
                        "action": r.action,
                        "ruleId": r.rule_id,
                        "ruleName": r.rule_name,
                        "traceId": r.trace_id,
                        "before": r.before,
                        "after": r.after,
                        "actor": r.actor,
                        "detail": r.detail,
                    }
                    for r in rows
                ],
            }

    return await asyncio.to_thread(run)
