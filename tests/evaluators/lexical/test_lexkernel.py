"""The C lexical kernel returns exactly what the Python references return.

``evaluators/lexical/_lexkernel.c`` re-implements the sentence splitter and
the tokenisers; the ``*_py`` functions in sentences.py and terms.py are the
reference. These properties compare the two on arbitrary Unicode text, on
text built from the characters the scans treat specially (sentence ends,
quotes, every kind of whitespace, digits, apostrophes, backtick fences, case
oddities whose lowercase changes length or lands in ASCII, astral and
combining characters, lone surrogates), on every string of the proof corpus
and on the bench outputs; and check that the public functions still work on
the fallback path when the extension is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.lexical import sentences, terms
from tests.support.texts import bench_cases, corpus_strings

# The kernel as the package found it: None when it was not built, and then
# only the reference and fallback tests run.
K: Any = terms._lexkernel
kernel = pytest.mark.skipif(K is None, reason="the C lexical kernel was not built")

ROOT = Path(__file__).resolve().parents[3]

# Characters every scan branches on, and the Unicode ones that trip naive
# ports: whitespace outside ASCII, str.lower changing length (U+0130) or
# reaching ASCII (KELVIN SIGN -> 'k', which makes 'N\u212a' an initial-less
# 'nk'), titlecase and final-sigma letters, combining marks, astral letters
# and digits, a lone surrogate (2-byte kind) and latin-1 letters (1-byte kind).
FRAGMENTS = [
    *".!?\"')]`' \n\t\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0",
    *"\u1680\u2000\u2003\u2028\u2029\u202f\u205f\u3000",
    *"aAzZkKsSiI0123456789_-:/,;",
    "\u0130",
    "\u212a",
    "\u017f",
    "\u01c5",
    "\u03a3",
    "\u00df",
    "\u00e9",
    "e\u0301",
    "\U0001d400",
    "\U0001d7d8",
    "\U0001f600",
    "\ud800",
    "\u0663",
    "Dr.",
    "dr",
    "e.g.",
    "i.e",
    "approx.",
    "Sept.",
    "No.",
    "N\u212a.",
    "D\u0130.",
    "St",
    "x.",
    "A.",
    "\u00e9.",
    "...",
    "?!",
    "3.2",
    "```",
    "``",
    "CamelCase",
    "HTTPServer",
    "getURLFor2",
    "don't",
    "'quoted'",
    "rock'n'roll",
    "purging",
    "evaluation",
    "evaluators",
    "running",
    "the",
    "words",
    "explain",
    "Sentence",
    "Engineering",
    "Supercalifragilisticexpialidocious",
    "x" * 47,
    "Y" * 50,
]


def _texts(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(FRAGMENTS), max_size=max_size).map("".join)


ANY_TEXT = st.one_of(st.text(max_size=120), _texts())


def _content_terms_py(text: str) -> list[str]:
    return terms.content_terms_py(text)


def _check(text: str) -> None:
    assert K.split_sentences(text, sentences._ABBREV) == sentences.split_sentences_py(text), text
    assert K.words(text) == terms.words_py(text), text
    assert K.tokens(text) == terms.distinct_tokens_py(text), text
    assert K.content_terms(text, terms.STOPWORDS) == _content_terms_py(text), text
    assert K.word_set(text) == terms.word_set_py(text) == set(terms.words_py(text)), text
    tokens = terms.distinct_tokens_py(text)
    assert K.word_set(text) == terms.word_set_py(text, tokens), text
    expected_terms = set(terms.terms_of_words(terms.words_py(text)))
    assert K.word_term_set(text, terms.STOPWORDS) == expected_terms, text
    assert terms.word_term_set_py(text) == terms.word_term_set_py(text, tokens) == expected_terms


@kernel
@settings(max_examples=800, deadline=None)
@given(ANY_TEXT)
def test_kernel_equals_reference(text: str) -> None:
    _check(text)


@kernel
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(FRAGMENTS), max_size=8),
    st.sampled_from(["", "\ud800", "\U0001d400", "\u0101"]),
)
def test_kernel_equals_reference_in_every_kind(parts: list[str], widener: str) -> None:
    """The same fragments read as 1-, 2- and 4-byte strings."""
    text = "".join(parts)
    _check(text + widener)
    _check(widener + text)


@kernel
@settings(max_examples=200, deadline=None)
@given(
    _texts(),
    st.sampled_from(
        [frozenset(), frozenset({"camel", "words", "the"}), frozenset({"camel", 3, None}), None]
    ),
)
def test_content_terms_with_other_stopword_sets(
    text: str, stopwords: frozenset[str] | None
) -> None:
    """The kernel caches each token's terms for one stopword frozenset of strs:
    another set (or a mutable one, or one holding other objects, which are
    never cached) must not see them."""
    for sw in (terms.STOPWORDS, stopwords, set(terms.STOPWORDS), terms.STOPWORDS):
        sw = terms.STOPWORDS if sw is None else sw
        expected = [
            terms.stem(w)
            for w in terms.words_py(terms.strip_fences(text))
            if len(w) > 2 and w not in sw
        ]
        assert K.content_terms(text, sw) == expected, text


@kernel
@settings(max_examples=200, deadline=None)
@given(st.lists(ANY_TEXT, max_size=6))
def test_content_term_sets(texts: list[str]) -> None:
    """One call for many texts: each set as content_terms gives, and a token
    repeated across the texts lands in every set it occurs in."""
    expected = [set(_content_terms_py(t)) for t in texts]
    assert K.content_term_sets(texts, terms.STOPWORDS) == expected
    assert K.content_term_sets(tuple(texts), terms.STOPWORDS) == expected
    assert K.content_term_sets(iter(texts), terms.STOPWORDS) == expected
    assert terms.content_term_sets_py(texts) == expected
    doubled = texts + texts
    assert K.content_term_sets(doubled, terms.STOPWORDS) == expected + expected


def test_reference_pieces_agree_with_their_regexes() -> None:
    """The Python references are what the kernel mirrors: _WORD and _FENCE."""
    text = "Hi ```code``` there 9abc x'y ``` open"
    assert terms.distinct_tokens_py(text) == set(terms._WORD.findall(text))
    assert terms.content_terms_py(text) == [
        terms.stem(w)
        for w in terms.words_py(terms._FENCE.sub(" ", text))
        if len(w) > 2 and w not in terms.STOPWORDS
    ]


@kernel
def test_suffix_table_is_the_python_one() -> None:
    assert K.SUFFIXES == terms._SUFFIXES


@kernel
@pytest.mark.parametrize(
    "word",
    [
        "purging",
        "purged",
        "evaluation",
        "evaluators",
        "stopping",
        "ational",
        "bless",
        "tree",
        "abcs",
    ],
)
def test_stemming_through_the_kernel(word: str) -> None:
    assert K.content_terms(word, frozenset()) == [terms.stem(word)]


@kernel
def test_every_corpus_text() -> None:
    texts = set(corpus_strings(keys=True))
    assert len(texts) > 100
    for text in texts:
        _check(text)


@kernel
def test_every_bench_text() -> None:
    for case in bench_cases(500):
        _check(case.output)
        _check(case.input or "")


def _public(text: str) -> tuple[object, ...]:
    from evaluators.config import EngineConfig
    from evaluators.context import EvalContext
    from evaluators.request import EvaluationRequest

    ctx = EvalContext(
        EvaluationRequest(output=text, input="Explain the HTTPServer"), EngineConfig()
    )
    return (
        sentences.split_sentences(text),
        terms.words(text),
        terms.distinct_tokens(text),
        terms._content_terms_uncached(text),
        terms.word_set(text),
        terms.word_term_set(text),
        terms.content_term_sets([text, text[:20]]),
        ctx.output_word_set,
        ctx.output_term_set,
    )


def test_public_functions_fall_back_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Dr. Smith met Mr. Jones. They ran HTTPServer tests! Done?```x = 1``` ok"
    with_kernel = _public(text)
    monkeypatch.setattr(sentences, "_lexkernel", None)
    monkeypatch.setattr(terms, "_lexkernel", None)
    assert not terms.native()
    without = _public(text)
    assert with_kernel == without
    assert without[0] == [(0, 24), (25, 51), (52, 71)]
    assert without[1][6:9] == ["ran", "http", "server"]
    assert without[3] == ["smith", "met", "jon", "ran", "http", "serv", "test"]


@kernel
def test_kernel_rejects_wrong_types() -> None:
    with pytest.raises(TypeError):
        K.split_sentences(b"x.", sentences._ABBREV)
    with pytest.raises(TypeError):
        K.split_sentences("x.", ["dr"])
    with pytest.raises(TypeError):
        K.words(None)
    with pytest.raises(TypeError):
        K.content_terms("x", {"a": 1})
    with pytest.raises(TypeError):
        K.content_term_sets(["x", 3], terms.STOPWORDS)
    with pytest.raises(TypeError):
        K.content_term_sets(5, terms.STOPWORDS)
    with pytest.raises(TypeError):
        K.word_term_set("x")


@kernel
def test_tokens_past_the_cache_bound() -> None:
    """The token cache keeps at most 65536 tokens; later ones are made afresh
    each time and must come out the same. (Runs last: it fills the cache.)"""
    many = " ".join(f"Tok{n:x}En" for n in range(66_000))
    assert K.tokens(many) == set(terms._WORD.findall(many))
    for text in (
        "Dr. X. the HTTPServer words Zzqfresh ZzqFresh zzq'fresh zzq zzq",
        "N\u212a. unseenTokenHere unseen_token_here ```x``` unseen",
        many[-2000:],
    ):
        _check(text)
        _check(text)  # the second time, the uncached tokens are made again
