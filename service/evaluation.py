"""Running the engine for the service: stored traces in, stored verdicts out.

One place builds the engine's inputs from storage and stores its results,
for the worker pool and for the synchronous paths alike.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, select

from evaluators.config import EngineConfig
from evaluators.custom.definition import CustomRuleDef, revalidate
from evaluators.engine import evaluate_for_storage
from evaluators.model import (
    AgentTrace,
    ExpectedToolCall,
    ExpectedTrajectory,
    Span,
    SpanEvent,
    TokenUsage,
    ToolCall,
    ToolDef,
)
from evaluators.request import EvaluationRequest
from service.version import iris_version
from storage import codec, ruleprofiles
from storage.models import CustomRule

EVAL_TYPES = ("completeness", "relevance", "safety", "cost", "custom", "all")


@functools.cache
def _base_config() -> EngineConfig:
    return EngineConfig(iris_version=iris_version())


def engine_config(judged_at: str | None = None) -> EngineConfig:
    """The engine settings. Validating them costs more than a whole rule, so
    the instance is built once; the clock normally travels on the request
    (``EvaluationRequest.judged_at``) and a config is rebuilt only when a
    caller insists on stamping the config itself."""
    if judged_at is None:
        return _base_config()
    return dataclasses.replace(_base_config(), judged_at=judged_at)


def now_iso() -> str:
    return _now_iso()


def _now_iso() -> str:
    return codec.iso(codec.utcnow()) or ""


# ``ToolCall``'s fields after ``tool_name``, in its positional order.
_TOOL_CALL_REST: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ToolCall))[1:]


def _tool_call(data: Any) -> ToolCall:
    # Positional, the values fetched in C: a dict of keywords built per call
    # cost more than the call itself. ``data`` is a stored item, not always
    # a dict (a damaged row then fails as it always did, not on a type check).
    return ToolCall(str(data.get("tool_name", "")), *map(data.get, _TOOL_CALL_REST))


def trace_from_row(
    row: Mapping[str, Any], span_rows: Sequence[Mapping[str, Any]] = ()
) -> AgentTrace:
    """Rebuild the engine's trace model from a stored ``traces`` row and, when
    its tool calls were not derived, its ``spans`` rows.

    Rows come as mappings (``row._mapping`` or a dict): an attribute of a
    SQLAlchemy row costs ~1 µs without its C extension, a key ~0.1 µs."""
    usage = None
    if row["prompt_tokens"] is not None or row["completion_tokens"] is not None:
        usage = TokenUsage(row["prompt_tokens"], row["completion_tokens"], row["total_tokens"])
    trajectory = None
    if et := row["expected_trajectory"]:
        trajectory = ExpectedTrajectory(
            tool_calls=tuple(
                ExpectedToolCall(c["tool_name"], c.get("input")) for c in et.get("tool_calls", ())
            ),
            mode=et.get("mode", "ordered_subset"),
            args=et.get("args", "subset"),
            step_budget=et.get("step_budget"),
            tolerance=et.get("tolerance", 1.5),
        )
    tool_calls, tools = row["tool_calls"], row["tools"]
    return AgentTrace(
        agent_name=row["agent_name"],
        framework=row["framework"],
        input=row["input"],
        output=row["output"],
        tool_calls=None if tool_calls is None else tuple(_tool_call(c) for c in tool_calls),
        latency_ms=row["latency_ms"],
        token_usage=usage,
        cost_usd=row["cost_usd"],
        cost_source=row["cost_source"],
        metadata=row["metadata"] or {},
        spans=tuple(_span(s) for s in span_rows),
        tools=None
        if tools is None
        else tuple(
            ToolDef(t["name"], t.get("description"), t.get("inputSchema"), t.get("annotations"))
            for t in tools
        ),
        run=row["run"],
        case_key=row["case_key"],
        session_id=row["session_id"],
        expected_trajectory=trajectory,
        timestamp=codec.iso(row["timestamp"]),
    )


def trace_from_derivation(
    derived: AgentTrace, fields: Mapping[str, Any], span_rows: Sequence[Mapping[str, Any]] = ()
) -> AgentTrace:
    """``trace_from_row`` of the row a fresh derivation stores (the trace row
    updated with ``fields``, ``storage.codec.agent_fields`` of ``derived``),
    taken from the derivation's own objects.

    ``fields`` holds the derivation's tool calls and tool definitions as the
    dicts storage serialises; ``trace_from_row`` rebuilt the same objects from
    them (~60,000 instructions a trace). What the row does not keep is left
    out here too: a usage with neither prompt nor completion count."""
    usage = derived.token_usage
    if usage is not None and usage.prompt_tokens is None and usage.completion_tokens is None:
        usage = None
    return AgentTrace(
        agent_name=derived.agent_name,
        framework=derived.framework,
        input=derived.input,
        output=derived.output,
        tool_calls=derived.tool_calls,
        latency_ms=derived.latency_ms,
        token_usage=usage,
        cost_usd=derived.cost_usd,
        cost_source=derived.cost_source,
        metadata=fields["metadata"] or {},
        spans=tuple(_span(s) for s in span_rows),
        tools=derived.tools,
        run=derived.run,
        case_key=derived.case_key,
        session_id=derived.session_id,
        expected_trajectory=derived.expected_trajectory,
        # The row's timestamp is the derivation's, parsed (``codec.iso`` of it
        # gives the same text back), or the time of the derivation.
        timestamp=derived.timestamp or codec.iso(fields["timestamp"]),
    )


_SPAN_KINDS = frozenset(("LLM", "TOOL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER"))


def _span(s: Mapping[str, Any]) -> Span:
    """The engine's span model of a stored ``spans`` row."""
    kind, status = s["iris_kind"], s["status_code"]
    return Span(
        name=s["name"],
        span_id=s["span_id"],
        parent_span_id=s["parent_span_id"],
        kind=kind if kind in _SPAN_KINDS else "INTERNAL",
        status_code=status if status in ("OK", "ERROR") else "UNSET",
        status_message=s["status_message"],
        start_time=codec.ns_to_iso(s["start_unix_nano"]),
        end_time=codec.ns_to_iso(s["end_unix_nano"]),
        attributes=s["attributes"] or {},
        events=tuple(
            SpanEvent(e.get("name", ""), None, e.get("attributes") or {}) for e in s["events"] or ()
        ),
    )


class DeployedRules:
    """The tenant's enabled custom rules, re-read at most every ``ttl_s``."""

    def __init__(self, ttl_s: float = 2.0):
        self.ttl_s = ttl_s
        self._cache: dict[str, tuple[float, list[CustomRuleDef]]] = {}

    def get(self, conn: Connection, tenant_id: str) -> list[CustomRuleDef]:
        cached = self._cache.get(tenant_id)
        if cached is not None and time.monotonic() - cached[0] < self.ttl_s:
            return cached[1]
        rules = load_deployed(conn, tenant_id)
        self._cache[tenant_id] = (time.monotonic(), rules)
        return rules

    def invalidate(self) -> None:
        self._cache.clear()


def load_deployed(conn: Connection, tenant_id: str) -> list[CustomRuleDef]:
    valid, _quarantined = revalidate(deployed_entries(conn, tenant_id))
    return valid


def deployed_entries(conn: Connection, tenant_id: str) -> list[dict[str, Any]]:
    """The tenant's enabled, unquarantined custom rules as stored entries."""
    # SQLAlchemy's types call a row a tuple; it is a Row (compiled code checks).
    rows: Iterable[Any] = conn.execute(
        select(CustomRule.__table__).where(
            CustomRule.tenant_id == tenant_id,
            CustomRule.enabled.is_(True),
            CustomRule.quarantine_reason.is_(None),
        )
    )
    entries = [
        {
            "id": r.id,
            "name": r.name,
            "description": r.description,
            "evalType": r.eval_type,
            "severity": r.severity,
            "definition": r.definition,
            "enabled": r.enabled,
        }
        for r in rows
    ]
    return entries


def judge_trace(
    trace: AgentTrace, eval_type: str | None, deployed: Sequence[CustomRuleDef]
) -> dict[str, Any]:
    """Evaluate one stored trace with the deployed rules, stamped now, for
    storing: the result is read-only and its rule results may come apart
    from their rules' descriptions (``evaluate_for_storage``), as
    ``storage.ruleprofiles`` stores them; read as a sequence they are the
    whole results ``evaluate`` gives."""
    request = EvaluationRequest.from_trace(
        trace, eval_type=eval_type if eval_type in EVAL_TYPES else None, judged_at=_now_iso()
    )
    return evaluate_for_storage(
        request, engine_config(), deployed, static_keys=ruleprofiles.STATIC_KEYS
    )


def unknown_result(eval_type: str | None, reason: str) -> dict[str, Any]:
    """What is stored when a job failed for good: a verdict of ``unknown``
    that names the internal error, never a pass."""
    return {
        "eval_type": eval_type if eval_type in EVAL_TYPES else "all",
        "score": None,
        "passed": False,
        "verdict": {
            "state": "unknown",
            "passed": False,
            "basis": "internal_error",
            "by": [],
            "also": [],
            "risk": None,
        },
        "rule_results": [],
        "suggestions": [],
        "rules_evaluated": 0,
        "rules_skipped": 0,
        "insufficient_data": True,
        "critical_failures": [],
        "critical_skipped": [],
        "note": f"Evaluation failed after repeated attempts: {reason}",
    }
