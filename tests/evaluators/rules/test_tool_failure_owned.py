"""``owns_failure``'s early answer equals the clause-by-clause reading.

When the whole (capped) output holds no "neither " and does not acknowledge
(hedges counted), ``owns_failure`` answers False without splitting the
output into sentences and clauses (see ``_acknowledges_anywhere``). With the
early answer turned off it must read every clause to the same verdict, on
texts built from the acknowledgement, hedge and denial phrases, the clause
breaks and sentence ends, the subject words, case-changing characters, and
on the corpus and bench outputs against their failed steps' subjects.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.context import Step, _make_step
from evaluators.rules import tool_failure as tf
from tests.support.texts import bench_cases, corpus_strings

FRAGMENTS = [
    *tf.ACKNOWLEDGEMENT_PHRASES[:12], *tf.UNCERTAINTY_PHRASES, *tf.DENIAL_PHRASES,
    *tf.CLAUSE_BREAKS, *tf.SUBJECT_NEGATIONS, "neither ", " nor ", "Neither", "NOR",
    "config.yaml", "config", "yaml", "billing", "Billing", "report", "a.ts", "the file ",
    ". ", "! ", "? ", "\n", " ", ",", "no", " errors", "error", "s", "Σ", "İ", "ß", "é", "😀",
]  # fmt: skip
texts = st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join)
inputs = st.sampled_from(
    [
        {"path": "src/config.yaml"},
        {"query": "billing report totals"},
        {"path": "a.ts"},
        "read the billing config",
        {"argv": ["cat", "config.yaml", "report"]},
        None,
    ]
)


def _step(inp: object) -> Step:
    return _make_step(0, "read_file", inp, None, "boom", None, None)


def _both(step: Step, output: str, monkeypatch: pytest.MonkeyPatch) -> tuple[bool, bool]:
    fast = tf.owns_failure(step, output, output.lower())
    with monkeypatch.context() as m:
        m.setattr(tf, "_acknowledges_anywhere", lambda low, whole: True)
        slow = tf.owns_failure(step, output, output.lower())
    return fast, slow


@given(texts, inputs)
@example("The config.yaml read failed, so no totals.", {"path": "src/config.yaml"})
@example("Billing: neither the report nor totals.", {"query": "billing report totals"})
@example("The billing report had no errors and it is missing", {"query": "billing report"})
@settings(max_examples=800, deadline=None)
def test_early_answer_is_the_clause_reading(output: str, inp: object) -> None:
    with pytest.MonkeyPatch.context() as mp:
        fast, slow = _both(_step(inp), output, mp)
    assert fast == slow


def test_on_corpus_and_bench_outputs(monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = [*corpus_strings()[:400], *(c.output for c in bench_cases())]
    for inp in ({"path": "src/config.yaml"}, {"query": "the schedule report"}, "ls src"):
        for out in outputs:
            fast, slow = _both(_step(inp), out, monkeypatch)
            assert fast == slow
