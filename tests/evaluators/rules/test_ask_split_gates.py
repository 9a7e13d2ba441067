"""split_ask's cheap tests and line-by-line bullets change no part.

``split_ask`` searches a pattern only when the ask can hold two of its
matches (a newline for bullets, two ``)`` for enumerations, an ordinal word
in a lowered ASCII ask), and finds bullets by string methods one line at a
time (``bullet_items``). Each is checked against the pattern it stands for,
on arbitrary text, on texts built from the characters the patterns decide
on, and on every ask of the proof corpus and the bench cases.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import asks
from tests.support.texts import bench_cases, corpus_strings

# The bullet pattern with ``re`` (RE2 runs it in the module, with the same
# matches; see test_asks_patterns.py).
_PLAIN_BULLET = re.compile(r"^[ \t]*(?:[-*•+]|\d{1,2}[.)]|[a-zA-Z][.)])[ \t]+(.+?)[ \t]*$", re.M)

pieces = st.sampled_from(
    [
        "- ", "* ", "• ", "+ ", "1. ", "12) ", "123. ", "a) ", "B. ", "é) ", "٣. ", "٣٣)", "ſ. ",
        "-", "*", "•", "+", "1", "12", "a", "Z", ".", ")", "(", " ", "  ", "\t", "\n", "\r",
        "\r\n", "x", "item", "\u2003", "\x0b", "\f", "\x85", "_", "(1) ", "(ii) ", "2) ", "b) ",
        "first", "First", "SECOND", "ſecond", "lastly", "finally,", "İ", "K", "then", "😀",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


def _reference_bullets(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(1), m.end(1), m.group(0)) for m in _PLAIN_BULLET.finditer(text)]


def _reference_split(ask: str) -> list[asks.AskPart]:
    """split_ask as first written: every pattern searched, bullets by regex."""
    bullets = list(_PLAIN_BULLET.finditer(ask))
    if len(bullets) >= 2:
        return [
            asks.AskPart(m.group(1), m.start(1), m.end(1), asks._marker_of(m.group(0)))
            for m in bullets
        ]
    enums = list(asks._ENUM.finditer(ask))
    if len(enums) >= 2 and asks._ascending([e.group(1) or e.group(2) for e in enums]):
        parts: list[asks.AskPart] = []
        for i, m in enumerate(enums):
            end = enums[i + 1].start() if i + 1 < len(enums) else len(ask)
            seg = asks._trim_joiner(ask[m.end() : end].rstrip(" .?!\n"))
            mark = (m.group(1) or m.group(2)).lower()
            parts.append(asks.AskPart(seg, m.end(), m.end() + len(seg), mark))
        return parts
    ords = list(asks._ORD_RE.finditer(ask))
    if len(ords) >= 2:
        parts = []
        for i, m in enumerate(ords):
            end = ords[i + 1].start() if i + 1 < len(ords) else len(ask)
            seg = ask[m.end() : end].rstrip(" .?!\n,;")
            parts.append(asks.AskPart(seg, m.end(), m.end() + len(seg), m.group(1).lower()))
        return parts
    return []


def _check(text: str) -> None:
    assert asks.bullet_items(text) == _reference_bullets(text), repr(text)
    if "\n" not in text:
        assert len(_reference_bullets(text)) <= 1
    if text.count(")") < 2:
        assert len(list(asks._ENUM.finditer(text))) < 2
    if not asks._may_have_ordinals(text):
        assert asks._ORD_RE.search(text) is None


@given(texts)
@example("- a\n- b")
@example("1.  \n2. \t")
@example("Firſt do this, second that")
@settings(max_examples=3000, deadline=None)
def test_the_gates_and_bullets_agree_with_the_patterns(text: str) -> None:
    _check(text)


@given(st.text(max_size=60))
@settings(max_examples=1500, deadline=None)
def test_the_gates_and_bullets_agree_on_any_text(text: str) -> None:
    _check(text)


@given(texts)
@settings(max_examples=1500, deadline=None)
def test_split_ask_is_unchanged(text: str) -> None:
    assert asks.split_ask(text) == _reference_split(text)


def test_the_gates_and_bullets_agree_on_the_corpus_and_bench_asks() -> None:
    seen = 0
    for text in corpus_strings():
        _check(text)
        assert asks.split_ask(text) == _reference_split(text)
        seen += 1
    for case in bench_cases(200):
        for text in (case.input or "", case.output or ""):
            _check(text)
            assert asks.split_ask(text) == _reference_split(text)
    assert seen


def test_bullets_are_found_in_linear_time() -> None:
    ask = "- a" + " \t" * 100_000 + "\n" + "- b" + " " * 100_000
    assert [p.text for p in asks.split_ask(ask)] == ["a", "b"]


markers = st.sampled_from(
    ["1", "2", "12", "a", "b", "e", "ii", "iv", "first", "second", "finally", "lastly", "then",
     "٣", "A", "k", "s", "x"]
)  # fmt: skip
outputs = st.lists(
    st.sampled_from(
        ["1)", "1.", "2:", "(2)", "12.", "a)", "B.", "(b)", "E:", "ii)", "IV.", "٣.", "K)",
         "\u212a)", "ſ.", "first", "FIRST", "Second,", "ſecond", "finally", "Lastly", "then",
         "THEN", "fifth", " ", "\n", "\t", "(", "x", "word", "-", "**", "İ", "\u2003"]
    ),
    max_size=25,
).map("".join)  # fmt: skip


@given(markers, outputs)
@example("2", "Second, the rest")
@example("s", "ſ.")
@settings(max_examples=3000, deadline=None)
def test_mirrors_marker_with_the_lowered_output_is_unchanged(marker: str, output: str) -> None:
    """The substring tests on the lowered output only skip searches that
    cannot match."""
    assert asks.mirrors_marker(marker, output, output.lower()) == asks.mirrors_marker(
        marker, output
    )
