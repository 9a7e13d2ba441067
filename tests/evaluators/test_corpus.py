"""Every rule's F1 on the corpus is at least the original's published F1;
every custom type is exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.proof.harness import ProofResults, run_proof

CORPUS = Path(__file__).resolve().parents[2] / "proof" / "corpus"
FLOORS = {
    "min_output_length": 1,
    "non_empty_output": 0.9091,
    "sentence_count": 1,
    "expected_coverage": 1,
    "valid_tool_arguments": 1,
    "ask_coverage": 0.7857,
    "tool_sequence": 1,
    "keyword_overlap": 1,
    "topic_consistency": 0.9565,
    "tool_choice": 0.9474,
    "answers_the_ask": 0.9302,
    "no_pii": 0.8889,
    "no_blocklist_words": 0.9333,
    "no_injection_patterns": 0.988,
    "no_stub_output": 0.7792,
    "no_hallucination_markers": 0.85,
    "no_silent_tool_failure": 0.7778,
    "grounded_in_reads": 1,
    "no_injection_compliance": 0.7826,
    "cost_under_threshold": 1,
    "verbosity_ratio": 1,
    "no_tool_loop": 1,
    "max_steps": 1,
    "cost_anomaly": 1,
    "step_budget": 1,
}


@pytest.fixture(scope="module")
def results() -> ProofResults:
    return run_proof(CORPUS)


@pytest.mark.parametrize("rule", sorted(FLOORS))
def test_rule_f1_floor(results: ProofResults, rule: str) -> None:
    row = next(r for r in results.rules if r["rule"] == rule)
    assert row["f1"] >= FLOORS[rule], (
        f"{rule}: F1 {row['f1']} < {FLOORS[rule]} (FP {row['fp_ids']}, FN {row['fn_ids']})"
    )


def test_custom_types_exact(results: ProofResults) -> None:
    assert len(results.custom) == 9
    for row in results.custom:
        assert row["f1"] == 1.0, row
