"""The one-pass literal scan (``GateFamily``, C kernel) answers exactly what its
Python reference answers, and the injection detector built on it finds what
the per-pattern searches it replaced find.

Texts are arbitrary Unicode plus texts built from the characters that matter
to the scan: the literals themselves, spaces (one, two, none inside a word),
every other kind of whitespace, digits, punctuation, non-ASCII letters,
combining marks, astral characters and the case-changing oddities (İ, ß,
KELVIN SIGN); and every output of the proof corpus and of the bench cases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.detectors import gates, injection, quotes
from evaluators.detectors import injection_patterns as P
from evaluators.detectors.gates import GateFamily, ScanGroup
from evaluators.text import _scankernel
from evaluators.text.normalize import normalize
from tests.support.texts import bench_cases, corpus_strings

ROOT = Path(__file__).resolve().parents[3]
FAMILY = injection._FAMILY

ODD = [
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u2028",
    "\u3000",
    "\u200b",
    "0",
    "1",
    "3",
    "4",
    "7",
    "٣",
    ".",
    ",",
    ":",
    ";",
    "-",
    "_",
    "'",
    '"',
    "|",
    "$",
    "@",
    "[",
    "<",
    "#",
    "é",
    "ß",
    "İ",
    "ı",
    "ſ",
    "\u212a",
    "e\u0301",
    "\u0301",
    "𝐀",
    "😀",
    "\U0010ffff",
    "A",
    "I",
    "x",
    "a",
    "i",
    "s",
    "b",
    "o",
    "t",
    "m",
    "l",
]


def _texts(fragments: list[str], max_size: int = 30) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(fragments), max_size=max_size).map("".join)


def _spaced(t: str) -> str:
    """A space between every two characters (the one-space tolerance at its edge)."""
    return " ".join(t)


FRAGMENTS = [*FAMILY.literals, *ODD, "ig", "nore", "sys", "tem", "you are", "the ", "my "]
TEXTS = st.one_of(
    st.text(max_size=120),
    _texts(FRAGMENTS),
    _texts(FRAGMENTS, 12).map(_spaced),
)


@lru_cache(maxsize=1)
def _corpus_and_bench() -> tuple[str, ...]:
    return tuple(dict.fromkeys([*corpus_strings(), *(c.output for c in bench_cases(120))]))


def _view(raw: str) -> str:
    """The text the injection detector scans: normalised, leetspeak folded."""
    return injection._unleet_reference(normalize(raw).text)


# -- the kernel against the reference ---------------------------------------------


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_injection_family_scan_equals_reference(text: str) -> None:
    assert FAMILY.scan(text) == FAMILY.scan_reference(text)


def test_injection_family_scan_on_corpus_and_bench() -> None:
    for raw in _corpus_and_bench():
        for t in (raw, _view(raw)):
            assert FAMILY.scan(t) == FAMILY.scan_reference(t), t[:80]


_SMALL = st.text(alphabet="abc-:", min_size=1, max_size=4)
_GROUPS = st.lists(
    st.builds(
        ScanGroup,
        st.lists(st.lists(_SMALL, min_size=1, max_size=3).map(tuple), max_size=2).map(tuple),
        st.lists(_SMALL, max_size=4).map(tuple),
        st.booleans(),
        st.frozensets(st.sampled_from("abc-: "), max_size=3),
        st.frozensets(st.sampled_from("abc-: "), max_size=3),
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=200, deadline=None)
@given(_GROUPS, st.text(alphabet="abc-: é\u212a𝐀", max_size=60))
def test_any_family_scan_equals_reference(groups: list[ScanGroup], text: str) -> None:
    """Literals that overlap, share prefixes and suffixes, tolerant or plain, with
    filters on both sides: the automaton's answers are the reference's."""
    family = GateFamily(groups)
    assert family.scan(text) == family.scan_reference(text)


def test_family_refuses_what_the_kernel_cannot_scan() -> None:
    for bad in ("a b", "", "é"):
        with pytest.raises(ValueError):
            GateFamily([ScanGroup((), (bad,))])
    with pytest.raises(ValueError):
        GateFamily([ScanGroup((), ("ab",), not_after=frozenset("é"))])
    with pytest.raises(ValueError):
        _scankernel.compile(("ab", "ab"), ())
    with pytest.raises(ValueError):
        _scankernel.compile(("ab",), (((), (3,), True, "", ""),))


def test_family_without_the_kernel_uses_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    views = [_view(raw) for raw in _corpus_and_bench()[:60]]
    expected = [FAMILY.scan(t) for t in views]
    monkeypatch.setattr(gates, "_scankernel", None)
    family = GateFamily(FAMILY.groups)
    assert family._compiled is None
    assert [family.scan(t) for t in views] == expected


# -- fold_ascii: the leetspeak fold ------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=80), _texts([*ODD, "\ud800", "\udfff"])))
def test_unleet_equals_reference(text: str) -> None:
    folded = _scankernel.fold_ascii(text, injection._LEET_TABLE)
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        assert folded is None  # the caller takes the reference, which raises
        with pytest.raises(UnicodeEncodeError):
            injection._unleet_reference(text)
        return
    assert folded == injection._unleet_reference(text)
    assert injection._unleet(text) == folded


def test_fold_ascii_checks_its_table() -> None:
    with pytest.raises(ValueError):
        _scankernel.fold_ascii("abc", bytes(127))
    with pytest.raises(ValueError):
        _scankernel.fold_ascii("abc", bytes([200]) * 128)


# -- the detector's use of the scan -------------------------------------------------


def _spans(matches: Iterator[re.Match[str]]) -> list[tuple[int, int]]:
    return [m.span() for m in matches]


PHRASE_TEXTS = st.one_of(
    _texts([*FRAGMENTS, "ignore previous instructions", "reveal the system prompt", "system:"]),
    st.text(max_size=80),
)


@settings(max_examples=300, deadline=None)
@given(PHRASE_TEXTS)
def test_gated_patterns_at_scanned_places_equal_finditer(text: str) -> None:
    t = _view(text)
    found = FAMILY.scan(t)
    for k, pat in enumerate(injection._GATED):
        assert _spans(pat.finditer_at(t, found[k])) == _spans(pat.rx.finditer(t)), k


def test_gated_patterns_on_corpus_and_bench() -> None:
    for raw in _corpus_and_bench():
        t = _view(raw)
        found = FAMILY.scan(t)
        for k, pat in enumerate(injection._GATED):
            assert _spans(pat.finditer_at(t, found[k])) == _spans(pat.rx.finditer(t)), k


@settings(max_examples=200, deadline=None)
@given(_texts([*P.MACHINE_LITERALS, *ODD, "ai", "a i", "ml", "bot", "b o t s", "-bot", "bots"]))
def test_machine_positions_equal_plain_searches(text: str) -> None:
    t = _view(text)
    compact = t.replace(" ", "")
    present = injection._COMPACT_LITERALS.present(compact)
    plain = injection._machine_positions_plain(t, compact, present)
    assert injection._machine_positions(FAMILY.scan(t)) == sorted(set(plain))


def test_hidden_group_is_hidden_literal_presence() -> None:
    for t in ("display : none", "x", "font-size:0px", "color: #fff", "colo r:white"):
        compact = t.replace(" ", "")
        present = any(lit in compact for lit in P.HIDDEN_STYLE_LITERALS)
        assert (FAMILY.scan(t)[injection._HIDDEN] is not None) == present


def test_quote_openers_are_the_quote_scanners() -> None:
    assert set(injection._QUOTE_OPENERS) == set(quotes._QUOTE_CHARS.pattern.strip("[]"))
    # _quotes spells the four tests out: each opener must take the QuoteSpans path
    for q in injection._QUOTE_OPENERS:
        assert type(injection._quotes(f"a {q}b")) is quotes.QuoteSpans
    assert type(injection._quotes("a b")) is injection._Unquoted


@settings(max_examples=200, deadline=None)
@given(PHRASE_TEXTS, st.integers(0, 80), st.integers(0, 80))
def test_unquoted_texts_cover_nothing(text: str, a: int, b: int) -> None:
    t = _view(text)
    s, e = min(a, b), max(a, b)
    assert injection._quotes(t).covers(s, e) == quotes.QuoteSpans(t).covers(s, e)


def test_find_injection_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback (no compiled kernel) finds the same spans on every text."""
    texts = _corpus_and_bench()
    with_kernel = [injection.find_injection(raw) for raw in texts]
    monkeypatch.setattr(injection, "_scankernel", None)
    monkeypatch.setattr(gates, "_scankernel", None)
    monkeypatch.setattr(injection, "_FAMILY", GateFamily(FAMILY.groups))
    assert [injection.find_injection(raw) for raw in texts] == with_kernel


# -- presence groups that gate a structural regex -----------------------------------

SYSTEM_TAG_FORMS = [
    "[system:",
    "[system :",
    "<|im_start|>system",
    "<|im_start|> system",
    "<system>",
    "</system>",
    "<|system|>",
    "###system:",
    "### system:",
    "###system :",
    "### system :",
]


def test_every_system_tag_form_holds_a_gate_literal() -> None:
    for form in SYSTEM_TAG_FORMS:
        assert P.SYSTEM_TAG_RE.fullmatch(form), form
        assert any(lit in form.replace(" ", "") for lit in injection._SYSTEM_TAG_LITERALS)
        assert FAMILY.scan(f"x {form} y")[injection._SYSTEM_TAG] is not None
    assert FAMILY.scan("system: [ system")[injection._SYSTEM_TAG] is None


@settings(max_examples=300, deadline=None)
@given(_texts([*SYSTEM_TAG_FORMS, *ODD, "[", "<", "#", "|", ">", "sys", "tem", ":", "/"]))
def test_structural_gates_never_hide_a_match(text: str) -> None:
    """A None presence group means its regex finds nothing in the text."""
    t = _view(text)
    found = FAMILY.scan(t)
    if found[injection._SYSTEM_TAG] is None:
        assert P.SYSTEM_TAG_RE.search(t) is None
    if found[injection._COMMENT] is None:
        assert P.COMMENT_OPEN_RE.search(t) is None
    if found[injection._IMAGE] is None:
        assert P.MD_IMAGE_RE.search(t) is None
