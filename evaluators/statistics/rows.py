"""Plain input rows the comparisons read, built from stored evaluations.

The service loads evaluations (SPEC §3.4; the §5.2 shape that
``storage.evaluations.evaluation_to_api`` returns) and turns each into an
:class:`EvalRow` with :meth:`EvalRow.from_evaluation`; everything after that
is pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Outcome = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class RuleOutcome:
    """What one rule did in one evaluation.

    ``skipped`` means the rule did not run (not judged): it is neither a pass
    nor a fail and is left out of that rule's denominator.
    """

    rule: str
    outcome: Outcome
    critical: bool = False
    question: str | None = None

    @property
    def judged(self) -> bool:
        return self.outcome != "skipped"

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    @classmethod
    def from_result(cls, result: Mapping[str, Any]) -> RuleOutcome:
        """From one stored rule result (SPEC §10.9 object)."""
        name = str(result.get("ruleName") or result.get("rule") or "")
        verdict = result.get("verdict")
        outcome: Outcome
        if verdict == "skipped" or result.get("skipped"):
            outcome = "skipped"
        elif verdict == "pass":
            outcome = "passed"
        elif verdict == "fail":
            outcome = "failed"
        else:
            outcome = "passed" if result.get("passed") else "failed"
        q = result.get("question")
        return cls(name, outcome, bool(result.get("critical")), q if isinstance(q, str) else None)


@dataclass(frozen=True)
class EvalRow:
    """One stored evaluation, reduced to what the statistics need.

    ``state`` is the composed verdict state (``pass``/``fail``/``unknown``);
    ``unknown`` counts as *not checked*: in the denominator, not a failure.
    ``created_at`` is any sortable stamp (ISO 8601 string) used only to keep
    the most recent evaluation of a trace.
    """

    evaluation_id: str
    passed: bool
    state: str = ""
    trace_id: str | None = None
    case_key: str | None = None
    session_id: str | None = None
    run: str | None = None
    rules: tuple[RuleOutcome, ...] = ()
    agent_name: str | None = None
    engine_version: str | None = None
    ruleset_hash: str | None = None
    config_hash: str | None = None
    eval_type: str | None = None
    created_at: str = ""

    def __post_init__(self) -> None:
        if not self.state:
            object.__setattr__(self, "state", "pass" if self.passed else "fail")

    @property
    def not_checked(self) -> bool:
        return self.state == "unknown"

    def rule_map(self) -> dict[str, RuleOutcome]:
        """Rules by name (a repeated name keeps its last outcome)."""
        return {r.rule: r for r in self.rules}

    @classmethod
    def from_evaluation(cls, ev: Mapping[str, Any]) -> EvalRow:
        """Build from a stored evaluation in the SPEC §5.2 response shape."""
        verdict = ev.get("verdict") if isinstance(ev.get("verdict"), Mapping) else {}
        assert isinstance(verdict, Mapping)
        prov = ev.get("provenance") if isinstance(ev.get("provenance"), Mapping) else {}
        assert isinstance(prov, Mapping)
        passed = bool(ev.get("passed"))
        state = str(verdict.get("state") or ev.get("state") or ("pass" if passed else "fail"))
        results = ev.get("rule_results") or []
        created = ev.get("created_at")
        return cls(
            evaluation_id=str(ev.get("id") or ""),
            passed=passed,
            state=state,
            trace_id=ev.get("trace_id"),
            case_key=ev.get("case_key"),
            session_id=ev.get("session_id"),
            run=ev.get("run"),
            rules=tuple(RuleOutcome.from_result(r) for r in results if isinstance(r, Mapping)),
            agent_name=ev.get("agent_name"),
            engine_version=prov.get("irisVersion"),
            ruleset_hash=prov.get("rulesetHash"),
            config_hash=prov.get("configHash"),
            eval_type=ev.get("eval_type"),
            created_at="" if created is None else str(created),
        )


def collapse_latest(rows: Iterable[EvalRow]) -> tuple[list[EvalRow], int]:
    """One row per trace, the most recent winning (SPEC §12.3.1).

    Returns the kept rows (in their original order) and ``superseded``, the
    number of older evaluations collapsed away.  Rows without a trace id are
    all kept.  Ties on ``created_at`` go to the later row in the input.
    """
    items = list(rows)
    latest: dict[str, int] = {}
    for i, row in enumerate(items):
        if row.trace_id is None:
            continue
        j = latest.get(row.trace_id)
        if j is None or row.created_at >= items[j].created_at:
            latest[row.trace_id] = i
    keep = [row for i, row in enumerate(items) if row.trace_id is None or latest[row.trace_id] == i]
    return keep, len(items) - len(keep)
