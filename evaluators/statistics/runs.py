"""compare_runs: did this change make the agent worse? (SPEC §12.3, §5.10)

Two stored runs, one evaluation per trace (most recent wins), are compared:

* **Comparability** first (§12.3.2): runs judged by different rulesets,
  configs, engine minor versions or eval types, or of different single agents,
  measured different things; the comparison is refused (:class:`IncomparableRuns`)
  unless ``force``.  A re-evaluation compared with its source (§12.4) is
  allowed and said to measure the evaluator, not the agent.
* **Paired** when the runs share case keys: McNemar's exact test on the
  discordant cases; **unpaired** otherwise: Newcombe's hybrid score interval.
  The difference interval is printed at 90% so it excludes 0 exactly when the
  one-sided 5% test fires (Appendix A-4); ``difference_95`` is given too.
* **Per rule**: one-sided tests in the regression direction, q-values by
  Benjamini–Hochberg across every rule tested, so twenty rules do not yield a
  chance "regression" in most comparisons.
* **Call**: ``worse`` | ``better`` | ``equivalent`` (TOST: the 90% interval on
  the difference over every pair lies inside the caller's ±δ) | ``undetermined``
  with the smallest difference the data could have detected and how many cases
  would decide the observed one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from evaluators.statistics.intervals import (
    Interval,
    clopper_pearson_interval,
    mcnemar_difference_interval,
    newcombe_interval,
    newcombe_p_value,
    newcombe_paired_interval,
    wilson_interval,
)
from evaluators.statistics.mcnemar import mcnemar_exact
from evaluators.statistics.multiplicity import benjamini_hochberg
from evaluators.statistics.power import (
    DEFAULT_POWER,
    cases_needed,
    pairs_needed,
    smallest_detectable,
    smallest_detectable_paired,
)
from evaluators.statistics.rows import EvalRow, collapse_latest
from evaluators.stats import r4

ALPHA = 0.05
INTERVAL_LEVEL = 0.90
DISCORDANT_CAP = 200
Method = Literal["paired-mcnemar", "unpaired-newcombe", "none"]
Call = Literal["worse", "better", "equivalent", "undetermined"]


# ---------------------------------------------------------------- inputs


@dataclass(frozen=True)
class RunData:
    """One run's evaluations as loaded by the service.

    ``rows`` may hold several evaluations per trace; the most recent wins and
    the rest are counted in ``superseded`` (added to any ``superseded`` the
    caller already collapsed).  ``reevaluation_of`` is the source run when this
    run is a re-evaluation (§12.4).
    """

    run_id: str
    rows: Sequence[EvalRow]
    superseded: int = 0
    reevaluation_of: str | None = None


@dataclass(frozen=True)
class Dataset:
    """A dataset restricting both runs to its case keys."""

    id: str
    label: str
    version: int
    case_keys: frozenset[str]


# ---------------------------------------------------------------- outputs


def _iv(iv: Interval | None) -> dict[str, float] | None:
    return None if iv is None else {"lo": r4(iv.lo), "hi": r4(iv.hi)}


def _diff(iv: Interval | None) -> dict[str, Any] | None:
    if iv is None:
        return None
    return {
        "delta": r4(iv.point),
        "lo": r4(iv.lo),
        "hi": r4(iv.hi),
        "significant": iv.excludes_zero(),
    }


@dataclass(frozen=True)
class RunSide:
    """One run's counts and provenance (``before`` / ``after`` in the output)."""

    run_id: str
    n: int
    passed: int
    not_checked: int
    interval: Interval | None
    agent_names: tuple[str, ...]
    engine_versions: tuple[str, ...]
    ruleset_hashes: tuple[str, ...]
    config_hashes: tuple[str, ...]
    eval_types: tuple[str, ...]
    superseded: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.n if self.n else None

    def to_dict(self) -> dict[str, Any]:
        rate = self.rate
        return {
            "run_id": self.run_id,
            "n": self.n,
            "passed": self.passed,
            "not_checked": self.not_checked,
            "rate": None if rate is None else r4(rate),
            "interval": _iv(self.interval),
            "agent_names": list(self.agent_names),
            "engine_versions": list(self.engine_versions),
            "ruleset_hashes": list(self.ruleset_hashes),
            "config_hashes": list(self.config_hashes),
            "eval_types": list(self.eval_types),
            "superseded": self.superseded,
        }


@dataclass(frozen=True)
class PairedResult:
    """McNemar's exact test on the shared cases (``paired`` in the output).

    ``b`` passed before and not after (``fell_not_checked`` of them were not
    checked after), ``c`` failed before and passed after; ``p_value`` is
    two-sided; ``fell`` is the share of changed cases that fell, exact 90%.
    """

    b: int
    fell_not_checked: int
    c: int
    concordant: int
    pairs: int
    p_value: float
    p_worse: float
    p_better: float
    fell: Interval | None

    @property
    def significant(self) -> bool:
        return self.p_value <= ALPHA

    def to_dict(self) -> dict[str, Any]:
        fell = None
        if self.fell is not None:
            fell = {"share": r4(self.fell.point), "lo": r4(self.fell.lo), "hi": r4(self.fell.hi)}
        return {
            "method": "mcnemar-exact",
            "b": self.b,
            "fell_not_checked": self.fell_not_checked,
            "c": self.c,
            "concordant": self.concordant,
            "pairs": self.pairs,
            "p_value": r4(self.p_value),
            "p_worse": r4(self.p_worse),
            "p_better": r4(self.p_better),
            "significant": self.significant,
            "fell": fell,
        }


@dataclass(frozen=True)
class RuleChange:
    """One rule's failure rate before and after (``regressions``/``improvements`` rows).

    ``delta`` is the change in the rule's fail rate over the cases it judged
    in each run (positive = fails more); ``difference`` is the 90% interval
    the test used (over shared judged cases when paired); ``p`` is one-sided
    in the regression direction, ``q`` its Benjamini–Hochberg adjustment.
    """

    rule: str
    failed_before: int
    failed_after: int
    judged_before: int
    judged_after: int
    delta: float | None
    difference: Interval | None
    test: str | None
    p: float | None
    q: float | None
    worse: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "failed_before": self.failed_before,
            "failed_after": self.failed_after,
            "delta": None if self.delta is None else r4(self.delta),
            "judged_before": self.judged_before,
            "judged_after": self.judged_after,
            "difference": _diff(self.difference),
            "test": self.test,
            "p": None if self.p is None else r4(self.p),
            "q": None if self.q is None else r4(self.q),
            "worse": self.worse,
        }


@dataclass(frozen=True)
class CoverageChange:
    """A rule that ran on a smaller (lost) or larger (gained) share of cases."""

    rule: str
    judged_before: int
    of_before: int
    judged_after: int
    of_after: int
    on_shared: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "judged_before": self.judged_before,
            "of_before": self.of_before,
            "judged_after": self.judged_after,
            "of_after": self.of_after,
            "on_shared": self.on_shared,
        }


@dataclass(frozen=True)
class CriticalRise:
    """A critical rule firing on more cases after — counted, never tested."""

    rule: str
    failed_before: int
    failed_after: int
    new_on: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "failed_before": self.failed_before,
            "failed_after": self.failed_after,
            "new_on": list(self.new_on),
        }


@dataclass(frozen=True)
class DiscordantCase:
    """A shared case whose verdict flipped between the runs."""

    case_key: str
    direction: Literal["regressed", "recovered"]
    before_evaluation_id: str
    after_evaluation_id: str
    before_trace_id: str | None
    after_trace_id: str | None
    rules: tuple[str, ...]
    not_judged_after: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "case_key": self.case_key,
            "direction": self.direction,
            "before_evaluation_id": self.before_evaluation_id,
            "after_evaluation_id": self.after_evaluation_id,
            "before_trace_id": self.before_trace_id,
            "after_trace_id": self.after_trace_id,
            "rules": list(self.rules),
            "not_judged_after": list(self.not_judged_after),
        }


@dataclass(frozen=True)
class Equivalence:
    """TOST on the caller's margin: the 90% interval inside (−δ, +δ) ⇒ holds."""

    margin: float
    interval: Interval
    holds: bool
    margin_source: str = "caller"

    def to_dict(self) -> dict[str, Any]:
        return {
            "margin": self.margin,
            "margin_source": self.margin_source,
            "interval": _iv(self.interval),
            "holds": self.holds,
        }


@dataclass(frozen=True)
class DatasetMatch:
    """Which rows the dataset restriction kept."""

    id: str
    label: str
    version: int
    cases: int
    matched_before: int
    matched_after: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "version": self.version,
            "cases": self.cases,
            "matched_before": self.matched_before,
            "matched_after": self.matched_after,
        }


@dataclass(frozen=True)
class CasesToDecide:
    """How much data would decide an undetermined comparison.

    ``cases`` per run (unpaired) or shared ``pairs`` (paired) for 80% power to
    detect ``difference`` — the observed one — with the one-sided 5% test.
    """

    design: Literal["paired", "unpaired"]
    difference: float
    cases: int

    def to_dict(self) -> dict[str, Any]:
        return {"design": self.design, "difference": r4(self.difference), "cases": self.cases}


@dataclass(frozen=True)
class RunComparison:
    """The compare_runs result; :meth:`to_dict` is the SPEC §12.3.6 schema.

    Fields beyond the SPEC's ([P]): ``measures`` (``agent`` or ``evaluator``
    for a re-evaluation pair), ``evaluator_changes``, ``difference_95``
    (Appendix A-4), ``paired.p_worse``/``p_better``, ``smallest_detectable_paired``,
    ``cases_to_decide``, ``before/after.eval_types``.
    """

    comparable: bool
    incomparable_because: tuple[str, ...]
    forced: bool
    measures: Literal["agent", "evaluator"]
    evaluator_changes: tuple[str, ...]
    method: Method
    before: RunSide
    after: RunSide
    difference: Interval | None = None
    difference_95: Interval | None = None
    paired: PairedResult | None = None
    worse: bool = False
    better: bool = False
    improvement_withheld: bool = False
    call: Call = "undetermined"
    smallest_detectable: float | None = None
    smallest_detectable_paired: float | None = None
    cases_to_decide: CasesToDecide | None = None
    equivalent_within: Equivalence | None = None
    coverage_lost: tuple[CoverageChange, ...] = ()
    coverage_gained: tuple[CoverageChange, ...] = ()
    critical_rises: tuple[CriticalRise, ...] = ()
    rules_tested: int = 0
    regressions: tuple[RuleChange, ...] = ()
    improvements: tuple[RuleChange, ...] = ()
    discordant: tuple[DiscordantCase, ...] = ()
    discordant_total: int = 0
    summary: str = ""
    dataset: DatasetMatch | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "comparable": self.comparable,
            "incomparable_because": list(self.incomparable_because),
            "forced": self.forced,
            "measures": self.measures,
            "evaluator_changes": list(self.evaluator_changes),
            "method": self.method,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "difference": _diff(self.difference),
            "difference_95": _diff(self.difference_95),
            "interval_level": INTERVAL_LEVEL,
            "paired": None if self.paired is None else self.paired.to_dict(),
            "worse": self.worse,
            "better": self.better,
            "improvement_withheld": self.improvement_withheld,
            "call": self.call,
            "smallest_detectable": None
            if self.smallest_detectable is None
            else r4(self.smallest_detectable),
            "smallest_detectable_paired": None
            if self.smallest_detectable_paired is None
            else r4(self.smallest_detectable_paired),
            "detectable_power": DEFAULT_POWER,
            "cases_to_decide": None
            if self.cases_to_decide is None
            else self.cases_to_decide.to_dict(),
            "equivalent_within": None
            if self.equivalent_within is None
            else self.equivalent_within.to_dict(),
            "coverage": {
                "lost": [c.to_dict() for c in self.coverage_lost],
                "gained": [c.to_dict() for c in self.coverage_gained],
            },
            "critical_rises": [c.to_dict() for c in self.critical_rises],
            "rules_tested": self.rules_tested,
            "regressions": [r.to_dict() for r in self.regressions],
            "improvements": [r.to_dict() for r in self.improvements],
            "discordant": [d.to_dict() for d in self.discordant],
            "discordant_total": self.discordant_total,
            "summary": self.summary,
            "dataset": None if self.dataset is None else self.dataset.to_dict(),
        }


class IncomparableRuns(ValueError):
    """The runs measured different things and ``force`` was not given.

    ``reasons`` are one sentence each; :attr:`result` is the refusal in the
    SPEC output shape (``comparable: false``, the reasons, both runs' counts
    and provenance, no statistics) for the service to return as is.
    """

    def __init__(self, reasons: Sequence[str], result: RunComparison) -> None:
        super().__init__(" ".join(reasons))
        self.reasons = tuple(reasons)
        self.result = result


# ---------------------------------------------------------------- helpers


def _distinct(values: Sequence[str | None]) -> tuple[str, ...]:
    return tuple(sorted({v for v in values if v}))


def _side(run: RunData, rows: Sequence[EvalRow], superseded: int) -> RunSide:
    n = len(rows)
    passed = sum(1 for r in rows if r.passed)
    return RunSide(
        run_id=run.run_id,
        n=n,
        passed=passed,
        not_checked=sum(1 for r in rows if r.not_checked),
        interval=wilson_interval(passed, n),
        agent_names=_distinct([r.agent_name for r in rows]),
        engine_versions=_distinct([r.engine_version for r in rows]),
        ruleset_hashes=_distinct([r.ruleset_hash for r in rows]),
        config_hashes=_distinct([r.config_hash for r in rows]),
        eval_types=_distinct([r.eval_type for r in rows]),
        superseded=superseded,
    )


def _minor(version: str) -> str:
    parts = version.split(".")
    return ".".join(parts[:2]) if len(parts) >= 2 else version


def _short(hashes: Sequence[str]) -> str:
    return ", ".join(h[:12] for h in hashes) or "none"


def comparability(before: RunSide, after: RunSide) -> tuple[list[str], list[str]]:
    """Why two runs are not comparable (SPEC §12.3.2), one sentence per reason.

    Returns ``(agent_side, evaluator_side)``: reasons that make the runs
    measure different *agents or workloads* (mixed provenance within a run,
    different agents) and reasons that only say a different *evaluator*
    judged them (ruleset, config, engine minor version, eval type) — the
    latter are expected, and allowed, for a re-evaluation and its source.
    """
    agent_side: list[str] = []
    evaluator_side: list[str] = []
    for side in (before, after):
        if len(side.ruleset_hashes) > 1:
            agent_side.append(
                f"Run {side.run_id} mixes {len(side.ruleset_hashes)} ruleset hashes "
                f"({_short(side.ruleset_hashes)}), so its own cases were not judged alike."
            )
        if len(side.config_hashes) > 1:
            agent_side.append(
                f"Run {side.run_id} mixes {len(side.config_hashes)} config hashes "
                f"({_short(side.config_hashes)}), so its own cases were not judged alike."
            )
        if len(side.eval_types) > 1:
            agent_side.append(
                f"Run {side.run_id} mixes eval types ({', '.join(side.eval_types)}), "
                "so its own cases were not judged alike."
            )
    minors_b = sorted({_minor(v) for v in before.engine_versions})
    minors_a = sorted({_minor(v) for v in after.engine_versions})
    if minors_b and minors_a and minors_b != minors_a:
        evaluator_side.append(
            f"Engine minor versions differ ({', '.join(minors_b)} before, "
            f"{', '.join(minors_a)} after)."
        )
    if (
        before.ruleset_hashes
        and after.ruleset_hashes
        and (before.ruleset_hashes != after.ruleset_hashes)
    ):
        evaluator_side.append(
            f"The runs were judged by different rulesets ({_short(before.ruleset_hashes)} "
            f"before, {_short(after.ruleset_hashes)} after)."
        )
    if (
        before.config_hashes
        and after.config_hashes
        and (before.config_hashes != after.config_hashes)
    ):
        evaluator_side.append(
            f"The runs were judged under different configurations "
            f"({_short(before.config_hashes)} before, {_short(after.config_hashes)} after)."
        )
    if before.eval_types and after.eval_types and before.eval_types != after.eval_types:
        evaluator_side.append(
            f"The runs were judged for different eval types ({', '.join(before.eval_types)} "
            f"before, {', '.join(after.eval_types)} after)."
        )
    if (
        len(before.agent_names) == 1
        and len(after.agent_names) == 1
        and before.agent_names != after.agent_names
    ):
        agent_side.append(
            f"The runs are of different agents ({before.agent_names[0]} before, "
            f"{after.agent_names[0]} after)."
        )
    return agent_side, evaluator_side


def _latest_by_case(rows: Sequence[EvalRow]) -> dict[str, EvalRow]:
    out: dict[str, EvalRow] = {}
    for row in rows:
        if row.case_key is None:
            continue
        cur = out.get(row.case_key)
        if cur is None or row.created_at >= cur.created_at:
            out[row.case_key] = row
    return out


@dataclass
class _RuleTally:
    judged_before: int = 0
    failed_before: int = 0
    judged_after: int = 0
    failed_after: int = 0
    critical: bool = False
    shared_judged: int = 0
    fell: int = 0  # passed before, failed after (shared)
    rose: int = 0  # failed before, passed after (shared)
    new_on: list[str] = field(default_factory=list)


def _tally_rules(
    rows_b: Sequence[EvalRow],
    rows_a: Sequence[EvalRow],
    shared: Sequence[str],
    by_b: dict[str, EvalRow],
    by_a: dict[str, EvalRow],
) -> dict[str, _RuleTally]:
    tallies: dict[str, _RuleTally] = {}
    for rows, before in ((rows_b, True), (rows_a, False)):
        for row in rows:
            for r in row.rules:
                t = tallies.setdefault(r.rule, _RuleTally())
                t.critical = t.critical or r.critical
                if not r.judged:
                    continue
                if before:
                    t.judged_before += 1
                    t.failed_before += int(r.failed)
                else:
                    t.judged_after += 1
                    t.failed_after += int(r.failed)
    for key in shared:
        rb, ra = by_b[key].rule_map(), by_a[key].rule_map()
        for name, t in tallies.items():
            ob, oa = rb.get(name), ra.get(name)
            if oa is not None and oa.failed and not (ob is not None and ob.failed):
                t.new_on.append(key)
            if ob is None or oa is None or not ob.judged or not oa.judged:
                continue
            t.shared_judged += 1
            if not ob.failed and oa.failed:
                t.fell += 1
            elif ob.failed and not oa.failed:
                t.rose += 1
    return tallies


def _negate(iv: Interval) -> Interval:
    return Interval(-iv.point, -iv.hi, -iv.lo)


def _pct(x: float) -> str:
    return f"{100.0 * x:.1f}%"


def _pts(x: float) -> str:
    return f"{100.0 * x:+.1f}"


# ---------------------------------------------------------------- main


def compare_runs(
    before: RunData,
    after: RunData,
    *,
    force: bool = False,
    equivalence_margin: float | None = None,
    dataset: Dataset | None = None,
) -> RunComparison:
    """Compare two runs (SPEC §12.3); raise :class:`IncomparableRuns` to refuse.

    ``equivalence_margin`` δ (0 < δ ≤ 1, pass-rate points as a fraction) turns
    on the equivalence test; the tool never picks δ.  ``dataset`` restricts
    both runs to its case keys (rows without one are dropped).
    """
    if equivalence_margin is not None and not 0.0 < equivalence_margin <= 1.0:
        raise ValueError("equivalence_margin must satisfy 0 < δ ≤ 1")
    rows_b, sup_b = collapse_latest(before.rows)
    rows_a, sup_a = collapse_latest(after.rows)
    match: DatasetMatch | None = None
    if dataset is not None:
        keys = dataset.case_keys
        rows_b = [r for r in rows_b if r.case_key is not None and r.case_key in keys]
        rows_a = [r for r in rows_a if r.case_key is not None and r.case_key in keys]
        match = DatasetMatch(
            dataset.id, dataset.label, dataset.version, len(keys), len(rows_b), len(rows_a)
        )
    side_b = _side(before, rows_b, before.superseded + sup_b)
    side_a = _side(after, rows_a, after.superseded + sup_a)

    agent_side, evaluator_side = comparability(side_b, side_a)
    reevaluation = after.reevaluation_of is not None and after.reevaluation_of == before.run_id
    if reevaluation:
        reasons = agent_side
        measures: Literal["agent", "evaluator"] = "evaluator"
        evaluator_changes = tuple(evaluator_side)
    else:
        reasons = agent_side + evaluator_side
        measures = "agent"
        evaluator_changes = ()
    comparable = not reasons
    if not comparable and not force:
        refusal = RunComparison(
            comparable=False,
            incomparable_because=tuple(reasons),
            forced=False,
            measures=measures,
            evaluator_changes=evaluator_changes,
            method="none",
            before=side_b,
            after=side_a,
            dataset=match,
            summary="Not compared: "
            + " ".join(reasons)
            + " Pass force: true to compare anyway; the reasons will still be listed.",
        )
        raise IncomparableRuns(reasons, refusal)
    base = {
        "comparable": comparable,
        "incomparable_because": tuple(reasons),
        "forced": bool(force and not comparable),
        "measures": measures,
        "evaluator_changes": evaluator_changes,
        "before": side_b,
        "after": side_a,
        "dataset": match,
    }
    if side_b.n == 0 or side_a.n == 0:
        empty = side_b.run_id if side_b.n == 0 else side_a.run_id
        return RunComparison(
            method="none",
            summary=f"Nothing to compare: run {empty} has no evaluations"
            + (" in the dataset." if match is not None else "."),
            **base,  # type: ignore[arg-type]
        )

    by_b, by_a = _latest_by_case(rows_b), _latest_by_case(rows_a)
    shared = sorted(set(by_b) & set(by_a))
    paired_result: PairedResult | None = None
    discordant: list[DiscordantCase] = []
    equivalence_iv: Interval | None
    if shared:
        method: Method = "paired-mcnemar"
        b = c = fell_nc = n11 = n00 = 0
        for key in shared:
            rb, ra = by_b[key], by_a[key]
            if rb.passed and ra.passed:
                n11 += 1
            elif not rb.passed and not ra.passed:
                n00 += 1
            else:
                regressed = rb.passed and not ra.passed
                if regressed:
                    b += 1
                    fell_nc += int(ra.not_checked)
                else:
                    c += 1
                mb, ma = rb.rule_map(), ra.rule_map()
                differ = sorted(
                    name
                    for name in set(mb) & set(ma)
                    if mb[name].judged and ma[name].judged and mb[name].failed != ma[name].failed
                )
                unjudged = sorted(
                    name
                    for name, o in mb.items()
                    if o.judged and (name not in ma or not ma[name].judged)
                )
                discordant.append(
                    DiscordantCase(
                        key,
                        "regressed" if regressed else "recovered",
                        rb.evaluation_id,
                        ra.evaluation_id,
                        rb.trace_id,
                        ra.trace_id,
                        tuple(differ),
                        tuple(unjudged),
                    )
                )
        pairs = len(shared)
        mc = mcnemar_exact(b, c)
        paired_result = PairedResult(
            b=b,
            fell_not_checked=fell_nc,
            c=c,
            concordant=n11 + n00,
            pairs=pairs,
            p_value=mc.p_two_sided,
            p_worse=mc.p_worse,
            p_better=mc.p_better,
            fell=clopper_pearson_interval(b, b + c, INTERVAL_LEVEL) if b + c else None,
        )
        difference = mcnemar_difference_interval(b, c, pairs, INTERVAL_LEVEL)
        difference_95 = mcnemar_difference_interval(b, c, pairs, 0.95)
        worse_test = mc.p_worse <= ALPHA
        better_test = mc.p_better <= ALPHA
        # Cells with the after-run first: n10 = passed after only (c), n01 = before only (b).
        equivalence_iv = newcombe_paired_interval(n11, c, b, n00, INTERVAL_LEVEL)
    else:
        method = "unpaired-newcombe"
        nb, kb, na, ka = side_b.n, side_b.passed, side_a.n, side_a.passed
        d90 = newcombe_interval(ka, na, kb, nb, INTERVAL_LEVEL)
        d95 = newcombe_interval(ka, na, kb, nb, 0.95)
        assert d90 is not None and d95 is not None
        difference, difference_95 = d90, d95
        worse_test = newcombe_p_value(ka, na, kb, nb, "less") <= ALPHA
        better_test = newcombe_p_value(ka, na, kb, nb, "greater") <= ALPHA
        equivalence_iv = difference
    discordant.sort(key=lambda d: (d.direction != "regressed", d.case_key))

    # ---- per rule
    tallies = _tally_rules(rows_b, rows_a, shared, by_b, by_a)
    lost: list[CoverageChange] = []
    gained: list[CoverageChange] = []
    rises: list[CriticalRise] = []
    tested: list[tuple[str, _RuleTally, float, Interval | None, str, float]] = []
    for name in sorted(tallies):
        t = tallies[name]
        on_shared = t.shared_judged if shared else None
        share_b = t.judged_before * side_a.n
        share_a = t.judged_after * side_b.n
        change = CoverageChange(
            name, t.judged_before, side_b.n, t.judged_after, side_a.n, on_shared
        )
        if share_a < share_b:
            lost.append(change)
        elif share_a > share_b:
            gained.append(change)
        if t.critical and t.failed_after > t.failed_before:
            rises.append(CriticalRise(name, t.failed_before, t.failed_after, tuple(t.new_on)))
        if t.judged_before == 0 or t.judged_after == 0:
            continue  # ran in one run only: a coverage change, not a recovery
        if t.failed_before + t.failed_after == 0:
            continue  # never fired: nothing to test
        delta = t.failed_after / t.judged_after - t.failed_before / t.judged_before
        if shared and t.shared_judged > 0:
            p = mcnemar_exact(t.fell, t.rose).p_worse
            diff: Interval | None = _negate(
                mcnemar_difference_interval(t.fell, t.rose, t.shared_judged, INTERVAL_LEVEL)
            )
            test = "mcnemar-exact"
        else:
            p = newcombe_p_value(
                t.failed_after, t.judged_after, t.failed_before, t.judged_before, "greater"
            )
            diff = newcombe_interval(
                t.failed_after, t.judged_after, t.failed_before, t.judged_before, INTERVAL_LEVEL
            )
            test = "newcombe-z"
        tested.append((name, t, delta, diff, test, p))
    qs = benjamini_hochberg([x[5] for x in tested])
    regressions: list[RuleChange] = []
    improvements: list[RuleChange] = []
    for (name, t, delta, diff, test, p), q in zip(tested, qs, strict=True):
        direction = diff.point if diff is not None else delta
        row = RuleChange(
            name,
            t.failed_before,
            t.failed_after,
            t.judged_before,
            t.judged_after,
            delta,
            diff,
            test,
            p,
            q,
            q <= ALPHA and direction > 0.0,
        )
        if direction > 0.0:
            regressions.append(row)
        elif direction < 0.0:
            improvements.append(row)
    regressions.sort(key=lambda r: (not r.worse, r.q or 1.0, -(r.delta or 0.0), r.rule))
    improvements.sort(key=lambda r: (r.delta or 0.0, r.rule))

    # ---- call
    worse = worse_test
    better = better_test and not lost
    withheld = better_test and bool(lost)
    equivalence: Equivalence | None = None
    if equivalence_margin is not None and equivalence_iv is not None:
        holds = -equivalence_margin < equivalence_iv.lo and equivalence_iv.hi < equivalence_margin
        equivalence = Equivalence(equivalence_margin, equivalence_iv, holds)
    call: Call
    if worse:
        call = "worse"
    elif better:
        call = "better"
    elif equivalence is not None and equivalence.holds:
        call = "equivalent"
    else:
        call = "undetermined"
    detectable = detectable_paired = None
    to_decide: CasesToDecide | None = None
    if call == "undetermined":
        detectable = smallest_detectable(side_b.n, side_a.n)
        observed = difference.point
        if paired_result is not None:
            detectable_paired = smallest_detectable_paired(
                paired_result.pairs, paired_result.b + paired_result.c
            )
            psi = (paired_result.b + paired_result.c + 0.5) / (paired_result.pairs + 1.0)
            need = pairs_needed(psi, observed) if observed else None
            if need is not None:
                to_decide = CasesToDecide("paired", observed, need)
        else:
            rb_, ra_ = side_b.rate, side_a.rate
            assert rb_ is not None and ra_ is not None
            need = cases_needed(ra_, rb_)
            if need is not None:
                to_decide = CasesToDecide("unpaired", observed, need)

    result = RunComparison(
        method=method,
        difference=difference,
        difference_95=difference_95,
        paired=paired_result,
        worse=worse,
        better=better,
        improvement_withheld=withheld,
        call=call,
        smallest_detectable=detectable,
        smallest_detectable_paired=detectable_paired,
        cases_to_decide=to_decide,
        equivalent_within=equivalence,
        coverage_lost=tuple(lost),
        coverage_gained=tuple(gained),
        critical_rises=tuple(rises),
        rules_tested=len(tested),
        regressions=tuple(regressions),
        improvements=tuple(improvements),
        discordant=tuple(discordant[:DISCORDANT_CAP]),
        discordant_total=len(discordant),
        **base,  # type: ignore[arg-type]
    )
    return _with_summary(result)


def _with_summary(r: RunComparison) -> RunComparison:
    from dataclasses import replace

    rb, ra = r.before.rate, r.after.rate
    assert rb is not None and ra is not None and r.difference is not None
    parts: list[str] = []
    if r.measures == "evaluator":
        parts.append(
            f"Run {r.after.run_id} re-evaluates run {r.before.run_id} on the same executions, "
            "so this measures the evaluator change, not the agent."
        )
    if r.forced:
        parts.append("Forced across comparability limits: " + " ".join(r.incomparable_because))
    parts.append(
        f"Pass rate {_pct(rb)} ({r.before.passed}/{r.before.n}) before, "
        f"{_pct(ra)} ({r.after.passed}/{r.after.n}) after."
    )
    d = r.difference
    if r.paired is not None:
        p = r.paired
        parts.append(
            f"Paired on {p.pairs} shared cases: {p.b} fell, {p.c} recovered "
            f"(exact McNemar two-sided p = {p.p_value:.3g}); change {_pts(d.point)} points, "
            f"90% interval {_pts(d.lo)} to {_pts(d.hi)}."
        )
        if p.fell_not_checked:
            parts.append(f"{p.fell_not_checked} of the fallen cases were not checked after.")
    else:
        parts.append(
            f"No shared case keys, so unpaired: change {_pts(d.point)} points, "
            f"90% Newcombe interval {_pts(d.lo)} to {_pts(d.hi)}."
        )
    if r.call == "worse":
        parts.append("Worse: the one-sided 5% test in the regression direction fires.")
    elif r.call == "better":
        parts.append(
            "Better: the one-sided 5% test in the improvement direction fires "
            "and no rule lost coverage."
        )
    elif r.call == "equivalent":
        assert r.equivalent_within is not None
        parts.append(
            f"Equivalent within ±{_pct(r.equivalent_within.margin)} (the caller's margin): "
            "the 90% interval lies inside it."
        )
    else:
        msg = "Undetermined: the evidence cannot exclude no change."
        if r.smallest_detectable is not None:
            msg += (
                f" A change smaller than {_pct(r.smallest_detectable)} points could not "
                "be reliably detected with these sample sizes (80% power)"
            )
            if r.smallest_detectable_paired is not None:
                msg += (
                    f"; paired, about {_pct(r.smallest_detectable_paired)} at the observed "
                    "rate of changed cases"
                )
            msg += "."
        if r.cases_to_decide is not None:
            unit = "shared cases" if r.cases_to_decide.design == "paired" else "cases per run"
            msg += (
                f" About {r.cases_to_decide.cases} {unit} would detect the observed "
                f"{_pts(r.cases_to_decide.difference)} points with 80% power."
            )
        parts.append(msg)
    if r.improvement_withheld:
        parts.append(
            "An improvement was withheld: the after-run was judged on less "
            f"({', '.join(c.rule for c in r.coverage_lost)} lost coverage)."
        )
    if r.equivalent_within is not None and not r.equivalent_within.holds:
        parts.append(f"Equivalence within ±{_pct(r.equivalent_within.margin)} was not shown.")
    elif r.equivalent_within is None:
        parts.append("Equivalence was not tested (no margin given).")
    worse_rules = [x.rule for x in r.regressions if x.worse]
    if worse_rules:
        parts.append(
            f"Rules worse at q ≤ 0.05 of {r.rules_tested} tested: {', '.join(worse_rules)}."
        )
    elif r.rules_tested:
        parts.append(f"No rule regressed at q ≤ 0.05 across the {r.rules_tested} tested.")
    if r.critical_rises:
        parts.append(
            "Critical rules firing more often (counted, not tested): "
            + ", ".join(f"{c.rule} {c.failed_before}→{c.failed_after}" for c in r.critical_rises)
            + "."
        )
    if r.coverage_lost:
        parts.append(f"{len(r.coverage_lost)} rule(s) ran on a smaller share of cases after.")
    return replace(r, summary=" ".join(parts))
