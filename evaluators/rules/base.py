"""The rule contract (SPEC §8.1): metadata, outcome and evidence helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from evaluators.context import EvalContext

Kind = Literal["measurement", "detection", "inference", "judgment", "policy", "verification"]
Mechanism = Literal["formula", "pattern", "heuristic", "model", "external"]
SkipClass = Literal["not_applicable", "defeated", "config_invalid"]
MAX_EVIDENCE_ITEMS = 20


@dataclass(slots=True)
class Outcome:
    """What a rule returns; the engine stamps metadata and role on top."""

    passed: bool
    score: float
    message: str
    evidence: list[dict[str, Any]] = field(default_factory=list)
    skipped: bool = False
    skip_class: SkipClass | None = None
    skip_reason: str | None = None
    saw: tuple[str, ...] = ()
    value: dict[str, Any] | None = None
    budget_exceeded: bool = False
    config_invalid: bool = False
    lacked: tuple[str, ...] = ()
    asked: bool = False
    notes: list[str] = field(default_factory=list)


Check = Callable[[EvalContext], Outcome]


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """Declared metadata of one built-in rule plus its check function.

    ``requires`` are the needs whose absence makes the rule skip before
    ``check`` runs; ``needs`` is the full declared set reported to readers.
    """

    name: str
    bundle: str
    kind: Kind
    mechanism: Mechanism
    needs: tuple[str, ...]
    question: str
    classes: tuple[str, ...]
    weight: float
    critical: bool
    version: int
    formula: str
    description: str
    check: Check
    requires: tuple[str, ...] = ()
    labels: Literal["reader", "def"] = "def"


def skip(
    reason: str,
    skip_class: SkipClass = "not_applicable",
    lacked: tuple[str, ...] = (),
    saw: tuple[str, ...] = (),
) -> Outcome:
    """A rule that could not judge: never a pass (SPEC §3.9)."""
    return Outcome(
        passed=False,
        score=0.0,
        message=f"Skipped: {reason}",
        skipped=True,
        skip_class=skip_class,
        skip_reason=reason,
        lacked=lacked,
        saw=saw,
        config_invalid=skip_class == "config_invalid",
    )


def span(source: str, start: int, end: int, label: str) -> dict[str, Any]:
    return {"type": "span", "source": source, "start": start, "end": end, "label": label}


def pattern(name: str, count: int) -> dict[str, Any]:
    return {"type": "pattern", "name": name, "count": count}


def tool_call(index: int, tool_name: str, label: str) -> dict[str, Any]:
    return {"type": "toolCall", "index": index, "toolName": tool_name, "label": label}


def count(
    stat: str, unit: str, value: float, threshold: Any = None, source: str | None = None
) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "count", "stat": stat, "unit": unit, "value": value}
    if threshold is not None:
        ev["threshold"] = threshold
        ev["thresholdSource"] = source or "rule"
    return ev


def ratio_score(value: float, limit: float) -> float:
    """``min(value/limit, 0.99)`` — a shortfall never scores a full 1."""
    return min(value / limit, 0.99) if limit > 0 else 0.0
