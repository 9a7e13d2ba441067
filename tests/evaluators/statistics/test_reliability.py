"""compare_traces (SPEC §12.2 / §5.11), including the SPEC's own worked examples."""

from __future__ import annotations

import pytest

from evaluators.statistics import EvalRow, RuleOutcome, compare_traces


def _rows(spec: dict[str, list[bool]], run: str = "r1") -> list[EvalRow]:
    out = []
    for key, results in spec.items():
        for i, ok in enumerate(results):
            out.append(
                EvalRow(f"e-{key}-{i}", passed=ok, case_key=key, run=run, trace_id=f"t-{key}-{i}")
            )
    return out


def test_spec_21_5_scenario_12_five_cases_ten_repeats_all_passing() -> None:
    """5 cases × 10 repeats all passing ⇒ overall [0.478, 1] (Clopper–Pearson on 5 of 5)."""
    r = compare_traces(_rows({f"case-{i}": [True] * 10 for i in range(5)}))
    out = r.to_dict()
    assert out["cases"] == 5 and out["attempts"] == 50
    assert out["overall"] == {"rate": 1.0, "lo": 0.4782, "hi": 1.0}
    assert r.overall is not None
    assert r.overall.lo == pytest.approx(0.025 ** (1 / 5), abs=1e-12)  # closed form
    assert out["overall"]["lo"] < out["overall"]["hi"]  # never [1, 1]
    # The pooled reading (Wilson on 50/50) is narrower and flagged as such.
    assert out["pooled"] == {"rate": 1.0, "lo": 0.9287, "hi": 1.0, "narrower": True}
    assert "narrower than the data supports" in out["summary"]
    assert "Nothing visibly flaky" in out["summary"]


def test_spec_12_2_ten_of_ten_gives_69_2_to_100() -> None:
    """SPEC §12.2 step 6: 10 of 10 passing ⇒ [69.2%, 100%]."""
    r = compare_traces(_rows({f"c{i}": [True, True] for i in range(10)}))
    assert r.overall is not None
    assert round(r.overall.lo * 100, 1) == 69.2
    assert r.overall.lo == pytest.approx(0.025 ** (1 / 10), abs=1e-12)
    assert r.overall.hi == 1.0


def test_cases_count_once_at_their_own_rate() -> None:
    r = compare_traces(_rows({"a": [True, False, True, True], "b": [True], "c": [False, False]}))
    out = r.to_dict()
    # k = 0.75 + 1 + 0 over n = 3 (fractional successes)
    assert r.overall is not None and r.overall.rate == pytest.approx(1.75 / 3)
    assert out["by_case"][0]["case_key"] == "c"  # least reliable first
    assert [c["case_key"] for c in out["by_case"]] == ["c", "a", "b"]
    assert [c["case_key"] for c in out["flaky_cases"]] == ["a"]
    assert out["flaky_cases"][0]["passed"] == 3 and out["flaky_cases"][0]["attempts"] == 4
    assert out["by_case"][1]["interval"] is not None
    assert "a (3/4)" in out["summary"]


def test_ties_order_by_case_key_and_runs_are_sorted() -> None:
    rows = _rows({"z": [True, False]}, run="r2") + _rows({"z": [True]}, run="r1")
    rows += _rows({"y": [False, True]}, run="r1")
    r = compare_traces(rows)
    assert [c.case_key for c in r.by_case] == ["y", "z"]
    assert r.by_case[1].runs == ("r1", "r2")


def test_min_attempts_and_filters() -> None:
    rows = _rows({"a": [True, False], "b": [True]}, run="r1") + _rows({"c": [False]}, run="r2")
    assert compare_traces(rows, min_attempts=2).cases == 1
    assert compare_traces(rows, run="r2").cases == 1
    assert compare_traces(rows, case_key="a").to_dict()["case_key"] == "a"


def test_question_uses_the_rules_answering_it_not_the_verdict() -> None:
    def row(i: int, passed: bool, rules: tuple[RuleOutcome, ...]) -> EvalRow:
        return EvalRow(f"e{i}", passed=passed, case_key="k", rules=rules)

    g_pass = RuleOutcome("grounded_in_reads", "passed", question="grounded")
    g_fail = RuleOutcome("grounded_in_reads", "failed", question="grounded")
    g_skip = RuleOutcome("grounded_in_reads", "skipped", question="grounded")
    other = RuleOutcome("no_pii", "failed", question="safe_output")
    rows = [
        row(1, False, (g_pass, other)),  # verdict failed, question passed
        row(2, True, (g_fail,)),  # verdict passed, question failed
        row(3, True, (g_skip,)),  # did not judge the question: ignored
        row(4, True, ()),  # ignored
    ]
    r = compare_traces(rows, question="grounded")
    assert r.attempts == 2
    assert r.by_case[0].passed == 1
    with pytest.raises(ValueError):
        compare_traces(rows, question="nonsense")


def test_group_by_session() -> None:
    rows = [
        EvalRow("e1", passed=True, session_id="s1"),
        EvalRow("e2", passed=False, session_id="s1"),
        EvalRow("e3", passed=True, case_key="k-without-session"),
    ]
    r = compare_traces(rows, group_by="session")
    assert r.cases == 1 and r.by_case[0].flaky
    assert r.to_dict()["group_by"] == "session"


def test_empty_result_explains_how_to_get_case_keys() -> None:
    out = compare_traces([EvalRow("e", passed=True)]).to_dict()
    assert out["cases"] == 0 and out["overall"] is None and out["pooled"] is None
    assert "case_key" in out["summary"]
    out = compare_traces([], group_by="session").to_dict()
    assert "session_id" in out["summary"]


def test_deterministic() -> None:
    rows = _rows({"a": [True, False, True], "b": [False, True]})
    assert compare_traces(rows).to_dict() == compare_traces(list(reversed(rows))).to_dict()
