"""Bullets and lines opening with an ordinal word: RE2 finds what ``re`` found."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules.asks import _BULLET, _LEAD_WORD, _trim_joiner, mirrors_marker, split_ask

pieces = st.sampled_from(
    [
        "first", "FIRST", "ſecond", "second", "third", "fourth", "fifth", "fir", "st", "ı",
        "İ", "\n", " ", "\t", "-", "*", "#", ".", "(", "é", "٣", "1", "_", "x", "\u2003",
        "\x0b", "\x1c", "\f", "\x01", ":", "**",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@pytest.mark.parametrize("word", sorted(_LEAD_WORD))
def test_same_lines_as_the_plain_search(word: str) -> None:
    # The search as first written: quadratic over a long stretch of blank lines.
    plain = re.compile(rf"^\W*{word}\b", re.I | re.M)

    @given(texts)
    @settings(max_examples=800, deadline=None)
    def check(text: str) -> None:
        assert [m.span() for m in _LEAD_WORD[word].finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ], repr(text)

    check()


def test_a_long_blank_stretch_is_scanned_once() -> None:
    assert not mirrors_marker("b", "\n" * 200_000 + "x")
    assert mirrors_marker("b", "\n" * 200_000 + "** Second, the rest")


# As first written: quadratic in a run of blanks inside a bullet line.
_PLAIN_BULLET = re.compile(r"^[ \t]*(?:[-*•+]|\d{1,2}[.)]|[a-zA-Z][.)])[ \t]+(.+?)[ \t]*$", re.M)
bullet_texts = st.lists(
    st.sampled_from(
        ["- ", "* ", "• ", "+ ", "1. ", "12) ", "a) ", "B. ", "é) ", "٣. ", "ſ. ", " ", "\t",
         "\n", "\r", "x", "item", "-", ".", ")", "\u2003", "\x0b", "\f", "1", "_"]
    ),
    max_size=30,
).map("".join)  # fmt: skip


@given(bullet_texts)
@settings(max_examples=3000, deadline=None)
def test_same_bullets_as_the_plain_search(text: str) -> None:
    assert [(m.span(), m.span(1)) for m in _BULLET.finditer(text)] == [
        (m.span(), m.span(1)) for m in _PLAIN_BULLET.finditer(text)
    ]


def test_a_long_blank_run_in_a_bullet_is_scanned_once() -> None:
    ask = "- a" + " " * 200_000 + "x\n- b"
    assert [p.text for p in split_ask(ask)] == ["a" + " " * 200_000 + "x", "b"]


joiner_texts = st.lists(
    st.sampled_from(
        ["and", "or", "an", "d", "o", "r", "AND", "band", "x", " ", "\n", "\t", ",", ";", ".",
         "\u2003", "\x1c", "\x0b", "\x85", "é", "?"]
    ),
    max_size=25,
).map("".join)  # fmt: skip


@given(joiner_texts)
@settings(max_examples=4000, deadline=None)
def test_trim_joiner_is_the_plain_substitution(text: str) -> None:
    # As first written: quadratic in a long run of blanks and commas.
    assert _trim_joiner(text) == re.sub(r"[\s,;]*(?:and|or)?\s*$", "", text)


def test_a_long_run_of_blanks_and_commas_is_trimmed_once() -> None:
    assert _trim_joiner("a" + " ," * 100_000 + "x") == "a" + " ," * 100_000 + "x"
    parts = split_ask("(1) one" + " ,;" * 60_000 + " and (2) two")
    assert [p.text for p in parts] == ["one", "two"]
