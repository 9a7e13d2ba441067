"""finalize()/resolve_overlaps() and the Finding/Candidate records.

The fast paths (NamedTuple records, the identity-view shortcut in finalize)
are checked against the plain reference sweep they replaced, on random
candidate sets over ASCII and non-ASCII texts.
"""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.detectors.findings import Candidate, Finding, finalize, resolve_overlaps
from evaluators.text import NormalizedText, normalize


def _reference_resolve(cands: list[Candidate]) -> list[Candidate]:
    kept: list[Candidate] = []
    for c in sorted(cands, key=lambda c: (c.start, -c.priority, c.start - c.end)):
        if c.end <= c.start:
            continue
        if kept and c.start < kept[-1].end:
            a, b = c, kept[-1]
            if (a.priority, a.end - a.start) > (b.priority, b.end - b.start):
                kept[-1] = c
            continue
        kept.append(c)
    return kept


def _reference_finalize(norm: NormalizedText, cands: list[Candidate]) -> list[Finding]:
    out: list[Finding] = []
    last_end = -1
    offsets = norm.offsets  # always the explicit table
    for c in _reference_resolve(cands):
        if c.start == c.end:
            s = e = offsets[c.start]
        else:
            s, e = offsets[c.start], offsets[c.end - 1] + 1
        if s < last_end or e <= s:
            continue
        out.append(Finding(c.kind, c.category, s, e, norm.raw[s:e], c.detail))
        last_end = e
    return out


_TEXTS = st.one_of(
    st.text(alphabet=st.sampled_from("ab c.\n\t"), max_size=40),
    st.text(alphabet=st.sampled_from("ab cﬁ\u200bİß\u212aé\u0301\U0001f600  \u00a0"), max_size=40),
)


@st.composite
def _case(draw: st.DrawFn) -> tuple[str, list[Candidate]]:
    raw = draw(_TEXTS)
    size = len(normalize(raw).text)
    bound = st.integers(min_value=0, max_value=size)
    cands = []
    for i in range(draw(st.integers(min_value=0, max_value=12))):
        a, b = draw(bound), draw(bound)
        prio = draw(st.integers(min_value=0, max_value=3))
        cands.append(Candidate(f"k{i % 3}", "cat", min(a, b), max(a, b), f"d{i}", prio))
    return raw, cands


@settings(max_examples=400, deadline=None)
@given(_case())
def test_finalize_matches_the_reference(case: tuple[str, list[Candidate]]) -> None:
    raw, cands = case
    norm = normalize(raw)
    assert resolve_overlaps(cands) == _reference_resolve(cands)
    got = finalize(norm, cands)
    assert got == _reference_finalize(norm, cands)
    for f in got:
        assert type(f) is Finding
        assert raw[f.start : f.end] == f.matched


def test_identity_view_and_explicit_table_finalize_alike() -> None:
    raw = "Call me at x@y.io or at z@w.io"
    ident = normalize(raw)
    assert ident.is_identity
    explicit = NormalizedText(raw, ident.text, tuple(range(len(raw) + 1)))
    assert not explicit.is_identity
    cands = [Candidate("email", "pii", 11, 17, "e", 20), Candidate("email", "pii", 24, 30, "e", 20)]
    assert finalize(ident, cands) == finalize(explicit, cands)
    assert [f.matched for f in finalize(ident, cands)] == ["x@y.io", "z@w.io"]


def test_out_of_range_candidate_still_raises() -> None:
    norm = normalize("abc")
    try:
        finalize(norm, [Candidate("k", "c", 1, 9, "d")])
    except ValueError:
        return
    raise AssertionError("a span past the text must raise")


def test_records_keep_their_fields_and_behaviour() -> None:
    c = Candidate(kind="k", category="c", start=1, end=3, detail="d")
    assert c.priority == 0 and c == Candidate("k", "c", 1, 3, "d", 0)
    f = Finding("k", "c", 1, 3, "xy", "d")
    assert f == Finding(kind="k", category="c", start=1, end=3, matched="xy", detail="d")
    assert hash(f) == hash(Finding("k", "c", 1, 3, "xy", "d"))
    assert pickle.loads(pickle.dumps(f)) == f
    assert repr(f) == "Finding(kind='k', category='c', start=1, end=3, matched='xy', detail='d')"
    try:
        f.start = 2  # type: ignore[misc]
    except AttributeError:
        return
    raise AssertionError("findings are immutable")


_CROWDED = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 6), st.integers(0, 2)), max_size=20
).map(
    lambda spans: [
        Candidate(f"k{i}", "c", min(a, b), max(a, b), f"d{i}", p)
        for i, (a, b, p) in enumerate(spans)
    ]
)


@settings(max_examples=1000, deadline=None)
@given(_CROWDED)
def test_resolve_overlaps_on_crowded_ties(cands: list[Candidate]) -> None:
    # Many candidates share a start, a priority and a length: the start-only
    # sort must keep exactly what the full-key sort kept.
    assert resolve_overlaps(cands) == _reference_resolve(cands)
    assert resolve_overlaps(reversed(cands)) == _reference_resolve(list(reversed(cands)))
