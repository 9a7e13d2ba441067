"""The pure part of evaluate_runs (SPEC §5.12, §12.4).

Re-evaluating a run with today's rules writes into a *separate* run so a rule
change cannot masquerade as an agent change.  The target id is a pure
function of (source run, ruleset hash): repeating the call finds the same run,
and every trace whose latest verdict already came from the current ruleset is
skipped, so a repeat does no work.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

RULESET_DIGITS = 12
MAX_RUN_ID = 256


def reevaluation_run_id(source_run: str, ruleset_hash: str, *, digits: int = RULESET_DIGITS) -> str:
    """Default target run id ``<run>+reeval-<ruleset hash>``, stable across repeats.

    The hash is shortened to its first ``digits`` hex digits (collisions are
    irrelevant at that length, and ids stay readable); the source id is cut so
    the whole fits the 256-character run column.
    """
    if not source_run:
        raise ValueError("source run id must not be empty")
    if not ruleset_hash:
        raise ValueError("ruleset hash must not be empty")
    suffix = f"+reeval-{ruleset_hash[:digits]}"
    return source_run[: MAX_RUN_ID - len(suffix)] + suffix


@dataclass(frozen=True)
class ReevaluationPlan:
    """Which traces of the source run to evaluate again, and which are current."""

    source_run: str
    target_run: str
    ruleset_hash: str
    to_evaluate: tuple[str, ...]
    already_current: tuple[str, ...]

    @property
    def traces(self) -> int:
        return len(self.to_evaluate) + len(self.already_current)


def plan_reevaluation(
    source_run: str,
    trace_ids: Iterable[str],
    current_ruleset_hash: str,
    latest_ruleset_by_trace: Mapping[str, str | None],
    *,
    into: str | None = None,
) -> ReevaluationPlan:
    """Split the source run's traces into work and already-current.

    ``latest_ruleset_by_trace`` maps a trace id to the ruleset hash of its
    most recent evaluation (in any run, including the target); a trace whose
    latest verdict came from ``current_ruleset_hash`` is skipped and counted.
    Trace order is kept (first occurrence), duplicates dropped.
    """
    target = into or reevaluation_run_id(source_run, current_ruleset_hash)
    seen: set[str] = set()
    todo: list[str] = []
    current: list[str] = []
    for tid in trace_ids:
        if tid in seen:
            continue
        seen.add(tid)
        (current if latest_ruleset_by_trace.get(tid) == current_ruleset_hash else todo).append(tid)
    return ReevaluationPlan(source_run, target, current_ruleset_hash, tuple(todo), tuple(current))


@dataclass(frozen=True)
class ReevaluationOutcome:
    """What happened; :meth:`to_dict` is the evaluate_runs output (SPEC §5.12)."""

    plan: ReevaluationPlan
    evaluated: int
    passed: int
    failed: tuple[tuple[str, str], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        p = self.plan
        parts = [
            f"Re-evaluated {self.evaluated} of {p.traces} traces of run {p.source_run} "
            f"into run {p.target_run} with ruleset {p.ruleset_hash[:12]}; "
            f"{self.passed} passed."
        ]
        if p.already_current:
            parts.append(
                f"{len(p.already_current)} already carried a verdict from this "
                "ruleset and were skipped."
            )
        if self.failed:
            parts.append(f"{len(self.failed)} could not be scored (listed in failed).")
        parts.append(
            f"The source run is unchanged; compare_runs with before={p.source_run} and "
            f"after={p.target_run} measures the evaluator change, not the agent."
        )
        return {
            "source_run": p.source_run,
            "run": p.target_run,
            "ruleset_hash": p.ruleset_hash,
            "traces": p.traces,
            "evaluated": self.evaluated,
            "already_current": len(p.already_current),
            "failed": [{"trace_id": t, "reason": r} for t, r in self.failed],
            "passed": self.passed,
            "summary": " ".join(parts),
        }
