"""The detectors' compiled findings glue equals its Python reference.

``_findkernel.resolve`` must keep what ``findings.resolve_overlaps_reference``
keeps (the same Candidate objects, in order), ``spans`` must build the
findings ``finalize``'s identity branch builds, and ``evidence`` must return
what ``detected._evidence_reference`` returns: on arbitrary candidates
(overlapping, empty, negative, huge, odd priorities, astral text), on every
proof-corpus and bench text through the three detectors, with a fallback to
the reference for inputs outside the kernel's shape, and with the modules
using the kernel when built and giving the same results without it.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.detectors import findings, injection, pii
from evaluators.detectors.findings import Candidate, Finding
from evaluators.rules import detected
from evaluators.text.normalize import NormalizedText, normalize
from tests.support.texts import bench_cases, corpus_strings

kernel = pytest.importorskip("evaluators.detectors._findkernel")

KINDS = st.sampled_from(["email", "ssn", "b", "a", "aa", "é", "😀", "", "ignore_instructions"])
INTS = st.one_of(
    st.integers(-3, 40), st.sampled_from([2**61 - 1, -(2**61) + 1, 2**61, 2**63, -(2**70)])
)


@st.composite
def candidates(draw: st.DrawFn) -> list[Candidate]:
    out = []
    for _ in range(draw(st.integers(0, 14))):
        start = draw(st.integers(-2, 30))
        end = start + draw(st.integers(-2, 12))
        out.append(
            Candidate(draw(KINDS), draw(KINDS), start, end, draw(KINDS), draw(st.integers(-2, 40)))
        )
    return out


def _same_objects(a: list[Candidate], b: list[Candidate]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


@given(candidates())
@example([])
@example([Candidate("a", "c", 0, 5, "d", 1), Candidate("b", "c", 0, 5, "d", 1)])
@example([Candidate("a", "c", 0, 5, "d", 1), Candidate("b", "c", 2, 9, "d", 1)])
@example([Candidate("a", "c", 3, 3, "d", 9), Candidate("b", "c", 2, 9, "d", 0)])
@settings(max_examples=600, deadline=None)
def test_resolve_keeps_what_the_reference_keeps(cands: list[Candidate]) -> None:
    got = kernel.resolve(cands, Candidate)
    assert got is not None
    assert _same_objects(got, findings.resolve_overlaps_reference(cands))
    assert _same_objects(findings.resolve_overlaps(cands), got)


@given(st.lists(st.tuples(INTS, INTS, INTS), max_size=8))
@settings(max_examples=300, deadline=None)
def test_resolve_on_extreme_ints(fields: list[tuple[int, int, int]]) -> None:
    cands = [Candidate("k", "c", s, e, "d", p) for s, e, p in fields]
    want = findings.resolve_overlaps_reference(cands)
    got = kernel.resolve(cands, Candidate)
    if got is not None:
        assert _same_objects(got, want)
    assert _same_objects(findings.resolve_overlaps(cands), want)


def test_resolve_leaves_odd_candidates_to_the_reference() -> None:
    good = Candidate("k", "c", 0, 4, "d", 1)
    for odd in (
        ("k", "c", 0, 4, "d", 1),  # a plain tuple: the reference reads .start
        Candidate("k", "c", 0.0, 4, "d", 1),  # type: ignore[arg-type]
        Candidate("k", "c", 0, 4, "d", True),
        Candidate("k", "c", 0, 2**70, "d", 1),
    ):
        assert kernel.resolve([good, odd], Candidate) is None
    # an iterator or a tuple goes to the reference as well, with the same result
    cands = [good, Candidate("j", "c", 1, 9, "d", 0)]
    assert findings.resolve_overlaps(iter(cands)) == findings.resolve_overlaps(cands)
    assert findings.resolve_overlaps(tuple(cands)) == [good]  # higher priority wins
    with pytest.raises(TypeError):
        kernel.resolve((good,), Candidate)  # type: ignore[arg-type]


@given(candidates(), st.text(max_size=40))
@example([Candidate("a", "c", 0, 2, "d", 1)], "😀é")
@settings(max_examples=400, deadline=None)
def test_finalize_on_the_identity_view_builds_the_reference_findings(
    cands: list[Candidate], raw: str
) -> None:
    norm = NormalizedText.identity(raw, raw)
    kept = findings.resolve_overlaps_reference(cands)
    inside = not kept or (kept[0].start >= 0 and kept[-1].end <= len(raw))
    if not inside:
        return  # the checked path, which is not the kernel's
    want = [Finding(k, c, s, e, raw[s:e], d) for k, c, s, e, d, _ in kept]
    got = kernel.spans(kept, raw, Finding)
    assert got == want
    assert all(type(f) is Finding for f in got)
    assert findings.finalize(norm, cands) == want


def test_spans_refuses_what_it_cannot_build() -> None:
    with pytest.raises(ValueError):
        kernel.spans([Candidate("a", "c", 0, 9, "d", 0)], "abc", Finding)
    with pytest.raises(ValueError):
        kernel.spans([("a", "c", 0)], "abc", Finding)
    with pytest.raises(TypeError):
        kernel.spans([], "abc", dict)
    with pytest.raises(TypeError):
        kernel.spans([], b"abc", Finding)  # type: ignore[arg-type]


@st.composite
def finding_lists(draw: st.DrawFn) -> list[Finding]:
    return [
        Finding(draw(KINDS), "c", s, s + 1, "m", "d")
        for s in draw(st.lists(st.integers(0, 10**6), max_size=30))
    ]


@given(finding_lists(), st.booleans())
@settings(max_examples=400, deadline=None)
def test_evidence_equals_the_reference(found: list[Finding], with_names: bool) -> None:
    got = kernel.evidence(found, Finding, with_names)
    want = detected._evidence_reference(found, with_names)
    assert got == want
    assert detected._evidence(found, with_names) == got
    # the same keys in the same order (the result JSON keeps dict order)
    assert [list(d) for d in got[0]] == [list(d) for d in want[0]]
    if with_names and found:
        assert got[2] and "×" in got[2]


def test_evidence_leaves_other_records_to_the_reference() -> None:
    f = Finding("a", "c", 0, 1, "m", "d")
    assert kernel.evidence([f, ("a", "c", 0, 1, "m", "d")], Finding, True) is None
    assert detected._evidence((f, f)) == kernel.evidence([f, f], Finding, True)
    assert kernel.evidence([], Finding, True) == ([], [], "")


def _texts() -> list[str]:
    return [*corpus_strings(), *(c.output or "" for c in bench_cases(200))]


def test_the_detectors_on_corpus_and_bench_match_the_reference() -> None:
    for raw in _texts():
        norm = findings.normalized(raw)
        for found in (pii.find_pii(raw), injection.find_injection(raw)):
            assert detected._evidence(found) == detected._evidence_reference(found)
        t = norm.text
        present = pii.personal._piikernel.present(t, pii._GATE_LITERALS)
        cands = pii.find_personal_candidates(t, present) + pii.find_secret_candidates(
            t, pii._raw_break_checker(norm), present
        )
        assert _same_objects(
            findings.resolve_overlaps(cands), findings.resolve_overlaps_reference(cands)
        )
    assert normalize("x").is_identity


def test_the_modules_use_the_kernel_when_built() -> None:
    assert findings._findkernel is kernel
    assert detected._detector("evaluators.detectors._findkernel", "evidence") is kernel.evidence


def test_the_rules_fall_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = EngineConfig()
    cases = bench_cases(200)[:80]
    rules = (detected.no_pii, detected.no_injection_patterns, detected.no_blocklist_words)

    def run() -> list[object]:
        findings.normalized.cache_clear()
        return [rule(EvalContext(r, cfg)) for r in cases for rule in rules]

    with_kernel = run()
    monkeypatch.setattr(findings, "_findkernel", None)
    monkeypatch.setitem(detected._CACHE, "evaluators.detectors._findkernel.evidence", None)
    assert run() == with_kernel
