"""The fast scans find exactly what the plain regex scans they replace find.

Each case builds many short random texts from fragments chosen to sit on the
edges of the patterns (runs, dots, case, non-ASCII letters, line breaks) and
compares the fast path with the straightforward one.
"""

from __future__ import annotations

import random
import re

import pytest

from evaluators.lexical.terms import terms_of_words, word_set, word_term_set, words
from evaluators.rules import grounding, hallucination_grounded, stub
from evaluators.rules.scan import lowered_twin, prefiltered_finditer

N = 4000


def _texts(fragments: list[str], seed: int, longest: int) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choice(fragments) for _ in range(rng.randint(0, longest))) for _ in range(N)
    ]


def _spans(it: object) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(), m.group(0)) for m in it]  # type: ignore[attr-defined]


TOKEN_CHARS = [*"av1.2 3/-_x.Ts@é٣\n+", "v2.0.1", "a.ts", ".env", "3.2%"]


@pytest.mark.parametrize(
    ("pattern", "fast"),
    [
        (hallucination_grounded._VERSION_ANY, hallucination_grounded._version_matches),
        (hallucination_grounded._FILE_TOKEN, hallucination_grounded._file_matches),
    ],
)
def test_anchored_finditer_matches_finditer(pattern: re.Pattern[str], fast: object) -> None:
    for text in _texts(TOKEN_CHARS, 1, 30):
        assert _spans(fast(text)) == _spans(pattern.finditer(text)), text  # type: ignore[operator]


def test_location_claims_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    fragments = ["a", ".", "/", "..", "./", "ts", "src", "x.py", " ", "\n", "-", "_", "@", "é"]
    fragments += [",", "?", "#", "env", ".env", "3.2", "dir/", "//", "https://h.io/p"]
    texts = _texts(fragments, 2, 12)
    fast = [grounding.extract_claims(t) for t in texts]
    # the plain scan: every _PATHISH match, location or not
    monkeypatch.setattr(grounding, "anchored_finditer", lambda p, _a, t, _r: p.finditer(t))
    for text, claims in zip(texts, fast, strict=True):
        assert claims == grounding.extract_claims(text), text


def test_marker_prefilter_and_disclosure_twin() -> None:
    fragments = ["TODO", "todo", "FIXME ", "XXXX", "TBD", "HACK", "PLACEHOLDERS", " ", "\n", "_"]
    fragments += ["not ", "Not ", "yet ", "done", "is ", "are ", "still ", "a ", "Stubs", "stub"]
    fragments += ["BLOCKED", "Blocked", "remaining work", "Don't rely", "haven't ", "ſtill ", "é"]
    for text in _texts(fragments, 3, 8):
        assert _spans(prefiltered_finditer(stub._MARKER_WORD, stub._MARKER_STARTS, text)) == _spans(
            stub._MARKER_WORD.finditer(text)
        ), text
        assert stub._discloses(text, text.lower()) == bool(stub._DISCLOSURE.search(text)), text


def test_lowered_twin_on_ascii_text() -> None:
    twin = lowered_twin(grounding._PROPOSAL)
    fragments = ["I would", "i'd", "You could", "For Example", "e.g.", "E.G.x", "such as", "x"]
    fragments += ["consider", "Considered", "rename", "MIGHT", "mighty", " ", "\n", "_"]
    fragments += ["Add A New", "Such As", "FOR EXAMPLE"]
    for text in _texts(fragments, 4, 6):
        expected = grounding._PROPOSAL.search(text)
        got = twin.search(text.lower())
        assert (got and got.span()) == (expected and expected.span()), text


def test_lowered_twin_refuses_patterns_lowering_would_change() -> None:
    with pytest.raises(ValueError):
        lowered_twin(re.compile(r"[A-Z]\W", re.I))
    with pytest.raises(ValueError):
        lowered_twin(re.compile(r"abc"))


def test_distinct_token_sets() -> None:
    fragments = ["fooBar", "HTTPServer", "don't", "running", "x1", "ABC", "the", " ", ".", "_"]
    fragments += ["Ünïcode", "getHTTP2Value", "'quoted'", "'", "reads", "reading"]
    for text in _texts(fragments, 5, 10):
        assert word_set(text) == set(words(text)), text
        assert word_term_set(text) == set(terms_of_words(words(text))), text


def test_squash_ascii_translate() -> None:
    from evaluators.rules.tool_failure import _NOT_ALNUM, _squash

    chars = [*"aB3_ -.\n\t\x1c'é٣ß", "\u212a"]
    for text in _texts(chars, 6, 12):
        assert _squash(text) == _NOT_ALNUM.sub("", text.lower()), repr(text)


def test_false_success_and_attribution_twins() -> None:
    h = hallucination_grounded
    fragments = ["Failed", "error", "no errors", "No server-side errors", "no 5xx", "500", "x"]
    fragments += ["couldn't", "All green", "ALL 3 TESTS PASSED", "the build passed", "Per the"]
    fragments += ["i've successfully deployed", "Went Through", " ", "\n", ".", "_", "verbatim"]
    fragments += ["According To The", "The Report Shows", "from the Docs", "No payment issues"]
    for text in _texts(fragments, 7, 8):
        low = text.lower()
        assert bool(h._FAILURE_ACK.search(h._DENIAL.sub(" ", text))) == bool(
            h._FAILURE_ACK_LOWER.search(h._DENIAL_LOWER.sub(" ", low))
        ), text
        claim, plain = h._SUCCESS_CLAIM.search(text), h._SUCCESS_CLAIM.pattern.search(text)
        assert (claim and claim.span()) == (plain and plain.span()), text
        assert [m.span() for m in h._ATTRIBUTION.finditer(text)] == [
            m.span() for m in h._ATTRIBUTION_LOWER.finditer(low)
        ], text
