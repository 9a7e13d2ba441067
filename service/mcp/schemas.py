"""Output schemas of the MCP tools: what ``structuredContent`` holds.

Closed where the shape is ours to promise (required fields), open to extra
fields so a newer server can add information without breaking older clients.
"""

from __future__ import annotations

from typing import Any

NUM_OR_NULL = {"type": ["number", "null"]}
BOOL_OR_NULL = {"type": ["boolean", "null"]}
STR = {"type": "string"}
INT = {"type": "integer"}
ARRAY = {"type": "array"}
OBJ = {"type": "object"}


def _obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": sorted(required),
        "additionalProperties": True,
    }


EVALUATION = _obj(
    {
        "id": STR,
        "eval_type": {"enum": ["completeness", "relevance", "safety", "cost", "custom", "all"]},
        "score": NUM_OR_NULL,
        "passed": {"type": "boolean"},
        "rule_results": ARRAY,
        "suggestions": ARRAY,
        "rules_evaluated": INT,
        "rules_skipped": INT,
        "insufficient_data": {"type": "boolean"},
    },
    {
        "trace_id": STR,
        "verdict": OBJ,
        "coverage": OBJ,
        "provenance": OBJ,
        "critical_failures": ARRAY,
        "critical_skipped": ARRAY,
        "categories": {"type": ["object", "null"]},
        "note": STR,
        "interpretations": ARRAY,
    },
)

RULE = _obj(
    {
        "id": STR,
        "name": STR,
        "evalType": STR,
        "severity": STR,
        "definition": OBJ,
        "enabled": {"type": "boolean"},
        "version": INT,
    },
    {"description": {"type": ["string", "null"]}, "createdAt": STR, "updatedAt": STR},
)

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    "log_trace": _obj(
        {
            "trace_id": {"type": "string", "pattern": "^[0-9a-f]{32}$"},
            "status": {"const": "stored"},
        },
        {"evaluation": EVALUATION},
    ),
    "evaluate_output": EVALUATION,
    "get_traces": _obj(
        {"traces": ARRAY, "total": INT, "limit": INT, "offset": INT},
        {"summary": OBJ, "search": OBJ},
    ),
    "list_rules": _obj(
        {
            "rules": {"type": "array", "items": RULE},
            "total": INT,
            "enabled_count": INT,
            "built_in": ARRAY,
            "quarantined": ARRAY,
            "plugins": ARRAY,
        }
    ),
    "deploy_rule": _obj({"rule": RULE}, {"replaced": ARRAY, "warning": STR}),
    "delete_rule": _obj(
        {"deleted": {"type": "boolean"}, "rule_id": STR},
        {"toggled": {"type": "boolean"}, "enabled": {"type": "boolean"}, "rule": RULE},
    ),
    "delete_trace": _obj({"deleted": {"type": "boolean"}, "trace_id": STR}),
    "evaluate_with_llm_judge": _obj(
        {
            "id": STR,
            "score": {"type": "number"},
            "passed": {"type": "boolean"},
            "pass_threshold": {"type": "number"},
            "rationale": STR,
            "dimensions": OBJ,
            "model": STR,
            "provider": {"enum": ["anthropic", "openai"]},
            "template": STR,
            "input_tokens": INT,
            "output_tokens": INT,
            "cost_usd": NUM_OR_NULL,
            "latency_ms": {"type": "number"},
        }
    ),
    "verify_citations": _obj(
        {
            "id": STR,
            "overall_score": NUM_OR_NULL,
            "passed": BOOL_OR_NULL,
            "total_unsupported": INT,
            "total_citations_found": INT,
            "total_resolved": INT,
            "total_judged": INT,
            "total_supported": INT,
            "total_cost_usd": {"type": "number"},
            "citations": ARRAY,
        }
    ),
    "compare_runs": _obj(
        {
            "comparable": {"type": "boolean"},
            "call": {"enum": ["worse", "better", "equivalent", "undetermined", None]},
            "before": OBJ,
            "after": OBJ,
            "summary": STR,
        },
        {"regressions": ARRAY, "improvements": ARRAY, "paired": {"type": ["object", "null"]}},
    ),
    "compare_traces": _obj(
        {
            "case_key": {"type": ["string", "null"]},
            "group_by": {"enum": ["case_key", "session"]},
            "question": {"type": ["string", "null"]},
            "cases": INT,
            "attempts": INT,
            "overall": {"type": ["object", "null"]},
            "pooled": {"type": ["object", "null"]},
            "flaky_cases": ARRAY,
            "by_case": ARRAY,
            "summary": STR,
        }
    ),
    "evaluate_runs": _obj(
        {
            "source_run": STR,
            "run": STR,
            "ruleset_hash": STR,
            "traces": INT,
            "evaluated": INT,
            "already_current": INT,
            "failed": ARRAY,
            "passed": INT,
            "summary": STR,
        }
    ),
}
