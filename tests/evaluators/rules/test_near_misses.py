"""The compiled near-miss loop equals the pure-Python reference.

``_near_miss_numbers`` runs ``_numkernel.near_misses`` when the extension is
built; ``_near_miss_numbers_reference`` is what it must yield: the same
signals, in the same order, with the same offsets and details. Material and
output are drawn from the characters the number scan decides on (non-ASCII
digits, separators, percents, huge runs that parse to inf), and taken from
the proof corpus and the bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as h
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(material: str, output: str) -> None:
    mat = h.Material.build(material)
    src_keys, src_sig = h._twin_tables_reference(mat.nums)
    nums = h.numbers(output)
    got = kernel.near_misses(output, nums, src_keys, src_sig)
    want = list(h._near_miss_numbers_reference(output, nums, src_keys, src_sig))
    assert got == want
    assert [tuple(map(type, s)) for s in got] == [tuple(map(type, s)) for s in want]


pieces = st.sampled_from(
    [
        "1", "9", "0", "00", "12", "21", "100", "214", "2140", "1999", "2024", "12,480",
        "14,280", "1,2", "3.14", "0.31", "0.031", "31", "0.5", ".", ",", "%", " %", "$", "k",
        "M", " ms", " days", "-", " ", "\n", "x", "٣", "١٢٣", "٣٢١", "𝟗", "😀", "é",
        "1" * 400, "v", "e5",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts, texts)
@example("Revenue 12,480 and 214 and 0.31", "We made 14,280, 2,140 and 0.031 and 31%")
@example("1" * 400 + " and ١٢٣", "1" * 401 + " and ٣٢١ 😀 and 3.21")
@settings(max_examples=1000, deadline=None)
def test_the_loop_equals_the_reference(material: str, output: str) -> None:
    _same(material, output)


@given(st.text(max_size=60), st.text(max_size=60))
@settings(max_examples=500, deadline=None)
def test_the_loop_equals_the_reference_on_any_text(material: str, output: str) -> None:
    _same(material, output)


def test_the_loop_equals_the_reference_on_the_corpus_and_bench() -> None:
    texts = corpus_strings() + bench_strings()
    assert texts
    for i, text in enumerate(texts):
        _same(text, texts[i - 1])  # each text against another's material
        _same(text, text[::-1])


def test_the_rule_uses_the_kernel_when_built() -> None:
    assert h._near_misses is kernel.near_misses


def test_the_fallback_gives_the_same_signals(monkeypatch: pytest.MonkeyPatch) -> None:
    mat = h.Material.build("Revenue 12,480; Austin 214; ratio 0.31")
    out = "We made 14,280 and 2,140 at 0.031"
    nums = h.numbers(out)
    with_kernel = list(h._near_miss_numbers(out, nums, mat))
    monkeypatch.setattr(h, "_near_misses", None)
    assert list(h._near_miss_numbers(out, nums, mat)) == with_kernel
    assert [s[0] for s in with_kernel] == ["figure_not_in_material"] * 3


def test_the_kernel_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.near_misses("1", ("not", "a list"), {}, {})
    with pytest.raises(TypeError):
        kernel.near_misses("1", [(1.0, 1.0, False)], {}, {})
    with pytest.raises(TypeError):
        kernel.near_misses(b"1", [], {}, {})
    with pytest.raises(TypeError):
        kernel.near_misses("1", [], {})  # type: ignore[call-arg]
    num = h.Num(123.0, 123.0, False, None, False, 0, 3, "123")
    with pytest.raises(TypeError):
        kernel.near_misses("123", [num], {"123": "not a Num"}, {})
