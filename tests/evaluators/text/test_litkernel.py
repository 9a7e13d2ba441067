"""The compiled literal-presence scan equals the RE2 set it replaces.

``LiteralSet.present`` (by ``_litkernel`` when built) must return what
``LiteralSet._present_reference`` (the RE2 set) returns, which is
``frozenset(lit for lit in literals if lit in text)``: on arbitrary Unicode
(every str kind, astral characters, lone surrogates), on literal sets drawn
from a small alphabet (so literals overlap, share prefixes and hash alike),
on every literal set the engine builds, over every corpus and bench text, and
on odd inputs (empty, huge, literals of one and two characters). Without the
extension the reference answers.
"""

from __future__ import annotations

import gc

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import evaluators.detectors.injection  # builds the detectors' literal sets
import evaluators.detectors.pii
import evaluators.rules.registry  # noqa: F401 - builds every rule's literal sets
from evaluators.text import literals as L
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.text._litkernel")

ALPHABET = "ab x\n.'\"`é😀\u2028"
lits = st.lists(st.text(alphabet="abx .'\"`\n", min_size=1, max_size=7), max_size=40)
pieces = st.sampled_from(
    ["a", "b", "ab", "ba", "abab", "x", " ", "\n", ".", "'", '"', "`", "é", "😀", "\u2028",
     "\ud800", "\x00", "\xff", "\u0100", "ﬃ", "中", "\U0001d41a"]
)  # fmt: skip
texts = st.one_of(st.lists(pieces, max_size=60).map("".join), st.text(max_size=80))


def _same(ls: L.LiteralSet, text: str) -> None:
    want = frozenset(lit for lit in ls.literals if lit in text)
    assert ls._present_reference(text) == want
    got = ls.present(text)
    assert type(got) is frozenset
    assert got == want


@given(lits, texts)
@example(["abab", "bab", "ab", "a"], "ababab")
@example(["x\n", "\nx", "..."], "..x\nx")
@example([], "")
@settings(max_examples=800, deadline=None)
def test_present_equals_the_reference(literals: list[str], text: str) -> None:
    _same(L.LiteralSet(literals), text)


def _engine_sets() -> list[L.LiteralSet]:
    """Every LiteralSet the engine has built (the families' unions included)."""
    L.LOWERED_OUTPUT.present("")  # builds the lowered output's union
    return [o for o in gc.get_objects() if isinstance(o, L.LiteralSet)]


def test_engine_sets_on_corpus_and_bench_texts() -> None:
    sets = _engine_sets()
    assert len(sets) >= 8
    for text in (*corpus_strings(), *bench_strings()):
        for t in (text, text.lower()):
            for ls in sets:
                _same(ls, t)


def test_odd_inputs() -> None:
    ls = L.LiteralSet(["a", "ab", "abc", "abcd", "\n", "zzz"])
    for text in ["", "a", "ab", "abc", "abcd" * 100_000, "😀abc", "\ud800abcd", "zz", "zzz"]:
        _same(ls, text)
    big = L.LiteralSet(f"w{i:04d}" for i in range(1000))  # more than the stack buffer
    _same(big, " ".join(f"w{i:04d}" for i in range(0, 1000, 7)))
    with pytest.raises(TypeError):
        kernel.present(ls._matcher, b"abc")
    with pytest.raises(ValueError):
        kernel.compile(("é",))
    with pytest.raises(ValueError):
        kernel.compile(("",))
    with pytest.raises(TypeError):
        kernel.compile(["a"])


def test_sets_use_the_kernel_when_built() -> None:
    assert L._litkernel is kernel
    assert L.LiteralSet(["abc"])._matcher is not None


def test_fallback_is_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(L, "_litkernel", None)
    ls = L.LiteralSet(["abc", "b", "xyz"])
    assert ls._matcher is None
    assert ls.present("xabcx") == frozenset({"abc", "b"})
    assert ls.present("") == frozenset()
