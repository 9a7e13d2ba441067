"""ask_coverage's cheaper set building answers exactly as the plain one.

``_stem_set`` stems each word once per process (a cache) and must equal
``{stem(w) for w in ws}``; ``_prefixes`` keeps short words whole, which must
not change any four-letter lookup ``engaged_terms`` makes. The capped split
stands for ``len(output.split()) >= 40``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.lexical.terms import stem
from evaluators.rules import asks
from evaluators.rules import completeness as c

letters = st.sampled_from([*"abcdeilnorstuyzß'İ\u212aé", "ing", "ed", "es", "ss"])
word = st.lists(letters, min_size=1, max_size=8).map("".join)
word_sets = st.frozensets(word, max_size=12)


@given(word_sets)
@settings(max_examples=100, deadline=None)
def test_stem_set_equals_stemming_every_word(ws: frozenset[str]) -> None:
    assert c._stem_set(ws) == {stem(w) for w in ws}
    assert c._stem_set(ws) == {stem(w) for w in ws}  # the cached answers too


def test_stem_set_without_room_in_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(c, "_STEMS_MAX", 0)
    ws = frozenset({"running", "tested", "boxes", "unseenwordings"})
    assert c._stem_set(ws) == {stem(w) for w in ws}


@given(word_sets, st.lists(word, max_size=10), word_sets)
@settings(max_examples=100, deadline=None)
def test_prefixes_answer_engaged_terms_the_same(
    ws: frozenset[str], terms: list[str], stems: frozenset[str]
) -> None:
    plain = {w[:4] for w in ws if len(w) >= 4}
    assert asks.engaged_terms(terms, ws, set(stems), c._prefixes(ws)) == asks.engaged_terms(
        terms, ws, set(stems), plain
    )


spaced = st.lists(
    st.sampled_from(["a", "bb", " ", "\t", "\n", "\u2003", "\x1c", "é"]), max_size=120
)


@given(spaced.map("".join))
@settings(max_examples=100, deadline=None)
def test_capped_splits_count_as_the_whole_split(text: str) -> None:
    n = len(text.split())
    assert (len(text.split(None, 39)) >= 40) == (n >= 40)
    assert (len(text.split(None, 25)) <= 25) == (n <= 25)


@given(word_sets, st.lists(word, max_size=10))
@settings(max_examples=300, deadline=None)
def test_engages_is_two_engaged_terms_or_more(ws: frozenset[str], terms: list[str]) -> None:
    """The lazily built stems and prefixes, and the early stop at two, give
    the answer of counting every term against the full sets."""
    full = asks.engaged_terms(terms, ws, c._stem_set(ws), c._prefixes(ws))
    assert c._engages(terms, c._Vocabulary(ws)) == (full >= 2)


ascii_letters = st.sampled_from([*"abdeilnorstuy'", "ing", "ed", "es", "ss", "e", "ll", "A", "\n"])
ascii_word = st.lists(ascii_letters, min_size=0, max_size=7).map("".join)


@given(st.frozensets(ascii_word, max_size=30), st.lists(ascii_word, max_size=12))
@settings(max_examples=500, deadline=None)
def test_the_joined_words_answer_as_the_sets(ws: frozenset[str], probes: list[str]) -> None:
    """The substring answers (lowercase ASCII words) and the set answers
    (any other word set: capitals, newlines) agree with the full sets."""
    stems = {stem(w) for w in ws}
    prefixes = {w[:4] for w in ws if len(w) >= 4}
    vocab = c._Vocabulary(ws)
    for t in probes:
        assert vocab.has_stem(stem(t)) == (stem(t) in stems)
        assert vocab.has_stem(t) == (t in stems)
        if len(t) >= 4:
            assert vocab.has_prefix(t[:4]) == (t[:4] in prefixes)
    full = asks.engaged_terms(probes, ws, stems, prefixes)
    assert c._engages(probes, c._Vocabulary(ws)) == (full >= 2)


def test_many_words_sharing_a_stem_fall_back_to_the_set() -> None:
    ws = frozenset({f"test{'x' * i}" for i in range(100)} | {"tested"})
    vocab = c._Vocabulary(ws)
    assert vocab.lines()
    assert vocab.has_stem("test")  # "tested": past the first 64 candidates or not
    assert not vocab.has_stem("tes")
    assert c._Vocabulary(frozenset({"Tested"})).lines() == ""
    assert c._Vocabulary(frozenset({"a\nb"})).lines() == ""
