"""The compiled grounding loop equals the pure-Python reference.

``_loose`` runs ``_numkernel.grounded_loose`` when the extension has it: the
loop of ``_loose_reference`` with ``Material.grounds`` done in C. It must
return the same figures (the same objects, in order) and leave the same
memo entries for percentages (the only ones it keeps), on arbitrary texts
and on every proof-corpus and bench text.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_cases, corpus_strings

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(output: str, material: str, extra: tuple[str, ...] = ()) -> None:
    nums = hg.numbers(output)
    mat_c = hg.Material.build(material, extra)
    mat_py = hg.Material.build(material, extra)
    got = kernel.grounded_loose(nums, mat_c, mat_c._grounded)
    want = hg._loose_reference(nums, mat_py)
    assert [id(n) for n in got] == [id(n) for n in want]
    # the kernel remembers percentages only (a plain figure is cheaper to test)
    assert mat_c._grounded == {k: v for k, v in mat_py._grounded.items() if k[0]}
    assert [type(v) for v in mat_c._grounded.values()] == [bool] * len(mat_c._grounded)


pieces = st.sampled_from(
    [
        "0", "1", "7", "12", "100", "1234", "2024", "1,234", "0.5", "0.31", "3.2", "99.95",
        "12.5k", "4M", "1B", "%", " %", " ms", " days", " users", "about ", "~", "$", "€",
        " ", "\n", ",", ".", "x", "1" * 320, "9" * 400 + ".5", "0.000001", "٣", "½",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts, texts)
@example("18% and 3.2% and 30 days", "churn 0.032, 18 %, 30 days, 24 hours")
@example("1" * 320 + " and 5 %", "1" * 320 + " and " + "1" * 330)  # inf - inf in derived
@example("12 and 0", "nothing numeric here\nat all\nreally")
@example("2.9M users", "2,914,377 users and 5k")
@settings(max_examples=1500, deadline=None)
def test_the_kernel_grounds_as_the_reference(output: str, material: str) -> None:
    _same(output, material)


@given(st.text(max_size=60), st.text(max_size=60))
@settings(max_examples=500, deadline=None)
def test_the_kernel_grounds_as_the_reference_on_any_text(output: str, material: str) -> None:
    _same(output, material)


def test_the_kernel_grounds_as_the_reference_on_the_corpus_and_bench() -> None:
    texts = corpus_strings()
    assert texts
    for i, text in enumerate(texts):
        _same(text, texts[i - 1])
    for case in bench_cases(200):
        extra = tuple(str(c.output) for c in case.tool_calls or ())
        _same(case.output, case.input or "", extra)


def test_loose_runs_the_compiled_grounding_when_built() -> None:
    assert hg._grounded_loose is kernel.grounded_loose


def test_loose_falls_back_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    out, material = "18% of 30 days, 7 users, 2.9M", "churn 0.18 over 30 days; 2,914,377 users"
    with_kernel = hg._loose(hg.numbers(out), hg.Material.build(material))
    monkeypatch.setattr(hg, "_grounded_loose", None)
    assert hg._loose(hg.numbers(out), hg.Material.build(material)) == with_kernel
    monkeypatch.setattr(hg, "_numkernel", None)
    assert hg._loose(hg.numbers(out), hg.Material.build(material)) == with_kernel
    assert [n.digits for n in with_kernel] == ["7"]


def test_the_kernel_checks_its_arguments() -> None:
    mat = hg.Material.build("1 2 3")
    with pytest.raises(TypeError):
        kernel.grounded_loose((), mat, {})
    with pytest.raises(TypeError):
        kernel.grounded_loose([(1.0,)], mat, {})
    with pytest.raises(AttributeError):
        kernel.grounded_loose(hg.numbers("5"), object(), {})


def _bits(values: list[float]) -> list[tuple[type, bytes]]:
    return [(type(v), struct.pack("<d", v)) for v in values]


floats = st.one_of(
    st.floats(allow_nan=False),
    st.sampled_from([0.0, 1.0, 1e3, 1e300, 1e308, float("inf"), 5e-324, 2.5, 3.2, 18.0]),
)


@given(st.lists(floats, max_size=12))
@example([0.0, 1.0, float("inf")])
@example([float("inf"), float("inf")])
@example([1e308, 1e308, 5e-324])
@settings(max_examples=1500, deadline=None)
def test_pair_derivations_equal_the_reference(base: list[float]) -> None:
    got: list[float] = [0.0]
    want: list[float] = [0.0]
    kernel.pair_derivations(base, got)
    hg._pair_derivations_reference(base, want)
    assert _bits(got) == _bits(want)


def test_derived_is_the_same_with_and_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [*corpus_strings()[:400], "1" * 320 + " and " + "1" * 330 + " and 0 and 7.5%"]
    with_kernel = [_bits(hg.Material.build(t).derived) for t in texts]
    assert hg._pair_derivations is kernel.pair_derivations
    monkeypatch.setattr(hg, "_pair_derivations", None)
    assert [_bits(hg.Material.build(t).derived) for t in texts] == with_kernel


def test_pair_derivations_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.pair_derivations([1], [])
    with pytest.raises(TypeError):
        kernel.pair_derivations((1.0,), [])
    same: list[float] = [1.0, 2.0]
    with pytest.raises(TypeError):
        kernel.pair_derivations(same, same)
    big = [float(i) for i in range(100)]  # past the stack buffer
    got: list[float] = []
    want: list[float] = []
    kernel.pair_derivations(big, got)
    hg._pair_derivations_reference(big, want)
    assert _bits(got) == _bits(want)
