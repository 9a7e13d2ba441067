"""Engine shape, determinism and SPEC §21.5 scenarios 2, 6, 7, 8, 9."""

from __future__ import annotations

import json
import time

import pytest

from evaluators.config import EngineConfig
from evaluators.custom import InvalidRuleConfig, validate_definition
from evaluators.engine import evaluate
from evaluators.model import ToolCall
from evaluators.request import EvaluationRequest

TOP_KEYS = {
    "eval_type",
    "score",
    "passed",
    "verdict",
    "coverage",
    "provenance",
    "rule_results",
    "suggestions",
    "rules_evaluated",
    "rules_skipped",
    "insufficient_data",
    "critical_failures",
    "critical_skipped",
    "categories",
    "interpretations",
}


def _req(**kw: object) -> EvaluationRequest:
    base: dict[str, object] = {
        "output": "Paris is the capital of France. It sits on the Seine.",
        "input": "What is the capital of France?",
    }
    base.update(kw)
    return EvaluationRequest(**base)  # type: ignore[arg-type]


def test_shape_and_all_26_rules() -> None:
    r = evaluate(_req())
    assert set(r) >= TOP_KEYS
    assert len(r["rule_results"]) == 26
    for rr in r["rule_results"]:
        assert {
            "rule",
            "passed",
            "skipped",
            "score",
            "message",
            "kind",
            "mechanism",
            "role",
            "question",
            "classes",
            "saw",
            "evidence",
            "uncertainty",
        } <= set(rr)
        if rr["skipped"]:
            assert rr["passed"] is False and rr["skipReason"]


def test_byte_identical() -> None:
    req = _req(
        tool_calls=(ToolCall("search", {"q": "x"}, "ok"),),
        cost_usd=0.2,
        judged_at="2026-01-01T00:00:00Z",
    )
    a = json.dumps(evaluate(req), sort_keys=True)
    b = json.dumps(evaluate(req), sort_keys=True)
    assert a == b
    assert json.loads(a)["provenance"]["judgedAt"] == "2026-01-01T00:00:00Z"


def test_scenario_2_deployed_critical_regex_gates() -> None:
    rule = validate_definition(
        {
            "name": "no_internal_hostnames",
            "evalType": "safety",
            "severity": "critical",
            "definition": {"type": "regex_no_match", "config": {"pattern": r"\.internal\b"}},
        }
    )
    r = evaluate(
        EvaluationRequest(output="Connect to db-primary.internal.example now.", eval_type="safety"),
        deployed_rules=[rule],
    )
    assert r["passed"] is False
    assert r["critical_failures"] == ["no_internal_hostnames"]
    assert r["verdict"]["basis"] == "policy_gate"


def test_scenario_6_unknown_trace_is_callers_job() -> None:
    # The engine has no storage; a trace id never reaches it.
    # Building a request never stores anything.
    with pytest.raises(TypeError):
        EvaluationRequest(output="x", trace_id="0" * 32)  # type: ignore[call-arg]


def test_scenario_7_default_all_with_note_and_null_cost_row() -> None:
    r = evaluate(_req())
    assert r["eval_type"] == "all" and "note" in r
    assert r["categories"]["cost"]["passed"] is None
    assert r["categories"]["cost"]["insufficient_data"] is True


@pytest.mark.parametrize("mode", ["unknown", "pass"])
def test_scenario_8_critical_cost_threshold_without_cost(mode: str) -> None:
    rule = validate_definition(
        {
            "name": "budget",
            "evalType": "cost",
            "severity": "critical",
            "definition": {"type": "cost_threshold", "config": {"max_cost": 0.05}},
        }
    )
    cfg = EngineConfig(on_critical_skipped=mode)  # type: ignore[arg-type]
    r = evaluate(_req(), cfg, deployed_rules=[rule])
    res = next(x for x in r["rule_results"] if x["rule"] == "budget")
    assert res["skipped"] and res["skipClass"] == "not_applicable"
    assert "budget" in r["critical_skipped"]
    if mode == "unknown":
        assert r["verdict"]["state"] == "unknown"
        assert r["verdict"]["basis"] == "required_evidence_missing"
        assert r["verdict"]["by"] == ["cost"]
    else:
        assert r["verdict"]["basis"] != "required_evidence_missing"


def test_scenario_9_regex_refusals_and_budget() -> None:
    with pytest.raises(InvalidRuleConfig) as exc:
        validate_definition(
            {
                "name": "r",
                "evalType": "custom",
                "definition": {"type": "regex_match", "config": {"pattern": "(a+)+$"}},
            }
        )
    assert exc.value.field == "config.pattern"
    for pat, word in (
        (r"(a)\1", "backreference"),
        ("(?=a)b", "lookahead"),
        ("(?<!a)b", "lookbehind"),
        ("a" * 1001, "too long"),
    ):
        with pytest.raises(InvalidRuleConfig, match=word):
            validate_definition(
                {"name": "r", "definition": {"type": "regex_match", "config": {"pattern": pat}}}
            )
    ok = validate_definition(
        {
            "name": "slow",
            "severity": "critical",
            "definition": {"type": "regex_match", "config": {"pattern": "a.*b"}},
        }
    )
    t0 = time.perf_counter()
    r = evaluate(
        EvaluationRequest(
            output="a" * 200_000,
            eval_type="custom",
            custom_rules=({"name": "len", "type": "min_length", "config": {"min_length": 1}},),
        ),
        deployed_rules=[ok],
        regex_budget_ms=0.0,
    )
    assert time.perf_counter() - t0 < 0.1 + 0.5
    res = r["rule_results"][0]
    assert res["skipped"] and res["budgetExceeded"] and res["skipClass"] == "defeated"
    assert r["critical_skipped"] == ["slow"]
    assert r["verdict"]["basis"] == "critical_unknown"


def test_inline_rules_advise_only() -> None:
    r = evaluate(
        _req(
            custom_rules=(
                {"name": "kw", "type": "contains_keywords", "config": {"keywords": ["zebra"]}},
            )
        )
    )
    res = next(x for x in r["rule_results"] if x["rule"] == "kw")
    assert res["passed"] is False and res["role"] == "advisory"
    assert "kw" not in r["critical_failures"]


def test_inline_broken_rule_skips_config_invalid() -> None:
    r = evaluate(_req(custom_rules=({"name": "bad", "type": "regex_match", "config": {}},)))
    res = next(x for x in r["rule_results"] if x["rule"] == "bad")
    assert res["skipped"] and res["skipClass"] == "config_invalid"


def test_config_validation_is_loud() -> None:
    with pytest.raises(ValueError, match="no_pii"):
        EngineConfig(critical_rules=("no_pi",))
    with pytest.raises(ValueError, match="both"):
        EngineConfig(critical_rules=("max_steps",), non_critical_rules=("max_steps",))
    with pytest.raises(ValueError, match="legacy"):
        EngineConfig(composer="legacy")


def test_promoted_silent_failure_vetoes() -> None:
    cfg = EngineConfig(critical_rules=("no_silent_tool_failure",))
    req = EvaluationRequest(
        output="The table has 12 rows.",
        input="How many rows?",
        tool_calls=(ToolCall("sqlite", {"query": "select"}, "Error: no such table: users"),),
    )
    r = evaluate(req, cfg)
    assert r["critical_failures"] == ["no_silent_tool_failure"]
    res = next(x for x in r["rule_results"] if x["rule"] == "no_silent_tool_failure")
    assert res["critical"] is True and res["criticalSource"] == "config"


def test_empty_output_gates() -> None:
    r = evaluate(EvaluationRequest(output="  ", eval_type="completeness"))
    assert r["verdict"]["basis"] == "policy_gate" and "non_empty_output" in r["verdict"]["by"]


def test_steps_skip_reasons() -> None:
    r = evaluate(EvaluationRequest(output="x", eval_type="cost", tool_calls=()))
    res = next(x for x in r["rule_results"] if x["rule"] == "max_steps")
    assert res["skipped"] and "empty" in res["skipReason"]
