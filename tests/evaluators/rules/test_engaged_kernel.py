"""The C ``engaged`` count equals ``asks.engaged_terms``, capped.

``_lexkernel.engaged(terms, words, limit)`` answers ask_coverage's test of a
declared part (``_engages``: two engaged terms or more) in one native pass.
It reads only lowercase ASCII strs and returns ``None`` for anything else;
these properties compare it with the Python reference on arbitrary word
sets (suffix-heavy, so that stems and prefixes matter), on the words of
every corpus and bench text, check the ``None`` cases, that ask_coverage
uses the kernel, and that its fallback answers the same without it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.lexical import terms
from evaluators.lexical.terms import stem, words
from evaluators.rules import asks
from evaluators.rules import completeness as c
from tests.support.texts import bench_strings, corpus_strings

K: Any = terms._lexkernel
kernel = pytest.mark.skipif(K is None, reason="the C lexical kernel was not built")

pieces = st.sampled_from(
    [*"abcdeilnorstuyz'0", "ing", "ed", "es", "ss", "ation", "ity", "ers", "ly", "ment"]
)
word = st.lists(pieces, min_size=1, max_size=6).map("".join)
odd = st.sampled_from(["ß", "İ", "\u212a", "é", "A", "Z", "\U0001f600"])


def reference(ts: list[str], ws: frozenset[str] | set[str], limit: int) -> int:
    full = asks.engaged_terms(ts, ws, {stem(w) for w in ws}, c._prefixes(ws))
    return min(full, max(limit, 0))


@kernel
@given(st.frozensets(word, max_size=30), st.lists(word, max_size=10), st.integers(-1, 12))
@settings(max_examples=400, deadline=None)
def test_engaged_equals_the_reference(ws: frozenset[str], ts: list[str], limit: int) -> None:
    assert K.engaged(ts, ws, limit) == reference(ts, ws, limit)
    assert K.engaged(tuple(ts), set(ws), limit) == reference(ts, ws, limit)


@kernel
@given(st.frozensets(word, max_size=10), st.lists(word, max_size=6), odd, st.booleans())
@settings(max_examples=200, deadline=None)
def test_anything_but_lowercase_ascii_is_left_to_python(
    ws: frozenset[str], ts: list[str], ch: str, in_words: bool
) -> None:
    bad = "ab" + ch + "cd"
    if in_words:
        # the words are read only when a term is not found among them
        got = K.engaged([*ts, "qqqqqq"], ws | {bad}, 99)
        assert got is None
    else:
        assert K.engaged([*ts, bad], ws, 2) is None


@kernel
def test_other_kinds_of_argument() -> None:
    assert K.engaged(["alpha"], ["alpha"], 2) is None  # a list is no set
    assert K.engaged(["alpha", 1], {"alpha"}, 2) is None
    assert K.engaged(["alpha"], {"alpha", 1}, 2) in (1, None)
    assert K.engaged(["zzzzz"], {"alpha", 1}, 2) is None
    assert K.engaged([], frozenset(), 2) == 0
    with pytest.raises(TypeError):
        K.engaged(5, frozenset(), 2)
    with pytest.raises(TypeError):
        K.engaged(["a"], frozenset())


@kernel
def test_every_corpus_and_bench_text() -> None:
    texts = [t for t in (*corpus_strings(), *bench_strings()) if t]
    vocab = frozenset(w for t in texts[:200] for w in words(t))
    for t in texts:
        ts = [w for w in words(t) if len(w) > 2 and w not in terms.STOPWORDS][:40]
        for ws in (vocab, frozenset(words(t[::-1]))):
            for limit in (2, 100):
                assert K.engaged(ts, ws, limit) == reference(ts, ws, limit)


def test_engages_uses_the_kernel_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    ws = frozenset({"deploy", "pipelines", "staging", "build"})
    cases = [["deployment", "pipeline"], ["stage", "buildings"], ["nothing", "here"], ["deploy"]]
    want = [reference(ts, ws, 2) >= 2 for ts in cases]
    calls: list[int] = []
    if K is not None:
        real = K.engaged

        def counting(*a: Any) -> Any:
            calls.append(1)
            return real(*a)

        monkeypatch.setattr(K, "engaged", counting, raising=False)
        assert [c._engages(ts, c._Vocabulary(ws)) for ts in cases] == want
        assert calls
    monkeypatch.setattr(terms, "_lexkernel", None)
    assert terms.engaged(["a"], ws, 2) is None
    assert [c._engages(ts, c._Vocabulary(ws)) for ts in cases] == want
