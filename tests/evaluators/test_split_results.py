"""``evaluate_for_storage`` gives what ``evaluate`` gives, its rule results apart.

For a planned evaluation (built-in rules only, a known plan key) the storing
entry hands back the plan's rule descriptions and per rule its other values
(``evaluators.splitresults``). These check that the whole results read from
that form are ``evaluate``'s, as JSON with key order, with and without the
compiled ``refill_values``, for outcomes the plan was not made from; that the
form's items are fresh dicts; and that static keys the split cannot serve
give the whole list.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluators import engine
from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest
from evaluators.rules.base import Outcome, RuleSpec
from evaluators.rules.registry import RULES
from evaluators.splitresults import DESCRIPTION_KEYS, RuleDescription, SplitResults
from tests.support.texts import bench_cases

STATIC = DESCRIPTION_KEYS
CONFIGS = [
    EngineConfig(),
    EngineConfig(required_evidence=("input", "tool_calls")),
    EngineConfig(critical_rules=("no_pii", "max_steps"), on_critical_skipped="fail"),
    EngineConfig(prior_mode="per-class", rule_thresholds={"max_steps": 3}),
]
CASES = list(bench_cases(200)[:16]) + [
    dataclasses.replace(c, eval_type=t)
    for c in bench_cases(200)[:3]
    for t in ("safety", "cost", "custom")
]
_RUN = engine._run_builtin


def _whole(result: dict[str, Any]) -> str:
    rules = result["rule_results"]
    if isinstance(rules, SplitResults):
        result = {**result, "rule_results": rules.whole()}
    return json.dumps(result)


def _pair(req: EvaluationRequest, cfg: EngineConfig) -> tuple[dict[str, Any], str]:
    """The storing entry's result, and ``evaluate``'s as JSON."""
    return engine.evaluate_for_storage(req, cfg, static_keys=STATIC), json.dumps(
        engine.evaluate(req, cfg)
    )


def test_bench_cases_apart_equal_evaluate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_PLANS", {})
    for cfg in CONFIGS:
        for req in CASES:
            for second in (False, True):  # the second from the plan
                got, want = _pair(req, cfg)
                assert _whole(got) == want
                if second and got["verdict"]["basis"] != "no_rules":  # else no plan
                    assert isinstance(got["rule_results"], SplitResults)


def test_without_the_kernel_apart_equal_evaluate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_resultkernel", None)
    monkeypatch.setattr(engine, "_ROWS", {})
    monkeypatch.setattr(engine, "_PLANS", {})
    for req in CASES:
        for _ in range(2):
            got, want = _pair(req, EngineConfig())
            assert _whole(got) == want


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_outcomes_the_plan_was_not_made_from_come_apart_equal(
    monkeypatch: pytest.MonkeyPatch, data: st.DataObject
) -> None:
    current: dict[str, Outcome] = {}

    def run(spec: RuleSpec, ctx: EvalContext) -> Outcome:
        return current[spec.name]

    monkeypatch.setattr(engine, "_run_builtin", run)
    monkeypatch.setattr(engine, "_PLANS", {})
    req = data.draw(st.sampled_from(CASES))
    cfg = data.draw(st.sampled_from(CONFIGS))
    ctx = EvalContext(req, cfg)
    base = {s.name: _RUN(s, ctx) for s in RULES}
    text = st.text(max_size=8)
    for _ in range(2):  # the first makes the plan
        current.clear()
        for name, o in base.items():
            current[name] = dataclasses.replace(
                o,
                score=data.draw(st.floats(0, 1) | st.sampled_from([0, 1, 0.5])),
                message=data.draw(text),
                skip_reason=data.draw(st.none() | text) if o.skipped else o.skip_reason,
                evidence=list(o.evidence) + data.draw(st.lists(st.just({"type": "span"}))),
                value=data.draw(st.none() | st.integers()),
            )
        for kernel in (engine._resultkernel, None):
            monkeypatch.setattr(engine, "_resultkernel", kernel)
            got, want = _pair(req, cfg)
            assert _whole(got) == want


def test_items_are_fresh_whole_results(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_PLANS", {})
    req = CASES[0]
    engine.evaluate(req)
    rules = engine.evaluate_for_storage(req, static_keys=STATIC)["rule_results"]
    assert isinstance(rules, SplitResults)
    first = rules[0]
    first["uncertainty"]["basis"] = "changed"
    first["classes"].append("changed")
    assert rules[0] != first
    assert list(rules) == rules.whole() == rules[:]
    assert json.dumps(rules.whole()) == json.dumps(engine.evaluate(req)["rule_results"])
    again = engine.evaluate_for_storage(req, static_keys=STATIC)["rule_results"]
    assert isinstance(again, SplitResults) and again.descriptions is rules.descriptions


def test_split_results_is_a_sequence_and_a_list_is_not_split_results() -> None:
    """Compiled, a subclass of ``Sequence`` read the ABC's registry as its
    own: after a list was checked against ``Sequence`` it was a
    ``SplitResults`` too (and callers asked it for ``whole()``)."""
    assert isinstance([], Sequence) and isinstance((), Sequence)
    assert not isinstance([], SplitResults) and not isinstance((), SplitResults)
    assert isinstance(SplitResults((), []), Sequence)


def test_static_keys_the_split_cannot_serve_give_the_whole_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine, "_PLANS", {})
    req = CASES[1]
    for keys in (STATIC | {"score"}, STATIC, frozenset(("evidence",))):
        for _ in range(2):
            got, want = _pair(req, EngineConfig())
            result = engine.evaluate_for_storage(req, static_keys=keys)
            assert isinstance(result["rule_results"], list) == (keys != STATIC)
            assert _whole(result) == want
            assert _whole(got) == want


def test_a_description_reads_its_values() -> None:
    d = RuleDescription(("rule", "verdict", "score"), STATIC, {"rule": "r", "verdict": None})
    assert (d.static_keys, d.dynamic_keys, d.static) == (("rule",), ("verdict", "score"), ("r",))
    assert d.value(["fail", 0.5], "verdict") == "fail"
    assert d.value(["fail", 0.5], "rule") == "r"
    assert d.value(["fail", 0.5], "absent", 7) == 7
    assert d.whole(["fail", [1]]) == {"rule": "r", "verdict": "fail", "score": [1]}
    values: list[Any] = ["fail", [1]]
    view, whole = d.view(values), d.whole(values)
    assert list(view.items()) == list(whole.items())
    assert view["score"] is values[1] and whole["score"] is not values[1]
    assert (d.position("score"), d.position("rule"), d.position("absent")) == (1, None, None)
