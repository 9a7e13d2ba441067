"""The lexical kernel's session-7 fast paths change no result.

* ``split_sentences`` finds the next ``[.!?]`` sixteen characters at a time
  on 1-byte text, and skips the abbreviation lookup of a last word longer
  than every abbreviation when the set is a frozenset of exact strs (the
  bound is kept per set object, so another set must be honoured);
* the token cache compares a token with the first 16 bytes its entry keeps,
  and only reads the str for a longer token.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.lexical import sentences, terms

K: Any = terms._lexkernel
pytestmark = pytest.mark.skipif(K is None, reason="the C lexical kernel was not built")


@pytest.mark.parametrize("k", range(0, 40))
@pytest.mark.parametrize("end", [".", "!", "?", "...", "?!"])
def test_an_end_at_every_offset_of_a_block(k: int, end: str) -> None:
    for text in (
        "a" * k + end + " Next one" + end,
        "Word " * (k // 5) + "x" * (k % 5) + end + " B" + "c" * k + end,
        "\u00e9" * k + end + " Z",  # latin-1: still the 1-byte kind
        "\u0101" * k + end + " Z",  # 2-byte kind: the plain loop
    ):
        assert K.split_sentences(text, sentences._ABBREV) == sentences.split_sentences_py(text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["approx.", "Sept.", "No.", "quarter.", "x.", "abbreviation.", " ", "\n", "B", "ok!"]
        ),
        max_size=40,
    )
)
def test_long_and_short_last_words(parts: list[str]) -> None:
    text = " ".join(parts)
    want = sentences.split_sentences_py(text)
    assert K.split_sentences(text, sentences._ABBREV) == want
    # a plain set and a fresh frozenset of the same words: the same spans
    assert K.split_sentences(text, set(sentences._ABBREV)) == want
    assert K.split_sentences(text, frozenset(sentences._ABBREV)) == want


def test_the_length_bound_follows_the_set_given() -> None:
    text = "It is approximately. Then more."
    assert K.split_sentences(text, sentences._ABBREV) == [(0, 20), (21, 31)]
    # a longer abbreviation in another frozenset: its bound, not the last one's
    assert K.split_sentences(text, frozenset({"approximately"})) == [(0, 31)]
    assert K.split_sentences(text, sentences._ABBREV) == [(0, 20), (21, 31)]
    # a set holding a non-str: every key is looked up
    assert K.split_sentences(text, frozenset({"approximately", 1})) == [(0, 31)]


def test_tokens_sharing_their_first_sixteen_bytes() -> None:
    head = "abcdefghijklmnop"
    text = " ".join([head, head + "x", head + "y", head + "xy", head + "x", "abc", head])
    assert K.words(text) == terms.words_py(text)
    assert K.tokens(text) == terms.distinct_tokens_py(text)
    long = head * 4  # past the cached length: made afresh
    assert K.words(f"{long} {long}x {head}") == terms.words_py(f"{long} {long}x {head}")


def test_tokens_of_every_length_around_the_word_bounds() -> None:
    # the cache hashes and compares a token by 8-byte words: tokens of each
    # length up to past the cached bound, alike but for their last letter
    toks = [("Ab" * 30)[:n] + end for n in range(0, 52) for end in ("x", "y", "Zq")]
    text = " ".join(toks + toks[::-1])
    assert K.words(text) == terms.words_py(text)
    assert K.tokens(text) == terms.distinct_tokens_py(text)
    assert K.word_set(text) == terms.word_set_py(text)
    assert K.word_term_set(text, terms.STOPWORDS) == terms.word_term_set_py(text)
