"""The compiled unsupported-location loop equals the pure-Python reference.

``grounding._unsupported_claims`` runs ``_numkernel.unsupported`` when the
extension is built; ``_unsupported_claims_reference`` (``_unsupported_in``
per distinct location) is what it must return: the same claims, in order,
repeats kept. Locations, reads and tails are drawn from the characters the
fold and the segment split decide on (every str kind, astral characters,
letters ``str.lower`` lengthens), and taken from the proof corpus and the
bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import grounding
from tests.evaluators.rules.test_numkernel import _bench_texts, _corpus_texts

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _claims(text: str) -> list[tuple[int, int, str]]:
    return grounding.extract_claims_reference(text)


def _same(claims: list[tuple[int, int, str]], reads: list[str], tails: list[str]) -> None:
    want = grounding._unsupported_claims_reference(claims, grounding._Ground(reads, tails))
    ground = grounding._Ground(reads, tails)
    got = kernel.unsupported(
        claims, ground.tokens, tails, grounding.UBIQUITOUS, grounding.fold_location
    )
    assert got == want
    assert all(any(g is c for c in claims) for g in got)  # the claims themselves


pieces = st.sampled_from(
    [
        "/", "//", ".", "./", "..", "a", "B", "_", "-", "#", "?", "#x", "?q=1", "://", "http://",
        "src", "Src/", "x.TS", "mod.ts", "README.md", "package.json", ".env", '"', "'", ",", ")",
        " ", "\t", "\n", "\xa0", "é", "İ", "ß", "\u212a", "😀", "Σ", "ǅ", "abc", "abcdef",
    ]
)  # fmt: skip
words = st.lists(pieces, max_size=12).map("".join)


@given(
    st.lists(words, max_size=8),
    st.lists(words, max_size=4),
    st.lists(words, max_size=4),
)
@example(["src/a.ts", "src/a.ts", "README.md", "x/./", "İ/x.py"], ["cat src/a.ts"], ["abc"])
@example(["docs/guide.md", "b/abcdef.ts"], [], ["abc", "ab", "x/abcd", "ABCDEF.TS"])
@settings(max_examples=800, deadline=None)
def test_the_loop_equals_the_reference(locs: list[str], reads: list[str], tails: list[str]) -> None:
    _same([(i, i + len(loc), loc) for i, loc in enumerate(locs)], reads, [t for t in tails if t])


@given(
    st.lists(st.text(max_size=30), max_size=6),
    st.text(max_size=60),
    st.lists(st.text(max_size=20), max_size=3),
)
@settings(max_examples=800, deadline=None)
def test_the_loop_equals_the_reference_on_any_text(
    locs: list[str], read: str, tails: list[str]
) -> None:
    _same([(0, len(loc), loc) for loc in locs], [read], tails)


@pytest.mark.parametrize(
    "loc", ["", "/", ".", "a" * 600 + ".ts", "/".join(["seg"] * 300), "x/" * 400 + "#", "😀/" * 50]
)
def test_the_loop_equals_the_reference_on_edges(loc: str) -> None:
    _same([(0, 1, loc), (1, 2, loc)], ["x " + loc[:100]], [loc[:50], "x" * 300])


def test_the_loop_equals_the_reference_on_the_corpus_and_bench() -> None:
    texts = _corpus_texts() + _bench_texts()
    for i, text in enumerate(texts):
        reads = [texts[i - 1], texts[(i * 7) % len(texts)]]
        tails = [r.rsplit(None, 1)[-1] for r in reads if r.split()]
        _same(_claims(text), reads, tails)


def test_the_ground_is_built_only_for_a_location_that_needs_it() -> None:
    calls: list[int] = []

    def tokens() -> set[str]:
        calls.append(1)
        return set()

    claims = [(0, 12, "package.json"), (13, 14, "/")]
    assert (
        kernel.unsupported(claims, tokens, [], grounding.UBIQUITOUS, grounding.fold_location) == []
    )
    assert calls == []


def test_the_rule_runs_the_kernel_when_built() -> None:
    assert grounding._numkernel is kernel


def test_the_rule_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    from evaluators.config import EngineConfig
    from evaluators.context import EvalContext
    from evaluators.model import ToolCall
    from evaluators.request import EvaluationRequest

    req = EvaluationRequest(
        output="I read src/app.ts and docs/guide.md; see lib/x.py.",
        input="Check the app",
        tool_calls=(ToolCall("read_file", {"path": "src/app.ts"}, "export const a = 1"),),
    )
    with_kernel = grounding.grounded_in_reads(EvalContext(req, EngineConfig()))
    monkeypatch.setattr(grounding, "_numkernel", None)
    without = grounding.grounded_in_reads(EvalContext(req, EngineConfig()))
    assert with_kernel == without
    assert not without.passed and "docs/guide.md" in without.message


def test_the_kernel_checks_its_arguments() -> None:
    u, f = grounding.UBIQUITOUS, grounding.fold_location
    with pytest.raises(TypeError):
        kernel.unsupported([(0, 1, b"x")], set, [], u, f)
    with pytest.raises(TypeError):
        kernel.unsupported([(0, 1)], set, [], u, f)
    with pytest.raises(TypeError):
        kernel.unsupported([(0, 1, "x/y.ts")], list, [], u, f)
    with pytest.raises(TypeError):
        kernel.unsupported([(0, 1, "x/y.ts")], set, [1], u, f)
    with pytest.raises(ZeroDivisionError):
        kernel.unsupported([(0, 1, "é/y.ts")], set, [], u, lambda s: 1 / 0)
