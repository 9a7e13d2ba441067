"""Validation of the native trace body (``POST /api/v1/traces``, ``log_trace``).

Strict on purpose: an unknown key is refused and the refusal lists the valid
keys, because a misspelled ``err`` on a tool call must never silently drop
the failure it carried (SPEC §3.2).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

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

EvalType = Literal["completeness", "relevance", "safety", "cost", "custom", "all"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ToolCallBody(_Strict):
    tool_name: str = Field(min_length=1)
    input: Any = None
    output: Any = None
    latency_ms: float | None = Field(default=None, ge=0)
    error: str | None = None
    cost_usd: float | None = Field(default=None, ge=0)
    started_at: str | None = None


class TokenUsageBody(_Strict):
    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)
    total_tokens: int | None = Field(default=None, ge=0)


class SpanEventBody(_Strict):
    name: str
    timestamp: str
    attributes: dict[str, Any] | None = None


class SpanBody(_Strict):
    span_id: str | None = None
    parent_span_id: str | None = None
    name: str = Field(min_length=1)
    kind: Literal["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER", "LLM", "TOOL"] = (
        "INTERNAL"
    )
    status_code: Literal["UNSET", "OK", "ERROR"] = "UNSET"
    status_message: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    attributes: dict[str, Any] | None = None
    events: list[SpanEventBody] | None = None


class ToolDefBody(_Strict):
    name: str = Field(min_length=1)
    description: str | None = None
    inputSchema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None


class ExpectedCallBody(_Strict):
    tool_name: str = Field(min_length=1)
    input: Any = None


class ExpectedTrajectoryBody(_Strict):
    tool_calls: list[ExpectedCallBody]
    mode: Literal["strict", "unordered", "subset", "superset", "ordered_subset"] = "ordered_subset"
    args: Literal["exact", "subset"] = "subset"
    step_budget: int | None = Field(default=None, ge=1)
    tolerance: float = Field(default=1.5, ge=1)


class TraceBody(_Strict):
    """The log_trace contract (SPEC §5.1) plus the HTTP-only fields (§7.2)."""

    agent_name: str = Field(min_length=1, max_length=256)
    framework: str | None = Field(default=None, max_length=128)
    input: str | None = None
    output: str | None = None
    tool_calls: list[ToolCallBody] | None = None
    latency_ms: float | None = Field(default=None, ge=0)
    token_usage: TokenUsageBody | None = None
    cost_usd: float | None = Field(default=None, ge=0)
    metadata: dict[str, Any] | None = None
    spans: list[SpanBody] | None = None
    timestamp: str | None = None
    tools: list[ToolDefBody] | None = None
    run: str | None = Field(default=None, min_length=1, max_length=256)
    case_key: str | None = Field(default=None, min_length=1, max_length=256)
    session_id: str | None = Field(default=None, min_length=1, max_length=256)
    evaluate: bool = False
    eval_type: EvalType | None = None
    expected_trajectory: ExpectedTrajectoryBody | None = None

    @field_validator("timestamp")
    @classmethod
    def _iso_timestamp(cls, value: str | None) -> str | None:
        if value is not None:
            parse_iso_timestamp(value)
        return value


def parse_iso_timestamp(value: str) -> datetime:
    """Parse ISO 8601 (``Z`` allowed) to a naive UTC datetime; ValueError otherwise."""
    text = value.strip()
    if not text:
        raise ValueError("empty timestamp")
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


class NativeValidationError(Exception):
    """A refused body: ``details`` names each bad field, its value and the fix."""

    def __init__(self, details: list[dict[str, Any]]):
        super().__init__("invalid trace payload")
        self.details = details


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _valid_keys_at(loc: tuple[int | str, ...], root: type[BaseModel]) -> list[str]:
    """The keys accepted at the object that holds ``loc``'s last key."""
    model: Any = root
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field_info = model.model_fields.get(part) if hasattr(model, "model_fields") else None
        if field_info is None:
            return []
        model = _model_in(field_info.annotation)
        if model is None:
            return []
    return sorted(model.model_fields) if hasattr(model, "model_fields") else []


def _model_in(annotation: Any) -> Any:
    """Find the pydantic model inside ``X | None`` or ``list[X]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def validation_details(
    exc: ValidationError, root: type[BaseModel] | None = None
) -> list[dict[str, Any]]:
    """Pydantic errors as ``details`` entries; unknown keys list the valid ones
    of the object they appeared in (``root`` is the model that was validated)."""
    root = root or _model_of(exc)
    details: list[dict[str, Any]] = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        item: dict[str, Any] = {"field": _location(loc), "message": err["msg"]}
        if err["type"] == "extra_forbidden":
            valid = _valid_keys_at(loc, root)
            item["message"] = f"unknown key {loc[-1]!r}; valid keys: {', '.join(valid)}"
            item["valid"] = valid
        if "input" in err and err["type"] != "missing":
            item["value"] = _short(err["input"])
        details.append(item)
    return details


_MODELS: dict[str, type[BaseModel]] = {}


def register_model(model: type[BaseModel]) -> type[BaseModel]:
    """Make a body model findable by its name from a ValidationError."""
    _MODELS[model.__name__] = model
    return model


def _model_of(exc: ValidationError) -> type[BaseModel]:
    return _MODELS.get(exc.title, TraceBody)


register_model(TraceBody)


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 200:
        return value[:200] + "…"
    if isinstance(value, dict | list):
        return type(value).__name__
    return value


def parse_trace_body(data: Any) -> TraceBody:
    """Validate a decoded JSON body; raise NativeValidationError naming fields."""
    if not isinstance(data, dict):
        raise NativeValidationError(
            [
                {
                    "field": "(body)",
                    "message": "the body must be a JSON object",
                    "value": _short(data),
                }
            ]
        )
    if "trace_id" in data:
        raise NativeValidationError(
            [
                {
                    "field": "trace_id",
                    "message": "trace_id is minted by the server; remove it from the body",
                    "value": _short(data["trace_id"]),
                }
            ]
        )
    try:
        return TraceBody.model_validate(data)
    except ValidationError as exc:
        raise NativeValidationError(validation_details(exc)) from None


def to_agent_trace(body: TraceBody, *, now: datetime) -> AgentTrace:
    """Convert a validated body into the engine's trace model."""
    timestamp = parse_iso_timestamp(body.timestamp) if body.timestamp else now
    iso = timestamp.isoformat(timespec="microseconds") + "Z"
    spans = tuple(
        Span(
            name=s.name,
            span_id=s.span_id,
            parent_span_id=s.parent_span_id,
            kind=s.kind,
            status_code=s.status_code,
            status_message=s.status_message,
            start_time=s.start_time or iso,
            end_time=s.end_time,
            attributes=dict(s.attributes or {}),
            events=tuple(
                SpanEvent(e.name, e.timestamp, dict(e.attributes or {})) for e in s.events or ()
            ),
        )
        for s in body.spans or ()
    )
    trajectory = None
    if body.expected_trajectory is not None:
        et = body.expected_trajectory
        trajectory = ExpectedTrajectory(
            tool_calls=tuple(ExpectedToolCall(c.tool_name, c.input) for c in et.tool_calls),
            mode=et.mode,
            args=et.args,
            step_budget=et.step_budget,
            tolerance=et.tolerance,
        )
    return AgentTrace(
        agent_name=body.agent_name,
        framework=body.framework,
        input=body.input,
        output=body.output,
        tool_calls=None
        if body.tool_calls is None
        else tuple(ToolCall(**c.model_dump()) for c in body.tool_calls),
        latency_ms=body.latency_ms,
        token_usage=TokenUsage(**body.token_usage.model_dump()) if body.token_usage else None,
        cost_usd=body.cost_usd,
        cost_source="reported" if body.cost_usd is not None else None,
        metadata=dict(body.metadata or {}),
        spans=spans,
        tools=None
        if body.tools is None
        else tuple(
            ToolDef(t.name, t.description, t.inputSchema, t.annotations) for t in body.tools
        ),
        run=body.run,
        case_key=body.case_key,
        session_id=body.session_id,
        expected_trajectory=trajectory,
        timestamp=iso,
    )
