"""The verdict composer of SPEC §10: layers, roles, categories, coverage.

``passed`` is decided by layers that read each rule by the kind of claim it
makes; the score gradient is never consulted. The primary layer is the first
that fails (else the first that could not check, else clean) and every other
deciding layer is listed in ``also`` so fixing one basis never hides another.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import Any

from evaluators.config import NEEDS, EngineConfig
from evaluators.judged import Judged
from evaluators.risk import Detector, Risk, estimate
from evaluators.rules.registry import QUESTIONS
from evaluators.stats import r4

RISK_KINDS = ("detection", "inference")


@dataclass(frozen=True, slots=True)
class Layer:
    basis: str
    state: str  # pass | fail | unknown
    by: tuple[str, ...]
    rules: tuple[str, ...] = ()  # rules implicated (for categories)


@dataclass(slots=True)
class Composition:
    state: str
    basis: str
    by: list[str]
    also: list[Layer]
    risk: Risk | None
    confidence: str | None
    confidence_note: str | None
    critical_failures: list[str]
    critical_skipped: list[str]
    layers: list[Layer] = field(default_factory=list)


def decides(j: Judged, cfg: EngineConfig) -> bool:
    """A failing policy decides (SPEC A-21):
    critical ∨ defaultsGate ∨ (built-in ∧ no default threshold)."""
    if j.kind == "judgment":
        return True
    if j.kind != "policy":
        return False
    if j.origin == "inline":
        return False
    return j.critical or cfg.defaults_gate or (not j.is_custom and not j.uses_default_threshold)


def assign_roles(results: list[Judged], cfg: EngineConfig) -> None:
    for j in results:
        if j.kind in ("policy", "judgment"):
            j.role = "gate" if decides(j, cfg) or j.critical else "advisory"
        elif j.critical:
            j.role = "veto"
        elif j.kind in RISK_KINDS and j.origin == "builtin":
            j.role = "risk"
        else:
            j.role = "advisory"


_CLASS_THEN_NAME = itemgetter(0, 1)  # a stable sort on these keeps result order on ties


@lru_cache(maxsize=4096)
def _estimate_rows(rows: tuple[tuple[str, str, bool], ...], prior: float, mode: str) -> Risk | None:
    """``estimate`` of the detectors ``rows`` describe. Why: the composer asks
    once per evaluation, and a cache keyed by plain tuples hashes and compares
    in C, where ``estimate``'s own key (frozen dataclasses) runs their Python
    ``__hash__`` and ``__eq__`` for every detector on every call."""
    return estimate(tuple(Detector(name, cls, fired) for cls, name, fired in rows), prior, mode)


def compose(results: list[Judged], cfg: EngineConfig, present: dict[str, bool]) -> Composition:
    # One pass: each result's role (``assign_roles``), whether a failing
    # policy decides (``decides``, asked once per result), and the split read
    # by every layer below. The lists keep result order, so each layer sees
    # its rules in the order a filter over all results would give.
    defaults_gate = cfg.defaults_gate
    evaluated: list[Judged] = []
    skipped: list[Judged] = []
    gate: list[Judged] = []  # fired and deciding
    veto: list[Judged] = []  # fired critical detectors and inferences
    crit_failures: list[str] = []
    for j in results:
        kind = j.kind
        critical = j.critical
        if kind == "policy":
            origin = j.origin
            dec = origin != "inline" and (
                critical or defaults_gate or (origin == "builtin" and not j.uses_default_threshold)
            )
            j.role = "gate" if dec or critical else "advisory"
        elif kind == "judgment":
            dec = True
            j.role = "gate"
        else:
            dec = False
            if critical:
                j.role = "veto"
            elif kind in RISK_KINDS and j.origin == "builtin":
                j.role = "risk"
            else:
                j.role = "advisory"
        o = j.outcome
        if o.skipped:
            skipped.append(j)
            continue
        evaluated.append(j)
        if o.passed:
            continue
        if dec:
            gate.append(j)
        if critical:
            if kind != "policy" or dec:
                crit_failures.append(j.name)
            if kind != "policy" and kind != "judgment":
                veto.append(j)
    crit_skipped = [
        j.name
        for j in skipped
        if j.critical and (j.outcome.skip_class != "not_applicable" or j.asked)
    ]
    layers: list[Layer] = []

    if not evaluated:
        layer = Layer("no_rules", "unknown", ())
        return Composition(
            "unknown", "no_rules", [], [], None, None, None, crit_failures, crit_skipped, [layer]
        )

    if gate:
        layers.append(
            Layer("policy_gate", "fail", tuple(j.name for j in gate), tuple(j.name for j in gate))
        )
    if veto:
        layers.append(
            Layer("detector_veto", "fail", tuple(j.name for j in veto), tuple(j.name for j in veto))
        )
    unk = [
        j for j in skipped if j.critical and j.outcome.skip_class in ("defeated", "config_invalid")
    ]
    if unk and cfg.on_critical_skipped != "pass":
        state = "fail" if cfg.on_critical_skipped == "fail" else "unknown"
        layers.append(
            Layer("critical_unknown", state, tuple(j.name for j in unk), tuple(j.name for j in unk))
        )
    missing: list[str] = []
    implicated: list[str] = []
    seen: set[str] = set()
    for j in evaluated:
        seen.update(j.outcome.saw)
    for need in cfg.required_evidence:
        if need not in seen and need not in missing:
            missing.append(need)
    for j in skipped:
        if j.outcome.skip_class == "not_applicable" and j.asked:
            if j.critical and cfg.on_critical_skipped == "pass":
                continue
            lacked = j.outcome.lacked or tuple(n for n in j.needs if not present.get(n, False))
            for need in lacked:
                if need not in missing:
                    missing.append(need)
            implicated.append(j.name)
    if missing:
        layers.append(
            Layer("required_evidence_missing", "unknown", tuple(missing), tuple(implicated))
        )

    # the risk detectors as (class, name, fired) rows, by class then name
    dets = tuple(
        sorted(
            (
                (cls, j.name, not j.outcome.passed)
                for j in evaluated
                if j.kind in RISK_KINDS and j.origin == "builtin" and not j.critical
                for cls in j.classes[:1]
            ),
            key=_CLASS_THEN_NAME,
        )
    )
    risk = _estimate_rows(dets, cfg.prior, cfg.prior_mode) if dets else None
    if risk is not None and risk.p_bad > cfg.tau:
        risk_by = tuple(c for c, q in risk.by_class if q > 0.5) or (
            max(risk.by_class, key=lambda kv: kv[1])[0],
        )
        fired_rules = tuple(n for _, n, f in dets if f) or tuple(n for _, n, _ in dets)
        layers.append(Layer("risk_over_loss", "fail", risk_by, fired_rules))

    failing = [layer for layer in layers if layer.state == "fail"]
    unknown = [layer for layer in layers if layer.state == "unknown"]
    primary = failing[0] if failing else (unknown[0] if unknown else None)
    if primary is None:
        state, basis, by = "pass", "clean", []
    else:
        state, basis, by = primary.state, primary.basis, list(primary.by)
    also = [layer for layer in layers if layer is not primary]

    confidence = note = None
    if risk is not None and basis in ("risk_over_loss", "clean"):
        tau = cfg.tau
        reasons = []
        if risk.lo <= tau <= risk.hi:
            reasons.append(
                f"the risk interval [{risk.lo:.3f}, {risk.hi:.3f}] straddles τ = {tau:.3f}"
            )
        if cfg.prior != 0.5 or cfg.prior_mode != "per-output":
            reasons.append(f"computed at a non-shipped prior ({cfg.prior}, {cfg.prior_mode})")
        confidence = "marginal" if reasons else "decisive"
        note = "; ".join(reasons) or None
    return Composition(
        state, basis, by, also, risk, confidence, note, crit_failures, crit_skipped, layers
    )


_STATE_RANK = {"pass": 0, "unknown": 1, "fail": 2}
_PASSED = {"pass": True, "fail": False, "unknown": None}  # a bundle row's "passed"


def categories(
    results: list[Judged], comp: Composition, bundles: list[str]
) -> dict[str, dict[str, Any]]:
    """Bundle rows derived from the single verdict (SPEC §10.6); never re-composed."""
    rows: dict[str, dict[str, Any]] = {}
    by_rule = {j.name: j for j in results}
    # One pass, in result order: per bundle, [rules, evaluated, weight sum,
    # weighted score sum], each sum accumulated as ``sum()`` over the
    # bundle's evaluated rules would (from int 0, left to right).
    acc: dict[str, list[Any]] = {}
    for j in results:
        a = acc.get(j.bundle)
        if a is None:
            a = acc[j.bundle] = [0, 0, 0, 0]
        a[0] += 1
        if not j.outcome.skipped:
            a[1] += 1
            a[2] += j.weight
            a[3] += j.outcome.score * j.weight
    deciding = _deciding_layers(comp, by_rule)
    crit_failed = [(n, by_rule[n].bundle) for n in comp.critical_failures if n in by_rule]
    crit_skipped = [(n, by_rule[n].bundle) for n in comp.critical_skipped if n in by_rule]
    for b in bundles:
        n, n_ev, wsum, wscore = acc.get(b) or (0, 0, 0, 0)
        score = r4(wscore / wsum) if wsum else None
        row: dict[str, Any] = {
            "score": score,
            "passed": None,
            "rules_evaluated": n_ev,
            "rules_skipped": n - n_ev,
            "insufficient_data": not n_ev,
        }
        if crit_failed:
            cf = [name for name, nb in crit_failed if nb == b]
            if cf:
                row["critical_failures"] = cf
        if crit_skipped:
            cs = [name for name, nb in crit_skipped if nb == b]
            if cs:
                row["critical_skipped"] = cs
        if n_ev:
            state = "pass"
            for layer_state, hits in deciding:
                if (hits is None or b in hits) and _STATE_RANK[layer_state] > _STATE_RANK[state]:
                    state = layer_state
            row["passed"] = _PASSED[state]
        rows[b] = row
    return rows


def _deciding_layers(
    comp: Composition, by_rule: dict[str, Judged]
) -> list[tuple[str, frozenset[str] | None]]:
    """Each layer that can move a bundle off "pass", in layer order, with the
    bundles of the rules it implicates (``None``: every bundle). Computed once
    per verdict, not once per bundle; none when the verdict passes."""
    out: list[tuple[str, frozenset[str] | None]] = []
    if comp.state == "pass":
        return out
    for layer in comp.layers:
        if layer.state == "pass":
            continue
        if layer.basis == "required_evidence_missing" and not layer.rules:
            out.append((layer.state, None))
        else:
            hits = frozenset(by_rule[n].bundle for n in layer.rules if n in by_rule)
            out.append((layer.state, hits))
    return out


def unjudged_questions(
    results: list[Judged], present: dict[str, bool]
) -> list[tuple[int, str | None, list[int] | None, list[str]]]:
    """Each question no rule judged, in ``QUESTIONS`` order, as (position in
    ``QUESTIONS``, id, indices of its skipped results — ``None`` when it has
    no rule —, the needs they lacked that were not supplied). Why apart from
    ``coverage``: the engine's planned assembly keeps everything but the
    skip reasons of a shape, and reads here which questions those decide."""
    judged: set[str | None] = set()
    unjudged: dict[str | None, list[int]] = {}
    for i, j in enumerate(results):
        if j.outcome.skipped:
            unjudged.setdefault(j.question, []).append(i)
        else:
            judged.add(j.question)
    out: list[tuple[int, str | None, list[int] | None, list[str]]] = []
    for pos, q in enumerate(QUESTIONS):
        if q in judged:
            continue
        mine = unjudged.get(q)
        if not mine:
            out.append((pos, q, None, []))
            continue
        lacked = sorted(
            {
                n
                for i in mine
                for n in (results[i].outcome.lacked or ())
                if not present.get(n, False)
            }
        )
        out.append((pos, q, mine, lacked))
    return out


def skips_why(reasons: list[str | None]) -> str:
    """Why a question went unjudged when no missing input explains it: its
    rules' distinct skip reasons, sorted, joined, capped."""
    return "; ".join(sorted({r or "skipped" for r in reasons}))[:200]


def coverage(
    results: list[Judged], present: dict[str, bool], dormant: list[dict[str, Any]]
) -> dict[str, Any]:
    questions: list[dict[str, Any]] = [{"id": q, "status": "judged"} for q in QUESTIONS]
    for pos, q, mine, lacked in unjudged_questions(results, present):
        if not mine:
            questions[pos] = {"id": q, "status": "not_applicable"}
            continue
        why = (
            f"not supplied: {', '.join(lacked)}"
            if lacked
            else skips_why([results[i].outcome.skip_reason for i in mine])
        )
        questions[pos] = {"id": q, "status": "unjudged", "why": why}
    cov: dict[str, Any] = {
        "inputs": {n: bool(present.get(n, False)) for n in NEEDS},
        "questions": questions,
    }
    if dormant:
        cov["dormant"] = dormant
    return cov


_SETTING_FOR: dict[str, str] = {
    "min_output_length": "eval.ruleThresholds.min_output_length",
    "sentence_count": "eval.ruleThresholds.min_sentences",
    "keyword_overlap": "eval.ruleThresholds.keyword_overlap",
    "topic_consistency": "eval.ruleThresholds.topic_consistency",
    "answers_the_ask": "eval.ruleThresholds.keyword_overlap",
    "cost_under_threshold": "eval.ruleThresholds.cost_threshold",
    "verbosity_ratio": "eval.ruleThresholds.max_token_ratio",
    "max_steps": "eval.ruleThresholds.max_steps",
}


def question_notes(questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The notes ``interpretations`` opens with: one per question left
    unjudged for want of an input."""
    out: list[dict[str, Any]] = []
    for q in questions:
        if q["status"] == "unjudged" and str(q.get("why", "")).startswith("not supplied"):
            out.append(
                {
                    "severity": "note",
                    "addressee": "operator",
                    "text": (
                        f"Question {q['id']} was not judged ({q['why']}); "
                        "supply that input to judge it."
                    ),
                }
            )
    return out


def interpretations(
    results: list[Judged], comp: Composition, cov: dict[str, Any], cfg: EngineConfig
) -> list[dict[str, Any]]:
    out = question_notes(cov["questions"])
    if comp.basis == "no_rules":
        reasons = "; ".join(f"{j.name}: {j.outcome.skip_reason}" for j in results if j.skipped)[
            :600
        ]
        out.append(
            {
                "severity": "block",
                "addressee": "operator",
                "text": "Nothing was judged"
                + (
                    f" — every rule skipped ({reasons})."
                    if reasons
                    else ": no rule is configured for this eval type."
                ),
            }
        )
    later = [a for a in comp.also if a.state != "pass"]
    if later and comp.state != "pass":
        names = ", ".join(a.basis for a in later)
        out.append(
            {
                "severity": "block",
                "addressee": "agent",
                "text": (
                    f"Later layers also decided ({names}); "
                    f"clearing {comp.basis} alone does not clear the verdict."
                ),
            }
        )
    deciding: set[str] = set()
    for layer in comp.layers:
        if layer.basis != "risk_over_loss":
            deciding.update(layer.rules)
    risk_failed = comp.basis == "risk_over_loss" or any(
        a.basis == "risk_over_loss" for a in comp.also
    )
    for j in results:
        o = j.outcome
        if o.skipped or o.passed or j.name in deciding:  # not j.fired, or deciding
            continue
        if j.role == "risk":
            if risk_failed:
                continue
            text = f"{j.name} fired but the combined risk stayed below τ = {cfg.tau:.2f}."
            key = "eval.falsePassCost"
            text += " Raise eval.falsePassCost (or add it to eval.criticalRules) to block on it."
        elif j.kind == "measurement":
            text = f"{j.name} fired; measurements inform the score and never decide."
            key = "eval.criticalRules"
            text += " Deploy a policy rule if this line must gate."
        elif j.origin == "inline":
            text = f"Inline rule {j.name} failed; inline rules advise only."
            key = "deploy_rule.severity"
            text += " Deploy it with severity high to gate."
        elif j.origin == "custom":
            text = f"Custom rule {j.name} failed at severity {j.severity}, which advises."
            key = "deploy_rule.severity"
            text += " Redeploy at severity high or critical to gate."
        else:
            key = _SETTING_FOR.get(j.name, "eval.defaultsGate")
            text = (
                f"{j.name} fired at its shipped default threshold, which advises. "
                f"Set {key} (or eval.defaultsGate: true) to make it gate."
            )
        out.append(
            {
                "severity": "warn",
                "addressee": "operator",
                "rule": j.name,
                "text": text,
                "configKey": key,
            }
        )
    return out
