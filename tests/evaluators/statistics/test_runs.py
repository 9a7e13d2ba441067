"""compare_runs (SPEC §12.3 / §5.10) and the re-evaluation helpers (§12.4 / §5.12)."""

from __future__ import annotations

import pytest

from evaluators.statistics import (
    Dataset,
    EvalRow,
    IncomparableRuns,
    RuleOutcome,
    RunData,
    compare_runs,
    mcnemar_exact,
    plan_reevaluation,
    reevaluation_run_id,
    smallest_detectable,
)
from evaluators.statistics.reevaluation import ReevaluationOutcome
from evaluators.statistics.rows import Outcome

PROV = {
    "engine_version": "0.1.0",
    "ruleset_hash": "a" * 64,
    "config_hash": "c" * 64,
    "agent_name": "bot",
    "eval_type": "all",
}


def _row(
    run: str,
    key: str | None,
    passed: bool,
    *,
    rules: tuple[RuleOutcome, ...] = (),
    state: str = "",
    created: str = "2025-01-01T00:00:00",
    trace: str | None = None,
    **prov: str,
) -> EvalRow:
    p = {**PROV, **prov}
    return EvalRow(
        evaluation_id=f"ev-{run}-{key}-{trace or ''}-{created}",
        passed=passed,
        state=state,
        trace_id=trace or f"tr-{run}-{key}",
        case_key=key,
        run=run,
        rules=rules,
        agent_name=p["agent_name"],
        engine_version=p["engine_version"],
        ruleset_hash=p["ruleset_hash"],
        config_hash=p["config_hash"],
        eval_type=p["eval_type"],
        created_at=created,
    )


def _run(run: str, outcomes: dict[str, bool], **prov: str) -> RunData:
    return RunData(run, [_row(run, k, ok, **prov) for k, ok in outcomes.items()])


def test_spec_21_5_scenario_13_config_hashes_differ() -> None:
    before = _run("b", {f"k{i}": True for i in range(10)})
    after = _run("a", {f"k{i}": True for i in range(10)}, config_hash="d" * 64)
    with pytest.raises(IncomparableRuns) as err:
        compare_runs(before, after)
    out = err.value.result.to_dict()
    assert out["comparable"] is False and out["forced"] is False
    assert len(out["incomparable_because"]) == 1
    assert "different configurations" in out["incomparable_because"][0]
    assert out["incomparable_because"][0].endswith(".")
    assert out["method"] == "none" and out["difference"] is None
    assert out["before"]["config_hashes"] == ["c" * 64]
    forced = compare_runs(before, after, force=True).to_dict()
    assert forced["forced"] is True and forced["comparable"] is False
    assert forced["incomparable_because"] == out["incomparable_because"]
    assert forced["method"] == "paired-mcnemar"


def test_comparability_reasons() -> None:
    base = {f"k{i}": True for i in range(4)}
    patch_only = compare_runs(_run("b", base), _run("a", base, engine_version="0.1.7"))
    assert patch_only.comparable  # patches ignored
    cases = [
        ({"engine_version": "0.2.0"}, "Engine minor versions differ"),
        ({"ruleset_hash": "b" * 64}, "different rulesets"),
        ({"agent_name": "other"}, "different agents"),
        ({"eval_type": "safety"}, "different eval types"),
    ]
    for prov, words in cases:
        with pytest.raises(IncomparableRuns) as err:
            compare_runs(_run("b", base), _run("a", base, **prov))
        assert any(words in r for r in err.value.reasons), (prov, err.value.reasons)
    mixed = RunData("m", [_row("m", "k1", True), _row("m", "k2", True, ruleset_hash="e" * 64)])
    with pytest.raises(IncomparableRuns) as err:
        compare_runs(_run("b", base), mixed)
    assert any("mixes 2 ruleset hashes" in r for r in err.value.reasons)


def test_reevaluation_pair_is_allowed_and_measures_the_evaluator() -> None:
    base = {f"k{i}": True for i in range(6)}
    after = _run("src+reeval-bbbbbbbbbbbb", base, ruleset_hash="b" * 64)
    after = RunData(after.run_id, after.rows, reevaluation_of="src")
    r = compare_runs(_run("src", base), after)
    assert r.comparable and r.measures == "evaluator"
    assert any("different rulesets" in x for x in r.evaluator_changes)
    assert "measures the evaluator change, not the agent" in r.summary


def test_paired_regression_is_called_worse() -> None:
    before = {f"k{i}": True for i in range(40)}
    after = dict(before)
    for i in range(9):
        after[f"k{i}"] = False
    r = compare_runs(_run("b", before), _run("a", after))
    out = r.to_dict()
    assert out["method"] == "paired-mcnemar"
    assert out["paired"]["b"] == 9 and out["paired"]["c"] == 0 and out["paired"]["pairs"] == 40
    assert out["paired"]["p_value"] == pytest.approx(2 * 0.5**9, abs=1e-4)
    assert out["worse"] and out["call"] == "worse" and not out["better"]
    assert out["difference"]["hi"] < 0 and out["difference"]["significant"]
    assert out["interval_level"] == 0.9
    assert out["smallest_detectable"] is None
    assert out["discordant_total"] == 9
    assert all(d["direction"] == "regressed" for d in out["discordant"])


def test_paired_small_change_is_undetermined_with_detectable_size() -> None:
    before = {f"k{i}": i % 2 == 0 for i in range(30)}
    after = dict(before)
    after["k0"] = False
    after["k1"] = True
    after["k2"] = False
    r = compare_runs(_run("b", before), _run("a", after))
    assert r.call == "undetermined"
    assert r.paired is not None and (r.paired.b, r.paired.c) == (2, 1)
    assert r.paired.p_worse == pytest.approx(mcnemar_exact(2, 1).p_worse)
    assert r.smallest_detectable == pytest.approx(smallest_detectable(30, 30))
    assert r.smallest_detectable is not None
    assert r.smallest_detectable == pytest.approx(
        (1.6448536269514722 + 0.8416212335729143) * (0.25 * (2 / 30)) ** 0.5
    )
    assert r.cases_to_decide is not None and r.cases_to_decide.design == "paired"
    assert r.cases_to_decide.cases > 30
    out = r.to_dict()
    assert out["detectable_power"] == 0.8
    assert "Undetermined" in out["summary"] and "Equivalence was not tested" in out["summary"]
    # discordant: regressions first
    assert [d["direction"] for d in out["discordant"]] == ["regressed", "regressed", "recovered"]


def test_unpaired_when_no_shared_keys() -> None:
    before = _run("b", {f"b{i}": i < 90 for i in range(100)})
    after = _run("a", {f"a{i}": i < 70 for i in range(100)})
    out = compare_runs(before, after).to_dict()
    assert out["method"] == "unpaired-newcombe" and out["paired"] is None
    assert out["difference"]["delta"] == pytest.approx(-0.2)
    assert out["call"] == "worse"
    assert out["difference_95"]["lo"] < out["difference"]["lo"]
    assert out["before"]["interval"]["lo"] < 0.9 < out["before"]["interval"]["hi"]


def test_equivalence_with_caller_margin() -> None:
    before = {f"k{i}": i % 5 != 0 for i in range(400)}
    after = dict(before)
    after["k0"] = True
    after["k1"] = False
    r = compare_runs(_run("b", before), _run("a", after), equivalence_margin=0.05)
    assert r.call == "equivalent"
    assert r.equivalent_within is not None and r.equivalent_within.holds
    out = r.to_dict()["equivalent_within"]
    assert out["margin_source"] == "caller" and out["margin"] == 0.05
    assert out["interval"]["lo"] > -0.05 and out["interval"]["hi"] < 0.05
    small = compare_runs(
        _run("b", dict(list(before.items())[:20])),
        _run("a", dict(list(after.items())[:20])),
        equivalence_margin=0.05,
    )
    assert small.call == "undetermined"
    with pytest.raises(ValueError):
        compare_runs(_run("b", before), _run("a", after), equivalence_margin=0.0)


def _rules(**outcomes: Outcome) -> tuple[RuleOutcome, ...]:
    return tuple(RuleOutcome(name, o, critical=name == "no_pii") for name, o in outcomes.items())


def test_per_rule_regressions_with_benjamini_hochberg() -> None:
    rb, ra = [], []
    for i in range(60):
        key = f"k{i}"
        before_rules = _rules(
            no_stub_output="passed",
            max_steps="passed",
            no_pii="passed",
            sentence_count="failed" if i < 10 else "passed",
        )
        after_rules = _rules(
            no_stub_output="failed" if i < 12 else "passed",  # clear regression
            max_steps="failed" if i == 0 else "passed",  # one new fail: not significant
            no_pii="failed" if i == 5 else "passed",  # critical: counted, not tested
            sentence_count="passed",  # improvement
        )
        rb.append(_row("b", key, True, rules=before_rules))
        ra.append(_row("a", key, i >= 12, rules=after_rules))
    r = compare_runs(RunData("b", rb), RunData("a", ra))
    out = r.to_dict()
    assert out["rules_tested"] == 4
    regs = {x["rule"]: x for x in out["regressions"]}
    assert regs["no_stub_output"]["worse"] is True
    assert regs["no_stub_output"]["test"] == "mcnemar-exact"
    assert regs["no_stub_output"]["q"] <= 0.05
    assert regs["max_steps"]["worse"] is False
    assert out["regressions"][0]["rule"] == "no_stub_output"  # worst first
    assert [x["rule"] for x in out["improvements"]] == ["sentence_count"]
    assert "sentence_count" not in regs
    assert out["critical_rises"] == [
        {"rule": "no_pii", "failed_before": 0, "failed_after": 1, "new_on": ["k5"]}
    ]
    flip = out["discordant"][0]
    assert flip["direction"] == "regressed" and "no_stub_output" in flip["rules"]
    assert flip["before_evaluation_id"] != flip["after_evaluation_id"]


def test_coverage_lost_withholds_an_improvement() -> None:
    rb, ra = [], []
    for i in range(40):
        before_rules = _rules(
            no_stub_output="failed" if i < 12 else "passed", grounded_in_reads="passed"
        )
        after_rules = _rules(no_stub_output="passed", grounded_in_reads="skipped")
        rb.append(_row("b", f"k{i}", i >= 12, rules=before_rules))
        ra.append(_row("a", f"k{i}", True, rules=after_rules))
    r = compare_runs(RunData("b", rb), RunData("a", ra))
    assert r.paired is not None and r.paired.c == 12
    assert not r.better and r.improvement_withheld and r.call == "undetermined"
    lost = r.to_dict()["coverage"]["lost"]
    assert lost == [
        {
            "rule": "grounded_in_reads",
            "judged_before": 40,
            "of_before": 40,
            "judged_after": 0,
            "of_after": 40,
            "on_shared": 0,
        }
    ]
    assert "withheld" in r.summary
    # the rule that ran in one run only is not tested
    assert r.rules_tested == 1


def test_unknown_counts_as_not_checked_and_fell_not_checked() -> None:
    before = RunData("b", [_row("b", f"k{i}", True) for i in range(5)])
    after = RunData(
        "a", [_row("a", f"k{i}", i != 0, state="unknown" if i == 0 else "") for i in range(5)]
    )
    out = compare_runs(before, after).to_dict()
    assert out["after"]["not_checked"] == 1 and out["after"]["n"] == 5
    assert out["after"]["passed"] == 4
    assert out["paired"]["b"] == 1 and out["paired"]["fell_not_checked"] == 1


def test_most_recent_evaluation_per_trace_wins() -> None:
    rows = [
        _row("b", "k1", False, trace="t1", created="2025-01-01T00:00:00"),
        _row("b", "k1", True, trace="t1", created="2025-01-02T00:00:00"),
        _row("b", "k2", True, trace="t2"),
    ]
    out = compare_runs(RunData("b", rows), _run("a", {"k1": True, "k2": True})).to_dict()
    assert out["before"]["n"] == 2 and out["before"]["passed"] == 2
    assert out["before"]["superseded"] == 1


def test_dataset_restriction() -> None:
    before = _run("b", {"k1": True, "k2": True, "k3": False})
    after = RunData(
        "a",
        [
            *_run("a", {"k1": False, "k2": True, "x": True}).rows,
            _row("a", None, True, trace="nokey"),
        ],
    )
    ds = Dataset("ds-1", "golden", 2, frozenset({"k1", "k2"}))
    out = compare_runs(before, after, dataset=ds).to_dict()
    assert out["dataset"] == {
        "id": "ds-1",
        "label": "golden",
        "version": 2,
        "cases": 2,
        "matched_before": 2,
        "matched_after": 2,
    }
    assert out["before"]["n"] == 2 and out["after"]["n"] == 2


def test_empty_run_gives_method_none() -> None:
    out = compare_runs(_run("b", {"k": True}), RunData("a", [])).to_dict()
    assert out["method"] == "none" and out["difference"] is None and out["call"] == "undetermined"


def test_discordant_list_is_capped() -> None:
    before = {f"k{i:04d}": True for i in range(450)}
    after = {k: False for k in before}
    out = compare_runs(_run("b", before), _run("a", after)).to_dict()
    assert len(out["discordant"]) == 200 and out["discordant_total"] == 450


def test_from_stored_evaluation_shape() -> None:
    ev = {
        "id": "eval_1",
        "trace_id": "t" * 32,
        "eval_type": "safety",
        "passed": False,
        "verdict": {"state": "unknown", "passed": False},
        "provenance": {"irisVersion": "0.1.0", "rulesetHash": "r", "configHash": "c"},
        "rule_results": [
            {"ruleName": "no_pii", "verdict": "fail", "critical": True, "question": "safe_output"},
            {"ruleName": "max_steps", "verdict": "skipped", "skipped": True},
            {"ruleName": "x", "passed": True},
        ],
        "run": "r1",
        "case_key": "k",
        "session_id": None,
        "agent_name": "bot",
        "created_at": "2025-01-01T00:00:00Z",
    }
    row = EvalRow.from_evaluation(ev)
    assert row.not_checked and row.engine_version == "0.1.0" and row.ruleset_hash == "r"
    assert [(r.rule, r.outcome, r.critical) for r in row.rules] == [
        ("no_pii", "failed", True),
        ("max_steps", "skipped", False),
        ("x", "passed", False),
    ]


def test_compare_runs_is_deterministic() -> None:
    before = _run("b", {f"k{i}": i % 3 != 0 for i in range(50)})
    after = _run("a", {f"k{i}": i % 4 != 0 for i in range(50)})
    assert (
        compare_runs(before, after).to_dict()
        == compare_runs(
            RunData("b", list(reversed(before.rows))), RunData("a", list(reversed(after.rows)))
        ).to_dict()
    )


def test_reevaluation_run_id_and_plan() -> None:
    rid = reevaluation_run_id("nightly-1", "0123456789abcdef" * 4)
    assert rid == "nightly-1+reeval-0123456789ab"
    assert reevaluation_run_id("nightly-1", "0123456789abcdef" * 4) == rid
    assert len(reevaluation_run_id("x" * 400, "f" * 64)) == 256
    plan = plan_reevaluation(
        "nightly-1", ["t1", "t2", "t3", "t2"], "H", {"t1": "H", "t2": "old", "t3": None}
    )
    assert plan.target_run == "nightly-1+reeval-H"
    assert plan.to_evaluate == ("t2", "t3") and plan.already_current == ("t1",)
    again = plan_reevaluation(
        "nightly-1", ["t1", "t2", "t3"], "H", {"t1": "H", "t2": "H", "t3": "H"}
    )
    assert again.to_evaluate == () and again.traces == 3  # a repeat does no work
    out = ReevaluationOutcome(plan, evaluated=1, passed=1, failed=(("t3", "no output"),)).to_dict()
    assert out["already_current"] == 1 and out["failed"] == [
        {"trace_id": "t3", "reason": "no output"}
    ]
    assert out["run"] == "nightly-1+reeval-H" and out["source_run"] == "nightly-1"
