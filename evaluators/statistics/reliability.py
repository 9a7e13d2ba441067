"""compare_traces: how reliably the agent handles one and the same case (SPEC §12.2, §5.11).

Repeats of one case are not independent evidence about the agent: asking one
question ten times and passing ten times says little about the next
*question*.  So the headline rate counts every distinct case **once**, at its
own pass rate (k = Σ rate_c over n cases, fractional), with an exact
Clopper–Pearson interval; the naive pooled rate over all attempts is shown
beside it and flagged when it is narrower than the data supports (SPEC
Appendix A-5).  Each case gets a Wilson interval on its own repeats.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from evaluators.statistics.intervals import Interval, clopper_pearson_interval, wilson_interval
from evaluators.statistics.rows import EvalRow
from evaluators.stats import r4

GroupBy = Literal["case_key", "session"]
QUESTIONS = (
    "safe_output",
    "grounded",
    "complete",
    "relevant",
    "task_completed",
    "tool_use_correct",
    "within_budget",
)


def _iv(iv: Interval | None) -> dict[str, float] | None:
    return None if iv is None else {"lo": r4(iv.lo), "hi": r4(iv.hi)}


@dataclass(frozen=True)
class RateInterval:
    """A rate with its interval (``{rate, lo, hi}`` in the output)."""

    rate: float
    lo: float
    hi: float

    def to_dict(self) -> dict[str, float]:
        return {"rate": r4(self.rate), "lo": r4(self.lo), "hi": r4(self.hi)}


@dataclass(frozen=True)
class CaseReliability:
    """One case: its repeats, pass rate, Wilson 95% interval, flakiness, runs."""

    case_key: str
    attempts: int
    passed: int
    interval: Interval | None
    runs: tuple[str, ...]

    @property
    def rate(self) -> float:
        return self.passed / self.attempts

    @property
    def flaky(self) -> bool:
        """Went both ways: ``0 < passed < attempts``."""
        return 0 < self.passed < self.attempts

    def to_dict(self) -> dict[str, Any]:
        return {
            "case_key": self.case_key,
            "attempts": self.attempts,
            "passed": self.passed,
            "rate": r4(self.rate),
            "interval": _iv(self.interval),
            "flaky": self.flaky,
            "runs": list(self.runs),
        }


@dataclass(frozen=True)
class TraceReliability:
    """The compare_traces result (SPEC §5.11 output)."""

    case_key: str | None
    group_by: GroupBy
    question: str | None
    by_case: tuple[CaseReliability, ...]
    attempts: int
    overall: RateInterval | None
    pooled: RateInterval | None
    pooled_narrower: bool
    summary: str
    flaky_cases: tuple[CaseReliability, ...] = field(default=())

    @property
    def cases(self) -> int:
        return len(self.by_case)

    def to_dict(self) -> dict[str, Any]:
        pooled = None
        if self.pooled is not None:
            pooled = {**self.pooled.to_dict(), "narrower": self.pooled_narrower}
        return {
            "case_key": self.case_key,
            "group_by": self.group_by,
            "question": self.question,
            "cases": self.cases,
            "attempts": self.attempts,
            "overall": None if self.overall is None else self.overall.to_dict(),
            "pooled": pooled,
            "flaky_cases": [c.to_dict() for c in self.flaky_cases],
            "by_case": [c.to_dict() for c in self.by_case],
            "summary": self.summary,
        }


def attempt_passed(row: EvalRow, question: str | None) -> bool | None:
    """Did this attempt pass?  ``None`` when it did not judge ``question``.

    Without a question: the composed verdict.  With one: every rule answering
    that question that ran must have passed (the composed verdict is not used).
    """
    if question is None:
        return row.passed
    judged = [r for r in row.rules if r.question == question and r.judged]
    if not judged:
        return None
    return all(not r.failed for r in judged)


def _pct(x: float) -> str:
    return f"{100.0 * x:.1f}%"


def _summary(
    by_case: list[CaseReliability],
    flaky: list[CaseReliability],
    attempts: int,
    overall: RateInterval | None,
    pooled: RateInterval | None,
    narrower: bool,
    group_by: GroupBy,
    question: str | None,
) -> str:
    unit = "session" if group_by == "session" else "case"
    if not by_case:
        if group_by == "session":
            return (
                "No evaluations with a session id matched. Pass session_id on log_trace, "
                "or send SEP-414 baggage (or gen_ai.conversation.id over OTLP), so turns "
                "of one conversation can be grouped."
            )
        return (
            "No evaluations with a case key matched. Pass case_key on log_trace (or send "
            "an input, from which a case key is derived) and evaluate the repeats, then "
            "ask again."
        )
    assert overall is not None and pooled is not None
    scope = f" on question {question}" if question else ""
    parts = [
        f"{len(by_case)} {unit}{'s' if len(by_case) != 1 else ''}, {attempts} attempts{scope}.",
        f"Pass rate over distinct {unit}s {_pct(overall.rate)} "
        f"(exact 95% interval {_pct(overall.lo)}–{_pct(overall.hi)}), each {unit} counted once.",
    ]
    if narrower:
        parts.append(
            f"The pooled reading over all attempts, {_pct(pooled.rate)} "
            f"({_pct(pooled.lo)}–{_pct(pooled.hi)}), is narrower than the data supports: "
            f"repeats of one {unit} are not independent {unit}s."
        )
    if flaky:
        shown = ", ".join(f"{c.case_key} ({c.passed}/{c.attempts})" for c in flaky[:3])
        more = f" and {len(flaky) - 3} more" if len(flaky) > 3 else ""
        parts.append(f"{len(flaky)} flaky (went both ways): {shown}{more}.")
    else:
        parts.append("Nothing visibly flaky.")
    return " ".join(parts)


def compare_traces(
    rows: Iterable[EvalRow],
    *,
    run: str | None = None,
    session: str | None = None,
    case_key: str | None = None,
    group_by: GroupBy = "case_key",
    question: str | None = None,
    min_attempts: int = 1,
) -> TraceReliability:
    """Repeat reliability per case and over distinct cases (SPEC §12.2).

    ``rows`` are evaluations (not collapsed: every attempt counts).  Filters
    ``run``/``session``/``case_key`` narrow them as the tool's inputs do;
    ``group_by='session'`` groups turns by session id.  With ``question`` only
    evaluations that judged it count and pass means every rule answering it
    passed.  Cases with fewer than ``min_attempts`` attempts are dropped.
    """
    if group_by not in ("case_key", "session"):
        raise ValueError(f"group_by must be case_key or session, got {group_by!r}")
    if question is not None and question not in QUESTIONS:
        raise ValueError(f"unknown question {question!r}")
    if min_attempts < 1:
        raise ValueError("min_attempts must be at least 1")
    groups: dict[str, list[tuple[bool, str | None]]] = {}
    for row in rows:
        if run is not None and row.run != run:
            continue
        if session is not None and row.session_id != session:
            continue
        if case_key is not None and row.case_key != case_key:
            continue
        key = row.session_id if group_by == "session" else row.case_key
        if key is None:
            continue
        ok = attempt_passed(row, question)
        if ok is None:
            continue
        groups.setdefault(key, []).append((ok, row.run))
    cases: list[CaseReliability] = []
    for key, tries in groups.items():
        if len(tries) < min_attempts:
            continue
        passed = sum(1 for ok, _ in tries if ok)
        runs = tuple(sorted({r for _, r in tries if r is not None}))
        cases.append(
            CaseReliability(key, len(tries), passed, wilson_interval(passed, len(tries)), runs)
        )
    cases.sort(key=lambda c: (c.rate, c.case_key))
    flaky = [c for c in cases if c.flaky]
    attempts = sum(c.attempts for c in cases)
    overall = pooled = None
    narrower = False
    if cases:
        k = sum(c.rate for c in cases)
        cp = clopper_pearson_interval(k, len(cases))
        total_passed = sum(c.passed for c in cases)
        wl = wilson_interval(total_passed, attempts)
        assert cp is not None and wl is not None
        overall = RateInterval(cp.point, cp.lo, cp.hi)
        pooled = RateInterval(wl.point, wl.lo, wl.hi)
        narrower = wl.width < cp.width
    summary = _summary(cases, flaky, attempts, overall, pooled, narrower, group_by, question)
    return TraceReliability(
        case_key=case_key,
        group_by=group_by,
        question=question,
        by_case=tuple(cases),
        attempts=attempts,
        overall=overall,
        pooled=pooled,
        pooled_narrower=narrower,
        summary=summary,
        flaky_cases=tuple(flaky),
    )
