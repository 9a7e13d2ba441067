"""The rule contract (SPEC §8.1): metadata, outcome and evidence helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from mypy_extensions import mypyc_attr

from evaluators.context import EvalContext

# The compiled outcome constructor (evaluators/_resultkernel.c); when the
# extension was not built, a call of the class with the same fields.
try:
    from evaluators._resultkernel import new_outcome as _new_outcome
except ImportError:  # pragma: no cover - depends on the build

    def _new_outcome(cls: type[Any], *fields: Any) -> Any:  # type: ignore[misc]
        return cls(*fields)


Kind = Literal["measurement", "detection", "inference", "judgment", "policy", "verification"]
Mechanism = Literal["formula", "pattern", "heuristic", "model", "external"]
SkipClass = Literal["not_applicable", "defeated", "config_invalid"]
MAX_EVIDENCE_ITEMS = 20


@mypyc_attr(native_class=False)  # compiled: see evaluators/_compiled.py
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


@mypyc_attr(native_class=False)  # compiled: see evaluators/_compiled.py
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


def _outcome(
    passed: bool,
    score: int | float,  # not float: compiled, an int would become one
    message: str,
    evidence: list[dict[str, Any]],
    skipped: bool,
    skip_class: SkipClass | None,
    skip_reason: str | None,
    saw: tuple[str, ...],
    value: dict[str, Any] | None,
    config_invalid: bool,
    lacked: tuple[str, ...],
    asked: bool,
) -> Outcome:
    """``Outcome(...)`` of these fields (``budget_exceeded`` False, ``notes``
    a new list), every field passed by position.

    Why: every rule returns an outcome on every evaluation, and in CPython
    3.11 a class call with keyword arguments packs them into a dict and
    unpacks them again for ``__init__`` (~5,300 instructions with one
    keyword, ~9,600 for a skip); by position it does not. Compiled, this
    also beat setting each slot on ``object.__new__(Outcome)``, which made
    one generic attribute store a field (-0.5 % of a worker's instructions).
    The C kernel's ``new_outcome`` stores the same fields in the slots without
    the class call and its interpreted ``__init__`` (~1,300 instructions an
    outcome); without the kernel, the class is called with them."""
    return _new_outcome(
        Outcome,
        passed,
        score,
        message,
        evidence,
        skipped,
        skip_class,
        skip_reason,
        saw,
        value,
        False,
        config_invalid,
        lacked,
        asked,
        [],
    )


def outcome(
    passed: bool,
    score: int | float,  # not float: compiled, an int would become one
    message: str,
    evidence: list[dict[str, Any]] | None = None,
    *,
    saw: tuple[str, ...] = (),
    value: dict[str, Any] | None = None,
    asked: bool = False,
) -> Outcome:
    """A judged (not skipped) outcome: ``Outcome(passed, score, message,
    evidence, saw=saw, value=value, asked=asked)``, a new evidence list when
    ``evidence`` is None; cheaper to build than the class call (``_outcome``)."""
    return _outcome(
        passed,
        score,
        message,
        [] if evidence is None else evidence,
        False,
        None,
        None,
        saw,
        value,
        False,
        (),
        asked,
    )


def skip(
    reason: str,
    skip_class: SkipClass = "not_applicable",
    lacked: tuple[str, ...] = (),
    saw: tuple[str, ...] = (),
) -> Outcome:
    """A rule that could not judge: never a pass (SPEC §3.9)."""
    return _outcome(
        False,
        0.0,
        f"Skipped: {reason}",
        [],
        True,
        skip_class,
        reason,
        saw,
        None,
        skip_class == "config_invalid",
        lacked,
        False,
    )


def span(source: str, start: int, end: int, label: str) -> dict[str, Any]:
    return {"type": "span", "source": source, "start": start, "end": end, "label": label}


def pattern(name: str, count: int) -> dict[str, Any]:
    return {"type": "pattern", "name": name, "count": count}


def tool_call(index: int, tool_name: str, label: str) -> dict[str, Any]:
    return {"type": "toolCall", "index": index, "toolName": tool_name, "label": label}


def count(
    stat: str, unit: str, value: int | float, threshold: Any = None, source: str | None = None
) -> dict[str, Any]:
    # one dict display each (not a display and two stores): same keys, same order
    if threshold is None:
        return {"type": "count", "stat": stat, "unit": unit, "value": value}
    return {
        "type": "count",
        "stat": stat,
        "unit": unit,
        "value": value,
        "threshold": threshold,
        "thresholdSource": source or "rule",
    }


def ratio_score(value: float, limit: float) -> float:
    """``min(value/limit, 0.99)`` — a shortfall never scores a full 1."""
    return min(value / limit, 0.99) if limit > 0 else 0.0
