"""The C topic chain (``term_chain``) and long-word count (``long_words``)
return exactly what the Python references do.

``_lexkernel.term_chain`` / ``term_chain_spans`` fold relevance's topic chain
and overlap counts into one scan over the units; ``terms.term_chain_py`` is
the reference. These properties compare the two on arbitrary Unicode units
and on the fragments the scans branch on (every str kind), check the
reference against the plain definition (content term sets, a growing topic,
set intersections), run every corpus string and bench output through both as
sentence spans, and check the argument errors, a nested kernel call from a
seed item's comparison, and the fallback path. ``long_words`` is checked the
same way against ``long_words_py`` and ``len(findall)`` capped.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.lexical import terms
from evaluators.lexical.sentences import split_sentences
from tests.evaluators.lexical.test_lexkernel import ANY_TEXT, FRAGMENTS
from tests.support.texts import bench_cases, corpus_strings

K: Any = terms._lexkernel
kernel = pytest.mark.skipif(K is None, reason="the C lexical kernel was not built")

SEED_TERMS = ["serv", "restart", "deploy", "port", "log", "http", "test", "evalu", "x", ""]
SEEDS = st.sets(st.sampled_from(SEED_TERMS), max_size=5)
PROBES = st.frozensets(st.sampled_from([*SEED_TERMS, "stop", "check", "kernel", "lorem"]))


def _definition(
    units: list[str], seed: set[str], probe: frozenset[str]
) -> tuple[int, int, int, bool, int]:
    """The counts as relevance.py first wrote them: content sentences,
    connected ones against a growing topic, overlap by set intersection."""
    sets = [set(terms.content_terms_py(u)) for u in units]
    content = [s for s in sets if s]
    topic = set(seed)
    connected = 0
    for s in content:
        if s & topic:
            connected += 1
            topic |= s
    union: set[str] = set().union(*sets)
    return connected, len(content), len(seed & union), not union <= seed, len(probe & union)


def _check(units: list[str], seed: set[str], probe: frozenset[str] = frozenset()) -> None:
    expected = terms.term_chain_py(units, seed, probe)
    assert expected == _definition(units, seed, probe), (units, seed)
    assert K.term_chain(units, seed, probe, terms.STOPWORDS) == expected, (units, seed)
    assert K.term_chain(tuple(units), frozenset(seed), set(probe), terms.STOPWORDS) == expected
    text = " ".join(units)
    spans, at = [], 0
    for u in units:
        spans.append((at, at + len(u)))
        at += len(u) + 1
    assert K.term_chain_spans(text, spans, seed, probe, terms.STOPWORDS) == expected, units


def test_reference_equals_the_definition_by_hand() -> None:
    units = ["The server stopped.", "Restart it now!", "Lorem ipsum.", "Check the port.", ""]
    probe = frozenset({"port", "restart", "deploy"})
    expected = (1, 4, 1, True, 2)
    assert terms.term_chain_py(units, {"serv"}, probe) == _definition(units, {"serv"}, probe)
    assert terms.term_chain_py(units, {"serv"}, probe) == expected
    assert terms.term_chain_py([], {"serv"}) == (0, 0, 0, False, 0)
    assert terms.term_chain_py(["servers"], {"serv"}) == (1, 1, 1, False, 0)


@kernel
@settings(max_examples=500, deadline=None)
@given(st.lists(ANY_TEXT, max_size=8), SEEDS, PROBES)
def test_kernel_equals_reference(units: list[str], seed: set[str], probe: frozenset[str]) -> None:
    _check(units, seed, probe)


@kernel
@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join), max_size=6),
    st.sampled_from(["", "\ud800", "\U0001d400", "\u0101"]),
    SEEDS,
    PROBES,
)
def test_kernel_equals_reference_in_every_kind(
    units: list[str], widener: str, seed: set[str], probe: frozenset[str]
) -> None:
    """The same units read as 1-, 2- and 4-byte strings (and spans of one)."""
    _check([u + widener for u in units], seed, probe)
    _check([widener + u for u in units], seed, probe)


@kernel
@settings(max_examples=300, deadline=None)
@given(ANY_TEXT, st.data(), SEEDS, PROBES)
def test_spans_anywhere_equal_their_slices(
    text: str, data: st.DataObject, seed: set[str], probe: frozenset[str]
) -> None:
    """Arbitrary in-range spans, overlapping or empty: the slices' chain."""
    bound = st.integers(0, len(text))
    pairs = data.draw(st.lists(st.tuples(bound, bound), max_size=6))
    spans = [(min(a, b), max(a, b)) for a, b in pairs]
    expected = terms.term_chain_py([text[s:e] for s, e in spans], seed, probe)
    assert K.term_chain_spans(text, spans, seed, probe, terms.STOPWORDS) == expected


def _texts_with_seeds() -> list[tuple[str, set[str]]]:
    cases = bench_cases()
    asks = sorted({c.input or "" for c in cases})
    seeds = [set(terms.content_terms(a)) for a in asks] + [set(), {"serv", "retent"}]
    found = [(c.output or "", seeds[k % len(seeds)]) for k, c in enumerate(cases)]
    found += [(s, seeds[k % len(seeds)]) for k, s in enumerate(corpus_strings())]
    return found


@kernel
def test_every_corpus_and_bench_text() -> None:
    probe = frozenset({"serv", "port", "build", "retent", "log", "test", "composer"})
    for text, seed in _texts_with_seeds():
        spans = split_sentences(text)
        units = [text[s:e] for s, e in spans]
        expected = terms.term_chain_py(units, seed, probe)
        assert K.term_chain_spans(text, spans, seed, probe, terms.STOPWORDS) == expected, text
        assert K.term_chain(units, seed, probe, terms.STOPWORDS) == expected


@kernel
def test_huge_and_astral_units() -> None:
    big = "Restart the server on port 8080. " * 3000 + "\U0001f600 logs" * 500
    units = [big, "", "\U0001d400\ud800", big[:777]]
    _check(units, {"port", "log"}, frozenset({"restart", "serv", "x"}))


@kernel
def test_kernel_rejects_bad_arguments() -> None:
    sw, no = terms.STOPWORDS, frozenset[str]()
    with pytest.raises(TypeError):
        K.term_chain(["x"], ["serv"], no, sw)
    with pytest.raises(TypeError):
        K.term_chain(["x"], {"serv"}, ["x"], sw)
    with pytest.raises(TypeError):
        K.term_chain(["x"], {"serv"}, no, ["the"])
    with pytest.raises(TypeError):
        K.term_chain(["x", 3], {"serv"}, no, sw)
    with pytest.raises(TypeError):
        K.term_chain(5, {"serv"}, no, sw)
    with pytest.raises(TypeError):
        K.term_chain(["x"], {"serv"}, no)
    with pytest.raises(TypeError):
        K.term_chain_spans(b"x", [(0, 1)], {"serv"}, no, sw)
    with pytest.raises(TypeError):
        K.term_chain_spans("xy", [[0, 1]], {"serv"}, no, sw)
    with pytest.raises(TypeError):
        K.term_chain_spans("xy", [(0, "1")], {"serv"}, no, sw)
    with pytest.raises(TypeError):
        K.term_chain_spans("xy", [(0, 1, 2)], {"serv"}, no, sw)
    with pytest.raises(TypeError):
        K.term_chain_spans("xy", [(0, 1)], {"serv"}, sw)
    for bad in [(-1, 1), (1, 0), (0, 3)]:
        with pytest.raises(ValueError):
            K.term_chain_spans("xy", [bad], {"serv"}, no, sw)
    with pytest.raises(OverflowError):
        K.term_chain_spans("xy", [(0, 1 << 70)], {"serv"}, no, sw)


def test_public_functions_fall_back_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "The server stopped. Restart it now! Lorem ipsum. Check the port."
    spans = split_sentences(text)
    units = [text[s:e] for s, e in spans]
    seed, probe = {"serv"}, frozenset({"port", "restart", "deploy"})

    def both() -> tuple[object, object]:
        chained = terms.term_chain(units, seed, probe)
        return chained, terms.term_chain_spans(text, spans, seed, probe)

    with_kernel = both()
    monkeypatch.setattr(terms, "_lexkernel", None)
    assert both() == with_kernel == ((1, 4, 1, True, 2), (1, 4, 1, True, 2))


class _Reentrant(str):
    """A seed item equal to "serv" whose comparison runs the kernel again
    (another chain, another stopword set): the outer chain must not be
    disturbed by the nested one resetting its marks or the cached terms."""

    calls = 0

    def __hash__(self) -> int:
        return hash("serv")

    def __eq__(self, other: object) -> bool:
        type(self).calls += 1
        K.term_chain(["servers restart the port", "logs"], {"log"}, frozenset(), terms.STOPWORDS)
        K.content_terms("servers and ports", frozenset({"and"}))
        return str.__eq__(self, other)


@kernel
def test_a_nested_call_does_not_disturb_the_chain() -> None:
    units = ["The server stopped.", "Restart the servers now!", "Servers restart.", "Ports."] * 3
    seed = {_Reentrant("serv"), "port"}
    expected = terms.term_chain_py(units, {"serv", "port"}, frozenset({"restart"}))
    assert K.term_chain(units, seed, frozenset({"restart"}), terms.STOPWORDS) == expected
    assert _Reentrant.calls > 0
    # and the cache, its terms dropped by the other stopword set, still answers
    assert K.term_chain(units, {"serv", "port"}, {"restart"}, terms.STOPWORDS) == expected


# long_words: the [A-Za-z]{4,} count topic_consistency gates on


def _long_words_definition(text: str, limit: int) -> int:
    return min(len(terms._LONG_WORD.findall(text)), max(limit, 0))


@kernel
@settings(max_examples=500, deadline=None)
@given(ANY_TEXT, st.integers(-2, 12), st.sampled_from(["", "\ud800", "\U0001d400", "\u0101"]))
def test_long_words_equal_the_reference(text: str, limit: int, widener: str) -> None:
    for t in (text, text + widener, widener + text):
        expected = terms.long_words_py(t, limit)
        assert expected == _long_words_definition(t, limit), (t, limit)
        assert K.long_words(t, limit) == expected, (t, limit)


@kernel
def test_long_words_on_every_corpus_and_bench_text() -> None:
    for text, _ in _texts_with_seeds():
        for limit in (1, 6, 1 << 70):
            assert K.long_words(text, limit) == terms.long_words_py(text, limit), text


@kernel
def test_long_words_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError):
        K.long_words(b"word", 3)
    with pytest.raises(TypeError):
        K.long_words("word", 3.0)
    with pytest.raises(TypeError):
        K.long_words("word")


def test_long_words_fall_back_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Restart the demo server on port 6920 ÀBOUT wordsé."
    with_kernel = [terms.long_words(text, n) for n in (0, 1, 3, 99)]
    monkeypatch.setattr(terms, "_lexkernel", None)
    assert [terms.long_words(text, n) for n in (0, 1, 3, 99)] == with_kernel == [0, 1, 3, 6]


# the chain by term ids (idc_run): what it serves, and what it leaves to the sets


@kernel
@pytest.mark.parametrize(
    "seed",
    [
        {"serv", "é", "ſerv", "serv\u0301", ""},  # exact strs no term equals
        {"serv", "restartgatewayindexlogs"},
        set(),
    ],
)
def test_seeds_no_term_equals_count_as_never_found(seed: set[str]) -> None:
    units = ["The server restarted.", "Restart the gateway index logs.", "Servers ſerv é."]
    _check(units, seed, frozenset({"é", "restart", "index"}))


@kernel
def test_tokens_with_many_terms_and_long_tokens() -> None:
    """A token of more terms than an entry keeps inline, and one longer than
    the token cache keeps (its terms made afresh at every use)."""
    many = "restartGatewayIndexLedgerQuotaWebhook"
    long = "restart" + "gateway" * 10
    units = [f"{many} now.", f"The {long} and {many}.", "Quota webhook ledger.", long, many]
    _check(units, {"restart", "ledger"}, frozenset({"quota", "gatewaygateway"}))
    _check(units, {"quota"}, frozenset())


@kernel
def test_other_stopwords_and_subclassed_items_take_the_set_chain() -> None:
    units = ["The server stopped.", "Restart the servers now!", "Servers and ports."] * 2
    expected_sw = terms.term_chain_py(units, {"serv"}, frozenset({"port"}))
    plain = set(terms.STOPWORDS)  # a set, not a frozenset: the cache keeps no terms for it
    assert K.term_chain(units, {"serv"}, frozenset({"port"}), plain) == expected_sw

    class Sub(str):
        pass

    assert K.term_chain(units, {Sub("serv")}, frozenset({"port"}), terms.STOPWORDS) == expected_sw
    assert K.term_chain(units, {"serv"}, frozenset({Sub("port")}), terms.STOPWORDS) == expected_sw
    # and the ids still answer afterwards
    assert K.term_chain(units, {"serv"}, frozenset({"port"}), terms.STOPWORDS) == expected_sw
