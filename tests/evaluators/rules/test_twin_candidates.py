"""The figure filter before grounding changes no result.

``signals`` grounds only the output figures ``_twin_candidates`` keeps: those
whose twin-table lookup in ``_near_miss_numbers`` finds an entry or whose unit
the material measures in (all of them when the output may attribute a figure
to the source). The compiled ``_numkernel.twin_candidates`` must equal the
pure-Python reference on any figures (non-ASCII digits, huge runs that parse
to inf, percents, units), and the signals with the filter must equal the
signals without it, on drawn texts and on every corpus and bench text.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as h
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same_filter(material: str, output: str) -> None:
    mat = h.Material.build(material)
    src_keys, src_sig = h._twin_tables_reference(mat.nums)
    nums = h.numbers(output)
    got = kernel.twin_candidates(nums, src_keys, src_sig, mat.units)
    want = h._twin_candidates_reference(nums, src_keys, src_sig, mat.units)
    assert got == want
    assert all(a is b for a, b in zip(got, want, strict=True))


def _unfiltered(out: str, out_nums: list[h.Num], mat: h.Material) -> list[h.Num]:
    return out_nums


def _same_signals(material: str, output: str, monkeypatch: pytest.MonkeyPatch) -> None:
    got = h.signals(output, material)
    with monkeypatch.context() as m:
        m.setattr(h, "_twin_candidates", _unfiltered)
        want = h.signals(output, material)
    assert got == want


pieces = st.sampled_from(
    [
        "1", "9", "0", "00", "12", "21", "100", "214", "2140", "1999", "2024", "12,480",
        "14,280", "1,2", "3.14", "0.31", "0.031", "31", "0.5", ".", ",", "%", " %", "$", "k",
        "M", " ms", " days", " seconds", " min", " users", "-", " ", "\n", "x", "٣", "١٢٣",
        "٣٢١", "𝟗", "😀", "é", "1" * 400, "v", "e5", "per the report", "The table shows ",
        "about ", "Austin, 214\n", "| Berlin | 12 |\n",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts, texts)
@example("Revenue 12,480 and 214 and 0.31", "We made 14,280, 2,140 and 0.031 and 31%")
@example("1" * 400 + " and ١٢٣ days", "1" * 401 + " and ٣٢١ 😀 and 3.21 days")
@settings(max_examples=600, deadline=None)
def test_the_filter_equals_the_reference(material: str, output: str) -> None:
    _same_filter(material, output)


@given(st.text(max_size=60), st.text(max_size=60))
@settings(max_examples=300, deadline=None)
def test_the_filter_equals_the_reference_on_any_text(material: str, output: str) -> None:
    _same_filter(material, output)


@given(texts, texts)
@example("Revenue 12,480 over 30 days", "We made 14,280 over 90 days, 7 %")
@settings(max_examples=400, deadline=None)
def test_the_filter_changes_no_signal(material: str, output: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        _same_signals(material, output, mp)


def test_the_filter_changes_no_signal_on_the_corpus_and_bench(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = corpus_strings() + bench_strings()
    assert texts
    for i, text in enumerate(texts):
        _same_filter(text, texts[i - 1])
        _same_signals(texts[i - 1], text, monkeypatch)


def test_the_rule_uses_the_kernel_when_built() -> None:
    assert h._twin_candidates_kernel is kernel.twin_candidates


def test_the_fallback_keeps_the_same_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    out = "We made 14,280 over 90 days, 7 and 3.21"
    mat = h.Material.build("Revenue 12,480 over 30 days; 321 seats")
    built = h._twin_candidates(out, h.numbers(out), mat)
    assert [n.digits for n in built] == ["14,280", "90", "3.21"]
    monkeypatch.setattr(h, "_twin_candidates_kernel", None)
    again = h.Material.build("Revenue 12,480 over 30 days; 321 seats")
    assert h._twin_candidates(out, h.numbers(out), again) == built


def test_an_attribution_keeps_every_figure() -> None:
    out = "Per the report, revenue was 7 and 9."
    mat = h.Material.build("Line one\nLine two\nLine three with 12,480")
    nums = h.numbers(out)
    assert h._twin_candidates(out, nums, mat) is nums


def test_the_kernel_checks_its_arguments() -> None:
    num = h.Num(123.0, 123.0, False, "ms", False, 0, 3, "123")
    with pytest.raises(TypeError):
        kernel.twin_candidates(("not", "a list"), {}, {}, set())
    with pytest.raises(TypeError):
        kernel.twin_candidates([(1.0, 1.0, False)], {}, {}, set())
    with pytest.raises(TypeError):
        kernel.twin_candidates([num], {}, {}, ["ms"])
    with pytest.raises(TypeError):
        kernel.twin_candidates([num], {}, {})  # type: ignore[call-arg]
    bad = h.Num(123.0, 123.0, False, ["unhashable"], False, 0, 3, "123")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.twin_candidates([bad], {}, {}, {"ms"})
    assert kernel.twin_candidates([num], {}, {}, frozenset({"ms"})) == [num]
    assert kernel.twin_candidates([], {}, {}, set()) == []
