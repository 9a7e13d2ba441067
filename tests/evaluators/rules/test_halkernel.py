"""no_hallucination_markers' compiled material scans equal the Python references.

``_halkernel`` has ten functions, each of which must return exactly what
its reference in ``hallucination_grounded`` returns: ``any_in``
(``_any_in_reference``, the material gates), ``has_digit``
(``_has_digit_reference``), ``digit_sign_digit``
(``_digit_sign_digit_reference``), ``month_stems``
(``_month_stems_reference``, on lowered ASCII text as the date pass calls it),
``assign_runs`` (``_assign_runs_reference``), ``assign_settings``
(``_assign_settings_reference``, or None where it defers to it) and
``csv_row_possible`` (``_csv_row_possible_reference``) and ``key_starts``
(``_key_starts_reference``, the flag keys' start places), ``occurrences``
(``_occurrences_reference``) and ``matches_at_some`` (``_matches_at_some_reference``,
with the status pattern's lowered twin and a pattern that matches anywhere). Texts
are drawn from the
characters the scans decide on (digits of several scripts, the signs, quotes,
every kind of whitespace, the flag words in several cases, the letters that
re.IGNORECASE folds to ASCII, astral characters), from any Unicode, and from
the proof corpus and the bench cases. The rule's results with the kernel
monkeypatched away are the same.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.rules import hallucination as h
from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_cases, bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.rules._halkernel")


GATES = (
    hg._FAILURE_HINTS,
    hg._FLAG_HINTS,
    (" or ", "at least", "≥", ">="),
    ("GET ", "POST ", "→"),
    ("",),
    (),
    *(lits for lits, _ in hg._FAILURE_GATES),
)

# the anchored failure pattern the gates try (status), and two that match
# at any place or none
_STATUS_TWIN = next(row[4] for row in hg._FAILURE_TABLE if "status" in row[2])
assert _STATUS_TWIN is not None
_ANYWHERE = re.compile("")
_NOWHERE = re.compile("(?!)")


def _same(text: str) -> None:
    for lits in GATES:
        assert kernel.any_in(text, lits) is hg._any_in_reference(text, lits)
    assert kernel.has_digit(text) is hg._has_digit_reference(text)
    # (a sign above Latin-1 cannot occur in 1-byte text, one within it can)
    for sign in ":-.é→":
        for most in (0, 1, 2, 64):
            got = kernel.digit_sign_digit(text, sign, most)
            assert got is hg._digit_sign_digit_reference(text, sign, most)
    assert kernel.assign_runs(text, hg._VALUE_AFTER.match) == hg._assign_runs_reference(text)
    settings = kernel.assign_settings(text, hg._VALUE_AFTER.match)
    assert settings is None or settings == list(hg._assign_settings_reference(text))
    if text.isascii():
        assert settings is not None  # only a non-ASCII letter defers
    for most in (0, 1, 2, 32):
        got = kernel.csv_row_possible(text, most)
        assert got is hg._csv_row_possible_reference(text, most)
    low = text.lower()
    for word in ("ok", "a", "-", "key", "true", "é", "😀", "", text[:3], text[1:2], text):
        assert kernel.key_starts(text, word) == hg._key_starts_reference(text, word)
        assert kernel.key_starts(low, word) == hg._key_starts_reference(low, word)
    for lits in (*GATES, hg._STATUS_LEADS, hg._PROHIBITION_LEADS, ("a", "aa", ""), (text[:2],)):
        assert kernel.occurrences(text, lits) == hg._occurrences_reference(text, lits)
        for rx in (_STATUS_TWIN, _ANYWHERE, _NOWHERE):
            got = kernel.matches_at_some(rx.match, low, lits)
            assert got is hg._matches_at_some_reference(rx, low, lits)
    if low.isascii():
        stems, viable = kernel.month_stems(low)
        assert (stems, viable) == hg._month_stems_reference(low)
        assert type(viable) is bool


pieces = st.sampled_from(
    [
        "true", "TRUE", "False", "on", "ON", "off", "Off", "enabled", "DISABLED", "onx", "of",
        "tru", "enable", "dis", "abled", "\"", "'", ":", "=", ":=", "==", ".", "-", "_", "/",
        "a", "key", "x.y", "debug-mode", "Z9", "0", "7", "12", "2024", "١", "٣", "²",
        " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\xa0", "\u2003",
        "\u3000", "ſ", "ı", "İ", "\u212a", "é", "Σ", "😀", "\U00010400", "中", "\u0301",
        "jan", "Jan", "feb", "mar", "may", "sep", "sept", "dec", "december", "octo", "mayx",
        "st", "nd", "rd", "th", "of ", " of", ",", "(", ")", "&", ", ", "|", "{", ";",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts)
@example('"flag": true, x=off, "a.b" : "enabled"')
@example("fal\u017fe: diſabled, k=TRUE")
@example("ship on 3rd of may 2024, jan. 5, dec 31st")
@example(":true =on")
@example("1:2 a-b 3-4 5.6")
@example("1é2 é 9é é1 x:")
@settings(max_examples=600, deadline=None)
def test_the_scans_equal_the_reference(text: str) -> None:
    _same(text)


@given(st.text(max_size=80))
@settings(max_examples=400, deadline=None)
def test_the_scans_equal_the_reference_on_any_text(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        ":",
        "=",
        "a:",
        ":true",
        "a:true",
        'a :\u2003"TRUE"x',
        "a: true_",
        "a: trueé",
        "a: ſ",
        "\U0001d7ce:\U0001d7cf",  # astral decimal digits either side
        "may",
        "ma",
        "jan 1",
        "x" * 5000 + ": on" + "may 3" * 100,
        ",",
        "a,b",
        '{"ok": true, "rows": 3}',
        '{"a": 1},\nBerlin, 214',
        "x\u2028, y" + ", z" * 40,
        "é\U00010400 &'.-, 3",
    ],
)
def test_the_scans_equal_the_reference_on_edges(text: str) -> None:
    _same(text)


def test_the_scans_equal_the_reference_on_the_proof_corpus() -> None:
    for text in corpus_strings(keys=True):
        _same(text)


def test_the_scans_equal_the_reference_on_the_bench_cases() -> None:
    for text in bench_strings():
        _same(text)


@given(st.text(max_size=40), st.lists(st.text(max_size=4), max_size=5).map(tuple))
@settings(max_examples=400, deadline=None)
def test_any_in_equals_the_reference_for_any_literals(hay: str, lits: tuple[str, ...]) -> None:
    assert kernel.any_in(hay, lits) is hg._any_in_reference(hay, lits)


def test_the_rule_runs_the_kernel_when_built() -> None:
    assert hg._halkernel is kernel


def test_the_rule_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = EngineConfig()
    cases = bench_cases()[:80]
    with_kernel = [h.no_hallucination_markers(EvalContext(r, cfg)) for r in cases]
    material = 'cfg: {"beta": true}\nnew_ui = off\nshipped May 3rd 2024, 12:30 and 2024-05-03'
    output = "new ui is on; beta is false; shipped May 4 2024 at 13:30"
    found = hg.signals(output, material)
    monkeypatch.setattr(hg, "_halkernel", None)
    assert hg.signals(output, material) == found
    assert {s[0] for s in found} >= {"flag_contradicts_material"}
    assert [h.no_hallucination_markers(EvalContext(r, cfg)) for r in cases] == with_kernel


def test_the_value_test_defers_on_non_ascii_letters() -> None:
    """A letter re.IGNORECASE folds to ASCII ("ſ" for "s") is left to the pattern."""
    assert kernel.assign_runs("x: fal\u017fe", hg._VALUE_AFTER.match) == [0]
    assert hg._assign_runs_reference("x: fal\u017fe") == [0]
    calls: list[int] = []

    def spy(text: str, pos: int) -> object:
        calls.append(pos)
        return hg._VALUE_AFTER.match(text, pos)

    assert kernel.assign_runs("x: fal\u017fe, y=true", spy) == [0, 10]
    assert calls == [2]


def test_the_kernel_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.any_in("a", ["a"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.any_in("a", ("b", 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.has_digit(b"1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.digit_sign_digit("1:2", "::", 64)
    with pytest.raises(TypeError):
        kernel.digit_sign_digit("1:2", ":")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        kernel.month_stems(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.csv_row_possible("a,b")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        kernel.csv_row_possible(b"a,b", 32)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.assign_runs("a:on")  # type: ignore[call-arg]
    with pytest.raises(ZeroDivisionError):
        kernel.assign_runs("a: ſ", lambda t, p: 1 / 0)


def test_key_starts_checks_its_arguments_and_edges() -> None:
    with pytest.raises(TypeError):
        kernel.key_starts("a")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        kernel.key_starts(b"a", "a")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.key_starts("a", None)  # type: ignore[arg-type]
    huge = ("tok ok-ok_ok.ok😀ok" * 3000)[:50_000]
    for word in ("ok", "o", "😀", "", "ok.ok"):
        assert kernel.key_starts(huge, word) == hg._key_starts_reference(huge, word)
    assert kernel.key_starts("", "") == hg._key_starts_reference("", "") == [0]
