"""The compiled number scan equals the pure-Python reference on every text.

``numbers`` runs ``_numkernel.numbers`` when the extension is built; the
reference ``_numbers_reference`` is what it must equal: the same ``Num``
tuples, field for field and type for type. Texts are drawn from the
characters the scan decides on (digits of several scripts, currency signs,
separators, every kind of whitespace, the case-changing oddities that
``str.lower`` lengthens or folds to ASCII) and taken from the proof corpus
and the bench cases.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_strings, corpus_strings

ROOT = Path(__file__).resolve().parents[3]
kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(text: str) -> None:
    got = kernel.numbers(text, hg.Num, hg._UNIT_WORDS, hg._APPROX_WORDS)
    want = hg._numbers_reference(text)
    assert got == want
    assert [type(n) for n in got] == [type(n) for n in want]
    assert [tuple(map(type, n)) for n in got] == [tuple(map(type, n)) for n in want]


pieces = st.sampled_from(
    [
        "0", "1", "7", "12", "123", "1234", "1,234", ",", ",567", ".", ".5", "5.", "١", "٣",
        "߂", "𝟗", "²", "½", "$", "€", "£", "¥", "%", " %", "k", "K", "M", "B", "Kb", "ms",
        "MS", "ms/", "hrs", "Day", "-", " - ", "ft-lb", "km/h", "nodes-x", "x", "a", "_",
        " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0",
        "\u2003", "\u2028", "\u3000", "about ", "ABOUT ", "roughly", "approx.", "~", "≈",
        "call it ", "CALL İT ", "İ", "ß", "\u212a", "\u212b", "é", "e\u0301", "\u0301",
        "😀", "\U00010400", "ſ", "Σ", "more than ", "some", "over",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts)
@example("$1,234.5k users, ~ 12 ms and 7 % of 3,4567 rows")
@example("about 1,234,567.89M requests; roughly\u2003 12 % at 9-hrs")
@example("ⅹ CALL İT 5 İ 6 \u212a 7")
@settings(max_examples=800, deadline=None)
def test_the_scan_equals_the_reference(text: str) -> None:
    _same(text)


@given(st.text(max_size=80))
@settings(max_examples=1000, deadline=None)
def test_the_scan_equals_the_reference_on_any_text(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1",
        "$",
        "€5",
        "a5 .5 _5 é5 ٣5",  # a word character or a dot before refuses the start
        "1" * 500,  # overflow to inf, as float() does
        "9" * 400 + ".5 %",
        "1,000,00 and 12,3456",
        "5\xa0% and 6\u3000%",
        "3 - \u2003ms and 4 -- ms",
        "10-MS/ and 11 ms-xyz and 12 MINUTES and 13 " + "x/" * 50,
        "and some  \n\t 8 and almost\u00a012",
        "ÀBOUT 5 and ABOUT 6 and \u212aABOUT 7",
        "1,234," + "567," * 30 + "890.125 and 0.000001 and 00012.50",  # long: parsed off the stack
        # integers summed without the parse up to 15 digits; longer ones parsed
        "999999999999999 9999999999999999 9007199254740993 0 000 0000000000000000001",
        "123,456,789,012,345 and 1,234,567,890,123,456 and 999,999,999,999,999,999",
        "café 12 and 12,345.5 and ٣٤,٥٦٧ and 1\u0661",  # a non-ASCII text or digit
        "~5 ≈6 approx. 7 call it 8 roughly\t9 OVER 10 x 11",  # the window's last letter
    ],
)
def test_the_scan_equals_the_reference_on_edges(text: str) -> None:
    _same(text)


def _corpus_texts() -> tuple[str, ...]:
    return corpus_strings()


def _bench_texts() -> tuple[str, ...]:
    return bench_strings(200)


def test_the_scan_equals_the_reference_on_the_proof_corpus() -> None:
    texts = _corpus_texts()
    assert texts
    for text in texts:
        _same(text)


def test_the_scan_equals_the_reference_on_the_bench_cases() -> None:
    for text in _bench_texts():
        _same(text)


def test_numbers_runs_the_kernel_when_built() -> None:
    assert hg._numkernel is kernel


def test_numbers_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "$1,200 for 30 days, about 12 % of 4.5M users"
    with_kernel = hg.numbers(text)
    monkeypatch.setattr(hg, "_numkernel", None)
    assert hg.numbers(text) == with_kernel == hg._numbers_reference(text)
    assert [n.unit for n in hg.numbers(text)] == [None, "day", "%", "people"]


def test_the_kernel_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.numbers(b"1", hg.Num, hg._UNIT_WORDS, hg._APPROX_WORDS)
    with pytest.raises(TypeError):
        kernel.numbers("1", dict, hg._UNIT_WORDS, hg._APPROX_WORDS)
    with pytest.raises(TypeError):
        kernel.numbers("1", hg.Num, hg._UNIT_WORDS, (1,))
    with pytest.raises(TypeError):
        kernel.numbers("1", hg.Num, hg._UNIT_WORDS)  # type: ignore[call-arg]
