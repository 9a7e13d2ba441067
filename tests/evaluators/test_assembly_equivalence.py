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
from evaluators.config import EngineConfig
from evaluators.judged import Judged
from evaluators.proof import figures
from evaluators.rules.base import MAX_EVIDENCE_ITEMS, Outcome
from evaluators.rules.registry import RULES


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
    j = Judged(
        spec.name,
        spec.bundle,
        spec.kind,
        spec.mechanism,
        spec.question,
        spec.classes,
        spec.needs,
        spec.weight,
        False,
        "default",
        "builtin",
        spec.version,
        Outcome(True, 1.0, "ok"),
    )
    cfg = EngineConfig()
    a, b = engine._result_dict(j, cfg, 0.5), engine._result_dict(j, cfg, 0.5)
    assert a == b
    a["classes"].append("x")
    a["uncertainty"]["corpus"]["n"] = -1
    a["uncertainty"]["ppv"]["point"] = -1
    a["rule"] = "changed"
    c = engine._result_dict(j, cfg, 0.5)
    assert c == b
