"""Result assembly from cached templates builds exactly what the plain builder built.

The engine now builds a built-in rule's result dict by copying a cached
per-rule template and its published-accuracy uncertainty from a cached
per-(rule, fired, prior) copy. These properties compare every result with the
plain construction it replaced, key order included (``json.dumps`` without
``sort_keys``), and check that no two results share a mutable object.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import engine
from evaluators.composer import (
    RISK_KINDS,
    Composition,
    Layer,
    assign_roles,
    categories,
    compose,
    decides,
)
from evaluators.config import EngineConfig
from evaluators.judged import Judged
from evaluators.proof import figures
from evaluators.risk import Detector, estimate
from evaluators.rules.base import MAX_EVIDENCE_ITEMS, Outcome
from evaluators.rules.registry import RULES
from tests.support.judged import builtin_judged


def _uncertainty_plain(j: Judged, cfg: EngineConfig, pi_class: float) -> dict[str, Any]:
    if j.kind in ("policy", "judgment") or j.origin != "builtin":
        return (
            {"basis": "policy"}
            if j.kind == "policy" or j.origin != "builtin"
            else {"basis": "unmeasured", "why": "no keyed run"}
        )
    c = figures.counts(j.name)
    if c is None:
        return {"basis": "unmeasured", "why": "no published family"}
    if j.kind in ("detection", "inference"):
        iv = engine.rule_ppv_interval(j.name, pi_class)
        assert iv is not None
        source = "default" if cfg.prior == 0.5 else "config"
        return {
            "basis": "published_accuracy",
            "fired": j.fired,
            "prior": {"pi": round(pi_class, 4), "source": source},
            "corpus": {
                "n": c.n,
                "tp": c.tp,
                "fp": c.fp,
                "fn": c.fn,
                "tn": c.tn,
                "version": c.version,
                "release": c.release,
                "labelling": "same-model",
            },
            "ppv": {"point": round(iv[0], 4), "lo": round(iv[1], 4), "hi": round(iv[2], 4)},
            "missRate": {"point": round(iv[3], 4), "lo": round(iv[4], 4), "hi": round(iv[5], 4)},
        }
    return {"basis": "definition", "conformance": {"n": c.n, "matched": c.tp + c.tn}}


def _result_dict_plain(j: Judged, cfg: EngineConfig, pi_class: float) -> dict[str, Any]:
    """The result builder before templates: one dict literal per result."""
    o = j.outcome
    d: dict[str, Any] = {
        "rule": j.name,
        "ruleName": j.name,
        "verdict": "skipped" if o.skipped else ("pass" if o.passed else "fail"),
        "passed": bool(o.passed) if not o.skipped else False,
        "skipped": o.skipped,
        "score": round(o.score, 4),
        "message": o.message,
        "category": j.bundle,
        "kind": j.kind,
        "mechanism": j.mechanism,
        "role": j.role,
        "question": j.question,
        "classes": list(j.classes),
        "saw": list(o.saw),
        "critical": j.critical,
        "criticalSource": j.critical_source,
        "origin": j.origin,
        "ruleVersion": j.version,
        "evidence": o.evidence[:MAX_EVIDENCE_ITEMS],
        "uncertainty": _uncertainty_plain(j, cfg, pi_class),
    }
    if j.rule_id:
        d["ruleId"] = j.rule_id
    if o.skipped:
        d["skipClass"] = o.skip_class
        d["skipReason"] = o.skip_reason
        if o.lacked:
            d["lacked"] = list(o.lacked)
    if o.budget_exceeded:
        d["budgetExceeded"] = True
    if o.config_invalid:
        d["configInvalid"] = True
    if o.value is not None:
        d["value"] = o.value
    if j.asked:
        d["asked"] = True
    return d


_outcomes = st.builds(
    Outcome,
    passed=st.booleans(),
    score=st.floats(0, 1),
    message=st.text(max_size=10),
    evidence=st.lists(st.fixed_dictionaries({"type": st.just("count")}), max_size=25),
    skipped=st.booleans(),
    skip_class=st.sampled_from([None, "not_applicable", "defeated", "config_invalid"]),
    skip_reason=st.none() | st.text(max_size=5),
    saw=st.lists(st.sampled_from(["output", "input"]), max_size=2).map(tuple),
    value=st.none() | st.just({"x": 1}),
    budget_exceeded=st.booleans(),
    config_invalid=st.booleans(),
    lacked=st.lists(st.sampled_from(["input", "tool_calls"]), max_size=2).map(tuple),
    asked=st.booleans(),
)


@st.composite
def _judged(draw: st.DrawFn) -> Judged:
    spec = draw(st.sampled_from(RULES))
    # mostly a rule's own metadata, sometimes another's under its name (the
    # template key must hold every metadata field, not just the name)
    other = draw(st.sampled_from(RULES))
    meta = other if draw(st.integers(0, 4)) == 0 else spec
    return Judged(
        spec.name,
        meta.bundle,
        meta.kind,
        meta.mechanism,
        meta.question,
        meta.classes,
        meta.needs,
        meta.weight,
        draw(st.booleans()),
        draw(st.sampled_from(["default", "config"])),
        draw(st.sampled_from(["builtin", "builtin", "custom", "inline"])),
        draw(st.sampled_from([meta.version, meta.version + 1])),
        draw(_outcomes),
        severity=draw(st.sampled_from([None, "high"])),
        rule_id=draw(st.sampled_from([None, "r-1"])),
        role=draw(st.sampled_from(["advisory", "gate", "veto", "risk"])),
    )


@settings(max_examples=500, deadline=None)
@given(
    st.lists(_judged(), min_size=1, max_size=8),
    st.sampled_from([0.5, 0.2, 0.5 ** (1 / 3), 1 - 0.5**0.25]),
    st.sampled_from([0.5, 0.2]),
)
def test_result_dicts_match_plain_builder(js: list[Judged], pi: float, prior: float) -> None:
    cfg = EngineConfig(prior=prior)
    for _ in range(2):  # the second round reads the caches the first filled
        got = [engine._result_dict(j, cfg, pi) for j in js]
        want = [_result_dict_plain(j, cfg, pi) for j in js]
        assert json.dumps(got) == json.dumps(want)


def test_results_share_no_mutable_object() -> None:
    spec = next(s for s in RULES if s.kind == "detection")
    j = builtin_judged(spec, Outcome(True, 1.0, "ok"))
    cfg = EngineConfig()
    a, b = engine._result_dict(j, cfg, 0.5), engine._result_dict(j, cfg, 0.5)
    assert a == b
    a["classes"].append("x")
    a["uncertainty"]["corpus"]["n"] = -1
    a["uncertainty"]["ppv"]["point"] = -1
    a["rule"] = "changed"
    c = engine._result_dict(j, cfg, 0.5)
    assert c == b


# -- the composer ------------------------------------------------------------------


def _compose_plain(
    results: list[Judged], cfg: EngineConfig, present: dict[str, bool]
) -> Composition:
    """The composer before its one-split rewrite (risk keyed by Detector tuples)."""
    assign_roles(results, cfg)
    evaluated = [j for j in results if not j.skipped]
    crit_failures = [
        j.name
        for j in evaluated
        if j.fired and j.critical and (j.kind != "policy" or decides(j, cfg))
    ]
    crit_skipped = [
        j.name
        for j in results
        if j.skipped and j.critical and (j.outcome.skip_class != "not_applicable" or j.asked)
    ]
    layers: list[Layer] = []

    if not evaluated:
        layer = Layer("no_rules", "unknown", ())
        return Composition(
            "unknown", "no_rules", [], [], None, None, None, crit_failures, crit_skipped, [layer]
        )

    gate = [j for j in evaluated if j.fired and decides(j, cfg)]
    if gate:
        layers.append(
            Layer("policy_gate", "fail", tuple(j.name for j in gate), tuple(j.name for j in gate))
        )
    veto = [j for j in evaluated if j.fired and j.critical and j.kind not in ("policy", "judgment")]
    if veto:
        layers.append(
            Layer("detector_veto", "fail", tuple(j.name for j in veto), tuple(j.name for j in veto))
        )
    unk = [
        j
        for j in results
        if j.skipped and j.critical and j.outcome.skip_class in ("defeated", "config_invalid")
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
    for j in results:
        if j.skipped and j.outcome.skip_class == "not_applicable" and j.asked:
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

    dets = tuple(
        sorted(
            (
                Detector(j.name, cls, j.fired)
                for j in evaluated
                if j.kind in RISK_KINDS and j.origin == "builtin" and not j.critical
                for cls in j.classes[:1]
            ),
            key=lambda d: (d.cls, d.name),
        )
    )
    risk = estimate(dets, cfg.prior, cfg.prior_mode) if dets else None
    if risk is not None and risk.p_bad > cfg.tau:
        risk_by = tuple(c for c, q in risk.by_class if q > 0.5) or (
            max(risk.by_class, key=lambda kv: kv[1])[0],
        )
        fired_rules = tuple(d.name for d in dets if d.fired) or tuple(d.name for d in dets)
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


_configs = st.builds(
    EngineConfig,
    critical_rules=st.lists(st.sampled_from([s.name for s in RULES]), max_size=3).map(tuple),
    on_critical_skipped=st.sampled_from(["unknown", "fail", "pass"]),
    required_evidence=st.lists(
        st.sampled_from(["output", "input", "tool_calls", "cost"]), max_size=2
    ).map(tuple),
    defaults_gate=st.booleans(),
    false_pass_cost=st.sampled_from([1.0, 0.25, 9.0]),
    prior=st.sampled_from([0.5, 0.2]),
    prior_mode=st.sampled_from(["per-output", "per-class"]),
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_judged(), max_size=12),
    _configs,
    st.dictionaries(st.sampled_from(["input", "tool_calls"]), st.booleans()),
)
def test_compose_matches_plain_composer(
    js: list[Judged], cfg: EngineConfig, present: dict[str, bool]
) -> None:
    got = compose(js, cfg, present)
    roles = [j.role for j in js]
    want = _compose_plain(js, cfg, present)
    assert [j.role for j in js] == roles
    assert got == want


_RANK = {"pass": 0, "unknown": 1, "fail": 2}


def _categories_plain(
    results: list[Judged], comp: Composition, bundles: list[str]
) -> dict[str, dict[str, Any]]:
    """``categories`` before the deciding layers were computed once per verdict."""
    rows: dict[str, dict[str, Any]] = {}
    by_rule = {j.name: j for j in results}
    by_bundle: dict[str, list[Judged]] = {}  # one pass, in result order
    for j in results:
        by_bundle.setdefault(j.bundle, []).append(j)
    for b in bundles:
        mine = by_bundle.get(b, [])
        ev = [j for j in mine if not j.skipped]
        wsum = sum(j.weight for j in ev)
        score = round(sum(j.outcome.score * j.weight for j in ev) / wsum, 4) if wsum else None
        row: dict[str, Any] = {
            "score": score,
            "passed": None,
            "rules_evaluated": len(ev),
            "rules_skipped": len(mine) - len(ev),
            "insufficient_data": not ev,
        }
        cf = [n for n in comp.critical_failures if by_rule.get(n) and by_rule[n].bundle == b]
        cs = [n for n in comp.critical_skipped if by_rule.get(n) and by_rule[n].bundle == b]
        if cf:
            row["critical_failures"] = cf
        if cs:
            row["critical_skipped"] = cs
        if ev:
            state = "pass"
            if comp.state != "pass":
                for layer in comp.layers:
                    if layer.state == "pass":
                        continue
                    if layer.basis == "required_evidence_missing" and not layer.rules:
                        hit = True
                    else:
                        hit = any(
                            by_rule.get(n) is not None and by_rule[n].bundle == b
                            for n in layer.rules
                        )
                    if hit and _RANK[layer.state] > _RANK[state]:
                        state = layer.state
            row["passed"] = {"pass": True, "fail": False, "unknown": None}[state]
        rows[b] = row
    return rows


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_judged(), max_size=12),
    _configs,
    st.lists(
        st.sampled_from(["completeness", "relevance", "safety", "correctness", "cost", "custom"]),
        max_size=6,
    ),
)
def test_categories_match_plain(js: list[Judged], cfg: EngineConfig, bundles: list[str]) -> None:
    comp = compose(js, cfg, {})
    assert categories(js, comp, bundles) == _categories_plain(js, comp, bundles)
