"""Closed input models of the operations that have no REST body model.

Tools whose REST twin already validates a body (log_trace, evaluate_output,
get_traces, deploy_rule) reuse that model, so both doors refuse the same
input the same way.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from receivers.native import ToolCallBody, register_model, validation_details
from service.errors import invalid_argument

Model = TypeVar("Model", bound=BaseModel)


def validate_args(model: type[Model], payload: Any, *, what: str = "arguments") -> Model:
    """Validate an operation's input (a body, a query, tool arguments) against
    its closed model; refuse naming each bad field, its value and, for an
    unknown key, the valid ones. Every door refuses the same way through here."""
    if not isinstance(payload, dict):
        raise invalid_argument(
            f"Invalid {what}: expected a JSON object.",
            [{"field": "(body)", "message": "expected a JSON object"}],
        )
    try:
        return model.model_validate(payload)
    except ValidationError as exc:
        details = validation_details(exc, model)
        raise invalid_argument(
            f"Invalid {what}: " + "; ".join(f"{d['field']}: {d['message']}" for d in details),
            details,
        ) from None


EvalBundle = Literal["completeness", "relevance", "safety", "cost", "custom"]
Question = Literal[
    "safe_output",
    "grounded",
    "complete",
    "relevant",
    "task_completed",
    "tool_use_correct",
    "within_budget",
]
TRACE_ID = r"^[0-9a-f]{32}$"
RULE_ID = r"^rule-[0-9a-f]{8,32}$"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


@register_model
class ListRulesArgs(_Closed):
    eval_type: EvalBundle | None = None
    enabled_only: bool = False


@register_model
class DeleteRuleArgs(_Closed):
    rule_id: str = Field(pattern=RULE_ID)
    enabled: bool | None = None


@register_model
class DeleteTraceArgs(_Closed):
    trace_id: str = Field(pattern=TRACE_ID)


@register_model
class JudgeArgs(_Closed):
    output: str
    template: Literal[
        "accuracy",
        "helpfulness",
        "safety",
        "correctness",
        "faithfulness",
        "task_completed",
        "relevance",
    ]
    model: str = Field(min_length=1)
    provider: Literal["anthropic", "openai"] | None = None
    input: str | None = None
    expected: str | None = None
    source_material: str | None = None
    trace_id: str | None = Field(default=None, pattern=TRACE_ID)
    max_cost_usd: float | None = Field(default=None, gt=0)
    max_output_tokens: int = Field(default=512, ge=1, le=32000)
    temperature: float = Field(default=0, ge=0, le=2)
    timeout_ms: int = Field(default=60000, ge=1000, le=600000)
    tool_calls: list[ToolCallBody] | None = None


@register_model
class CitationsArgs(_Closed):
    output: str
    model: str = Field(min_length=1)
    provider: Literal["anthropic", "openai"] | None = None
    trace_id: str | None = Field(default=None, pattern=TRACE_ID)
    allow_fetch: bool | None = None
    domain_allowlist: list[str] | None = None
    max_citations: int = Field(default=20, ge=1, le=50)
    max_cost_usd_total: float = Field(default=1.0, gt=0)
    per_source_max_bytes: int = Field(default=5 * 1024 * 1024, ge=1)
    per_source_timeout_ms: int = Field(default=10000, ge=100)


@register_model
class CompareRunsArgs(_Closed):
    after: str = Field(min_length=1)
    before: str | None = Field(default=None, min_length=1)
    force: bool = False
    equivalence_margin: float | None = Field(default=None, gt=0, le=1)
    dataset: str | None = Field(default=None, min_length=1)


@register_model
class CompareTracesArgs(_Closed):
    run: str | None = Field(default=None, min_length=1)
    session: str | None = Field(default=None, min_length=1)
    case_key: str | None = Field(default=None, min_length=1)
    group_by: Literal["case_key", "session"] = "case_key"
    question: Question | None = None
    min_attempts: int = Field(default=1, ge=1)


@register_model
class EvaluateRunsArgs(_Closed):
    run: str = Field(min_length=1)
    into: str | None = Field(default=None, min_length=1)
    label: str | None = Field(default=None, min_length=1)
