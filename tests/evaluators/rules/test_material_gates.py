"""The material's one literal pass answers every gate as the ``in`` tests did.

no_hallucination_markers' signals gate on literals of the material (lowered,
or as written for the case-sensitive patterns). Each gate was ``any(lit in
hay for lit in literals)``; now one pass over the lowered material reports
which literals occur (``Material.literals``) and each gate reads it
(``_MaterialGate``). On any material, including non-ASCII text and the
characters that lower to ASCII or to more than one character, a gate must
answer what the ``in`` tests answer, and its candidates must keep every
literal that occurs; the month-stem gate must leave the dates unchanged, and
the attribution leads read from the output's family pass must find the same
cues.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from evaluators.text.starts import tried_at
from tests.support.texts import bench_strings, corpus_strings

# every gate of the module: the named ones and the failure table's
GATES: tuple[hg._MaterialGate, ...] = (
    *(v for v in vars(hg).values() if isinstance(v, hg._MaterialGate)),
    *(row[5] for row in hg._FAILURE_TABLE),
)
assert len(GATES) >= 18

_LITERALS = sorted({lit for gate in GATES for lit in gate.literals})

pieces = st.one_of(
    st.sampled_from(_LITERALS),
    st.sampled_from(_LITERALS).map(str.upper),
    st.sampled_from(_LITERALS).map(str.title),
    st.sampled_from(
        [
            " ", "\n", "a", "0", "1", ":", "=", "-", "ſ", "\u212a", "İ", "é", "Σ", "→", "≥",
            "sept 3", "March 4, 2026", "4th of may", "2026-09-01", "MAR", "ſep 9", "jan.",
        ]
    ),
)  # fmt: skip
texts = st.lists(pieces, max_size=24).map("".join)


def _check(text: str) -> None:
    mat = hg.Material.build(text)
    for gate in GATES:
        hay = mat.text if gate.exact else mat.lower
        assert gate.holds(mat) is any(lit in hay for lit in gate.literals), gate.literals
        kept = gate.candidates(mat)
        assert [lit for lit in gate.literals if lit in kept] == list(kept)  # in order
        assert all(lit in kept for lit in gate.literals if lit in hay)
    assert mat.dates == hg.dates(mat.text)


@given(texts)
@example("Status: FAILED on March 4")
@example("ſep 9, 2026 HTTP/1.1 500")
@settings(max_examples=500, deadline=None)
def test_gates_answer_the_in_tests(text: str) -> None:
    _check(text)


def test_gates_on_real_texts() -> None:
    for text in (*corpus_strings(), *bench_strings()):
        _check(text)


attribution_texts = st.lists(
    st.sampled_from([*hg._ATTRIBUTION_LEADS, " says", "x", " ", ".", "\n", "THE REPORT"]),
    max_size=16,
).map("".join)


@given(attribution_texts)
@settings(max_examples=300, deadline=None)
def test_attribution_leads_from_the_family_pass(output: str) -> None:
    low = output.lower()
    there = hg._ATTRIBUTION_LEAD_SET.present(low)
    leads = tuple(lead for lead in hg._ATTRIBUTION_LEADS if lead in there)
    every = hg._occurrences(low, hg._ATTRIBUTION_LEADS)
    assert sorted(set(hg._occurrences(low, leads))) == sorted(set(every))
    found = [m.span() for m in tried_at(hg._ATTRIBUTION_LOWER, low, hg._occurrences(low, leads))]
    assert found == [m.span() for m in hg._ATTRIBUTION_LOWER.finditer(low)]
