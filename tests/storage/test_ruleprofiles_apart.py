"""Rule results handed over apart (``evaluate_for_storage``) are stored as whole ones are.

``ruleprofiles.split`` of a ``SplitResults`` must write the same text and name
the same profiles as ``split`` of the whole list it stands for, and
``failed_rule_rows`` must give the same rows; where the split form cannot be
written directly (a value orjson refuses, descriptions apart by other keys)
the whole list's path decides.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import Engine, select

from evaluators import engine as eng
from evaluators.engine import evaluate, evaluate_for_storage
from evaluators.request import EvaluationRequest
from evaluators.splitresults import RuleDescription, SplitResults
from storage import ruleprofiles
from storage.evaluations import (
    evaluations,
    evaluations_to_api,
    failed_rule_rows,
    store_evaluation,
)
from tests.support.texts import bench_cases

T0 = datetime(2026, 1, 1, 12, 0, 0)
CASES = list(bench_cases(200)[:20]) + [
    dataclasses.replace(c, eval_type="safety") for c in bench_cases(200)[:3]
]


def _apart(req: EvaluationRequest) -> tuple[SplitResults, dict[str, Any]]:
    """The storing entry's result of ``req`` from its plan, and ``evaluate``'s."""
    for _ in range(2):  # the plan is made (the very first call reads the figures)
        evaluate(req)
    result = evaluate_for_storage(req, static_keys=ruleprofiles.STATIC_KEYS)
    rules = result["rule_results"]
    assert isinstance(rules, SplitResults)
    return rules, evaluate(req)


def test_split_of_results_apart_is_split_of_the_whole_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(eng, "_PLANS", {})
    for req in CASES:
        for _ in range(2):  # the second from the cached profile ids
            rules, whole = _apart(req)
            got, want = ruleprofiles.split(rules), ruleprofiles.split(whole["rule_results"])
            assert type(got[0]) is type(want[0]) is ruleprofiles.jsontext.Encoded
            assert got == want
            result = {**whole, "rule_results": rules}
            assert failed_rule_rows(result, "e", "t", T0) == failed_rule_rows(whole, "e", "t", T0)


def test_failed_rules_apart_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(eng, "_PLANS", {})
    req = EvaluationRequest(output="", input="What is the capital of France?")
    rules, whole = _apart(req)
    rows = failed_rule_rows({"rule_results": rules}, "e", "t", T0)
    assert rows and rows == failed_rule_rows(whole, "e", "t", T0)


def _made(results: list[dict[str, Any]], static_keys: frozenset[str]) -> SplitResults:
    """``results`` (of one key order, one rule) apart by ``static_keys``."""
    d = RuleDescription(tuple(results[0]), static_keys, results[0])
    return SplitResults(
        tuple(d for _ in results), [[r[k] for k in d.dynamic_keys] for r in results]
    )


def test_a_value_orjson_cannot_write_is_stored_whole() -> None:
    whole = [{"rule": "r", "verdict": "fail", "score": 0.5, "value": 2**70}]
    rules = _made(whole, ruleprofiles.STATIC_KEYS)
    assert ruleprofiles.split(rules) == (whole, {})


def test_results_apart_by_other_keys_are_stored_as_their_whole_list() -> None:
    whole = [
        {"rule": "r", "note": "n", "verdict": "pass", "score": 1.0, "value": None},
        {"rule": "r", "note": "n", "verdict": "fail", "score": 0.0, "value": 3},
    ]
    for keys in (frozenset(("rule", "note")), frozenset(), ruleprofiles.STATIC_KEYS):
        rules = _made(whole, keys)
        assert rules.whole() == whole
        assert ruleprofiles.split(rules) == ruleprofiles.split(whole)


def test_stored_apart_reads_back_as_stored_whole(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(eng, "_PLANS", {})
    req = CASES[0]
    rules, whole = _apart(req)
    with engine.begin() as conn:
        store_evaluation(conn, tenant_id="t", result=whole, now=T0, evaluation_id="e1")
        apart = {**whole, "rule_results": rules}
        store_evaluation(conn, tenant_id="t", result=apart, now=T0, evaluation_id="e2")
    with engine.connect() as conn:
        rows = list(conn.execute(select(evaluations).order_by(evaluations.c.id)))
        raw = [r.rule_results for r in rows]
        api = evaluations_to_api(conn, rows)
    assert raw[0] == raw[1]
    assert api[0]["rule_results"] == api[1]["rule_results"]
