"""no_stub_output's literal shortcuts find exactly what the regex scans they replace find.

``_discloses`` reads the disclosure pattern as the finite set of phrases it
matches, and the marker words are tried only where one occurs; both are
compared with the plain searches on texts built from the phrases' edges
(word boundaries, ``stubs`` vs ``stub``, case, digits, underscores,
non-ASCII letters and the case-changing oddities).
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules import stub

EDGE = [" ", "  ", "\n", ".", "_", "1", "x", "s", "y", "é", "İ", "ß", "\u212a", "A", "'", "-"]
PHRASES = [*stub._DISCLOSURE_WORDS, *(w.upper() for w in stub._DISCLOSURE_WORDS[:6])]
PHRASES += ["BLOCKED", "Blocked", "TODO stubs", "TODO Stub", "not", "stub", "still", "is", "are"]
MARKERS = [*stub._WORDS, "todo", "Todo", "TODOS", "XXXX", "_TODO", "TBD1"]


def _texts(fragments: list[str], max_size: int = 20) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(fragments), max_size=max_size).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_texts(PHRASES + EDGE), st.text(max_size=60)))
def test_discloses_equals_the_pattern(text: str) -> None:
    expected = stub._DISCLOSURE.search(text) is not None
    assert stub._discloses(text, text.lower()) == expected
    assert stub._discloses_plain(text, text.lower()) == expected


def test_disclosure_phrases_are_the_pattern_language() -> None:
    """Each phrase is matched by the pattern as a whole word, and no longer
    phrase is: the spelled-out set is neither short nor long."""
    for phrase in stub._DISCLOSURE_WORDS:
        m = stub._DISCLOSURE.fullmatch(phrase)
        assert m is not None, phrase
    assert stub._DISCLOSURE.search("is stubsy") is None
    assert stub._discloses("is stubsy", "is stubsy") is False


def _plain_markers(output: str) -> list[tuple[int, int]]:
    return [m.span() for m in re.compile(stub._MARKER_WORD.pattern).finditer(output)]


@settings(max_examples=400, deadline=None)
@given(st.one_of(_texts(MARKERS + EDGE), st.text(max_size=60)))
def test_marker_places_find_every_marker_word(text: str) -> None:
    places = stub._marker_places(text, text.lower())
    got = [m.span() for m in stub.tried_at(stub._MARKER_WORD, text, places)]
    assert got == _plain_markers(text)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["TODO", "FIXME", "[INSERT", "NOT YET\nDONE", "todo", "ß"])),
)
def test_custom_markers_skip_only_line_breaks_and_words(markers: list[str]) -> None:
    got = stub._custom_markers(tuple(markers))
    want = [(m, m.lower()) for m in markers if m.upper() not in stub._WORDS]
    assert list(got) == [(m, n) for m, n in want if "\n" not in n]
