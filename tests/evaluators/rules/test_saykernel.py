"""says_something's compiled letter-run counts equal the Python reference.

``_saykernel.letter_stats(low, words)`` must return what
``_letter_stats_py`` returns: the number of ``[a-z']`` runs, how many of them
are one of ``words``, and the non-space characters as ``str.split()`` sees
them. Texts are drawn from the characters the scan decides on (the run
letters and the apostrophe, capitals, digits, punctuation, every kind of
whitespace, non-ASCII letters, combining marks, astral characters, the
characters ``str.lower`` lengthens or folds to ASCII), lowered as the rule
lowers them or not, and taken from the proof corpus and the bench cases.
The fallback (no extension) is the reference itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.lexical.sentences import split_sentences
from evaluators.request import EvaluationRequest
from evaluators.rules import completeness as c
from tests.support.texts import bench_cases, corpus_strings

ROOT = Path(__file__).resolve().parents[3]
kernel = pytest.importorskip("evaluators.rules._saykernel")
WORDS = c._LOREM_WORDS


def _same(text: str, words: tuple[str, ...] = WORDS) -> None:
    for t in (text, text.lower(), text.strip().lower()):
        got = kernel.letter_stats(t, words)
        assert got == c._letter_stats_py(t, words)
        assert all(type(v) is int for v in got)
    for t in (text, text.strip()):
        folded = kernel.letter_stats(t, words, True)
        assert folded == c._letter_stats_py(t, words, True)
        assert kernel.letter_stats(t, words, False) == c._letter_stats_py(t, words)
        if t.isascii():  # what says_something reads it for: the lowered text's counts
            assert folded == c._letter_stats_py(t.lower(), words)


pieces = st.sampled_from(
    [
        "lorem", "ipsum", "dolor", "do", "ut", "et", "sit", "amet", "consectetur", "Lorem",
        "LOREM", "dolore", "dolorem", "a", "z", "'", "''", "it's", "x", "ok", "done",
        "0", "7", "١", "_", "-", ".", ",", "!", "?", "(", ")", "`", "\"", "/",
        " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "\x85",
        "\xa0", "\u1680", "\u2003", "\u2028", "\u2029", "\u200b", "\u3000", "\ufeff",
        "İ", "ß", "\u212a", "\u212b", "é", "e\u0301", "\u0301", "ſ", "Σ", "ǅ", "ﬃ",
        "😀", "\U00010400", "\U0001d41a", "ł", "ø", "Ω", "中",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts)
@example("lorem ipsum dolor sit amet, consectetur adipiscing elit")
@example("Lorem İpsum \u212aelit do'ut et'")
@example("ut")
@settings(max_examples=400, deadline=None)
def test_the_counts_equal_the_reference(text: str) -> None:
    _same(text)


@given(st.text(max_size=80))
@settings(max_examples=400, deadline=None)
def test_the_counts_equal_the_reference_on_any_text(text: str) -> None:
    _same(text)


word_lists = st.lists(
    st.one_of(st.text(alphabet="abz'", max_size=6), st.text(max_size=4)), max_size=6
).map(tuple)


@given(texts, word_lists)
@settings(max_examples=400, deadline=None)
def test_the_counts_equal_the_reference_for_any_words(text: str, words: tuple[str, ...]) -> None:
    _same(text, words)


@pytest.mark.parametrize(
    "text",
    ["", " ", "'", "a", "lorem", " lorem ", "lorem'", "'lorem", "x" * 70, "lorem" * 3,
     "consecteturs consectetur", "\U0001d41a lorem \u2003 ipsum\U00010400", "ÀBOUT dolor"],
)  # fmt: skip
def test_the_counts_equal_the_reference_on_edges(text: str) -> None:
    _same(text)
    _same(text, ())
    _same(text, ("", "x" * 64, "é", "lorem"))


def test_bad_arguments_raise() -> None:
    with pytest.raises(TypeError):
        kernel.letter_stats(b"lorem", WORDS)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.letter_stats("lorem", ["lorem"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.letter_stats("lorem", ("lorem", 1))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        kernel.letter_stats("lorem", ("x" * 65,))


def _corpus_texts() -> tuple[str, ...]:
    return corpus_strings()


def _bench_cases() -> tuple[EvaluationRequest, ...]:
    return bench_cases(200)


def test_the_counts_equal_the_reference_on_the_proof_corpus() -> None:
    texts = _corpus_texts()
    assert texts
    for text in texts:
        _same(text)


def test_the_counts_equal_the_reference_on_the_bench_cases() -> None:
    for case in _bench_cases():
        for text in (case.output or "", case.input or "", case.expected or ""):
            _same(text)


def test_letter_stats_runs_the_kernel_when_built() -> None:
    assert c._saykernel is kernel


def test_says_something_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = EngineConfig()
    cases = _bench_cases()[:60]
    with_kernel = [c.says_something(EvalContext(r, cfg)) for r in cases]
    low = "lorem ipsum dolor sit amet, consectetur adipiscing elit"
    stats = c._letter_stats(low)
    monkeypatch.setattr(c, "_saykernel", None)
    assert c._letter_stats(low) == stats == (8, 8, len(low) - 7)
    assert [c.says_something(EvalContext(r, cfg)) for r in cases] == with_kernel


rep_pieces = st.sampled_from(
    ["Do it now.", " ", "\n", "\t", "Go on then!", "ok", "lorem ipsum dolor.", "A B C.", "```x```"]
)


@given(st.lists(rep_pieces, max_size=30).map("".join), st.text(alphabet="ab DO it.\n", max_size=40))
@settings(max_examples=300, deadline=None)
def test_the_reused_non_space_count_changes_nothing(text: str, ask: str) -> None:
    """says_something hands the lowered strip's count to the echo and
    repetition tests (the repetition test on ASCII text only)."""
    low = text.strip().lower()
    nonspace = c._letter_stats(low)[2]
    assert c._is_echo(ask, low, nonspace) == c._is_echo(ask, low)
    if text.isascii():
        spans = split_sentences(text)
        assert c._sentence_repetition(text, spans, nonspace) == c._sentence_repetition(text, spans)


# --- most_repeated ---------------------------------------------------------
sentence_pieces = st.sampled_from(
    [
        "Do it now.", "do it NOW. ", "DO IT NOW!", "Go on then!", "a b c.", "A B C.", "a  b\tc.",
        "ok.", "x y.", " ", "  ", "\n", "\t", "\x0b", "\x1c", "\x85", "\xa0", "\u2003", "\u3000",
        "İ i i.", "\u0130 x y.", "ß a b.", "SS a b.", "é é é.", "E\u0301 e e.", "Σ σ ς.",
        "\u212a k k.", "😀 a b.", "\U00010400 a b.", "中 文 字.", "ǅ x y.", "ﬃ a b.", "...",
        "e.g. this one", "Dr. Who is here.", "3.5 is it.", "\"Quoted\" words here.",
    ]
)  # fmt: skip
sentence_texts = st.lists(sentence_pieces, max_size=40).map("".join)


def _same_repeated(text: str, spans: list[tuple[int, int]]) -> None:
    got = kernel.most_repeated(text, spans)
    assert got == c._most_repeated_py(text, spans), (text, spans)
    assert type(got[0]) is str and type(got[1]) is int
    for min_count in (-1, 0, 1, 2, 3, 5):
        gated = kernel.most_repeated(text, spans, min_count)
        assert gated == c._most_repeated_py(text, spans, min_count), (text, spans, min_count)
        # the gate only answers ("", 0) where no sentence occurs min_count times
        assert gated == got or (gated == ("", 0) and got[1] < min_count)


@given(sentence_texts)
@example("Do it now. do it NOW. Do it now.  DO IT NOW! x y.")
@example("İ i i. \u0130 i i. i\u0307 i i.")
@settings(max_examples=500, deadline=None)
def test_most_repeated_equals_the_reference(text: str) -> None:
    _same_repeated(text, split_sentences(text))


@given(st.text(max_size=80), st.data())
@settings(max_examples=500, deadline=None)
def test_most_repeated_equals_the_reference_on_any_spans(text: str, data: st.DataObject) -> None:
    _same_repeated(text, split_sentences(text))
    bound = st.integers(0, len(text))
    pairs = data.draw(st.lists(st.tuples(bound, bound).map(sorted).map(tuple), max_size=12))
    _same_repeated(text, pairs)  # overlapping, empty and repeated spans too


@pytest.mark.parametrize(
    "text",
    ["", " ", "a b c", "a b c. a b c. a b c.", "x" * 5000 + " y z.", "a b c. " * 10_000,
     "\U0001d41a b c. \U0001d41a B c. \U0001d41a b C.", "Ａ Ｂ Ｃ. ａ ｂ ｃ."],
)  # fmt: skip
def test_most_repeated_equals_the_reference_on_edges(text: str) -> None:
    _same_repeated(text, split_sentences(text))
    _same_repeated(text, [])
    _same_repeated(text, [(0, len(text))] * 3)


def test_most_repeated_equals_the_reference_on_the_corpus_and_bench() -> None:
    for text in _corpus_texts():
        _same_repeated(text, split_sentences(text))
    for case in _bench_cases():
        out = case.output or ""
        _same_repeated(out, split_sentences(out))


def test_the_length_gate_keeps_the_repetition_verdict() -> None:
    """_sentence_repetition asks for five repeats: lengths alike or not, the
    gated call decides as the full count does."""
    for text in ("Say it again. " * 6, "Say it again. Say it AGAIN. " * 3 + "No.", "A b c. " * 4):
        spans = split_sentences(text)
        full = c._most_repeated_py(text, spans)
        assert c._most_repeated_py(text, spans, 5) == (full if full[1] >= 5 else ("", 0))
        assert kernel.most_repeated(text, spans, 5) == c._most_repeated_py(text, spans, 5)
    with pytest.raises(TypeError):
        kernel.most_repeated("a b c", [(0, 5)], "5")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.most_repeated("a b c", [(0, 5)], 5, 5)  # type: ignore[call-arg]


def test_most_repeated_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.most_repeated(b"a b c", [(0, 5)])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.most_repeated("a b c", [(0,)])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        kernel.most_repeated("a b c", [[0, 5]])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        kernel.most_repeated("a b c", 5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        kernel.most_repeated("a b c", [(0, 6)])
    with pytest.raises(ValueError):
        kernel.most_repeated("a b c", [(3, 2)])
    with pytest.raises(ValueError):
        kernel.most_repeated("a b c", [(-1, 2)])
    with pytest.raises(OverflowError):
        kernel.most_repeated("a b c", [(0, 1 << 70)])


def test_most_repeated_runs_the_kernel_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Say it again. " * 6
    spans = split_sentences(text)
    assert (
        c._most_repeated(text, spans) == kernel.most_repeated(text, spans) == ("say it again.", 6)
    )
    monkeypatch.setattr(c, "_saykernel", None)
    assert c._most_repeated(text, spans) == ("say it again.", 6)
    assert c._sentence_repetition(text, spans) == ("say it again.", 6)


def _is_echo_as_first_written(ask: str, low: str) -> bool:
    a = " ".join(ask.lower().split())
    if c._non_space_count(low) > 1.2 * len(a):
        return False
    o = " ".join(low.split())
    return a in o and len(o) <= 1.2 * len(a)


@given(
    st.text(alphabet="ab DO it.\nİ\u2003", max_size=40),
    st.lists(rep_pieces, max_size=10).map("".join),
)
@settings(max_examples=500, deadline=None)
def test_the_echo_bound_on_the_ask_changes_nothing(ask: str, text: str) -> None:
    low = text.strip().lower()
    for candidate in (low, ask.lower(), " ".join(ask.lower().split()) + " x"):
        assert c._is_echo(ask, candidate) == _is_echo_as_first_written(ask, candidate)


@given(st.text(max_size=40))
@settings(max_examples=300, deadline=None)
def test_preamble_gate_skips_only_what_cannot_match(tail: str) -> None:
    # says_something runs _AI_PREAMBLE only on a stripped output opening with
    # "a"/"A": no other first character can start a match
    for head in ("as an ai", "As An AI language model", "AS AN AI", "ſ", "\u212a", "b"):
        text = (head + tail).strip()
        if text and text[0] not in "aA":
            assert c._AI_PREAMBLE.sub("", text) == text


@pytest.mark.parametrize(
    ("output", "shape"),
    [
        ("NULL", "placeholder"),
        ("  [Object Object] ", "placeholder"),
        ("(None)", "placeholder"),
        ("Lorem ipsum dolor sit amet", "placeholder"),
        ("Done!", "acknowledgement"),
        ("OK, DONE.", "acknowledgement"),
        ("Explain How The Retention Sweep Is Scheduled", "echo"),
        ("Ｎｕｌｌ", None),
        ("İ", None),
    ],
)
def test_the_lowered_copy_is_made_where_it_is_read(output: str, shape: str | None) -> None:
    """On ASCII output the letter counts fold the capitals as they read, and
    the lowered copy is made only for the short-output tests; their shapes
    are found as before (either kernel state)."""
    req = EvaluationRequest(output=output, input="explain how the retention sweep is scheduled")
    got = c.says_something(EvalContext(req, EngineConfig()))
    want = f"The output says nothing ({shape})." if shape else "The output says something."
    assert got.message == want
