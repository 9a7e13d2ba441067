"""The compiled twin tables equal the pure-Python reference.

``Material.twin_tables`` runs ``_numkernel.twin_tables`` when the extension
is built; ``_twin_tables_reference`` is what it must return: the same keys
in the same order, each bound to the same ``Num``. Figures come from the
number scan of arbitrary texts (non-ASCII digits, separators, percents,
units, years, huge runs that parse to inf) and from hand-built ``Num`` tuples,
and from the proof corpus and the bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as h
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(nums: list[h.Num]) -> None:
    got = kernel.twin_tables(nums)
    want = h._twin_tables_reference(nums)
    for g, w in zip(got, want, strict=True):
        assert list(g) == list(w)
        assert all(g[k] is w[k] for k in w)


pieces = st.sampled_from(
    [
        "1", "9", "0", "00", "1999", "2024", "2101", "12,345", "1,2", "3.14", "0.5", ".", ",",
        "%", " %", "$", "€", "k", "M", " ms", " days", " users", "-", " ", "x", "٣", "١٢٣",
        "٣.٥", "𝟗", "1" * 400, "v", "e5",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts)
@example("In 2024 we had 1,234 users, 15% more; 3.50 ms p95; 1999 and 2,100 and 12 days")
@example("1" * 400 + " and ١٢٣٤ and 0.000 and 10")
@settings(max_examples=1000, deadline=None)
def test_the_tables_equal_the_reference(text: str) -> None:
    _same(h.numbers(text))


@given(st.text(max_size=80))
@settings(max_examples=600, deadline=None)
def test_the_tables_equal_the_reference_on_any_text(text: str) -> None:
    _same(h.numbers(text))


@given(
    st.lists(
        st.tuples(
            st.floats(allow_nan=False),
            st.booleans(),
            st.none() | st.sampled_from(["ms", "%", "day"]),
            st.text(alphabet="0123456789.,٣𝟗x", min_size=1, max_size=12),
        ),
        max_size=8,
    )
)
@settings(max_examples=600, deadline=None)
def test_the_tables_equal_the_reference_on_built_figures(
    rows: list[tuple[float, bool, str | None, str]],
) -> None:
    _same([h.Num(v, v, pct, unit, False, 0, 1, digits) for v, pct, unit, digits in rows])


def test_the_tables_equal_the_reference_on_the_corpus_and_bench() -> None:
    for text in corpus_strings() + bench_strings():
        _same(h.numbers(text))


def test_the_material_uses_the_kernel_when_built() -> None:
    assert h._numkernel is kernel


def test_the_fallback_gives_the_same_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Revenue 4,210 vs 4,120 in 2023; latency 125 ms, ratio 3.5%"
    with_kernel = h.Material.build(text).twin_tables
    monkeypatch.setattr(h, "_numkernel", None)
    without = h.Material.build(text).twin_tables
    assert with_kernel == without
    assert set(without[0]) == {"0124", "125"} and "35" in without[1]


def test_the_kernel_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.twin_tables(("not", "a list"))
    with pytest.raises(TypeError):
        kernel.twin_tables([(1.0, 1.0, False)])
