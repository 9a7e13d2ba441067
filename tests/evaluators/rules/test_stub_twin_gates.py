"""The twin gates of ``find_stubs`` (``stub._TWIN_GATES``) skip no match.

A lowered twin is run only when its match's literals occur in the lowered
output: the "remaining" pattern's opening word and noun, the deferral's
continuation, the comment marks and words of "goes here" and "for now".
Texts built from those literals, their near misses and their neighbours
(case changes, line breaks, digits) must give ``find_stubs_reference``'s hits.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import DEFAULT_STUB_MARKERS
from evaluators.rules import stub

FRAGMENTS = [
    "remaining", "Remaining", "rest of the", "REST OF THE", "other", "Other", "the ", "The ",
    "methods", "functions", "Endpoints", "cases", "tests", "fields", "pieces", "method",
    " same", " similar", " pattern", " yourself", " you can", " left", " omitted", " follow",
    "i'll", "I'll", "i will", "let me", "Let me", " look into", " get back to you",
    " follow up", " circle back", " check on", " check", " look",
    "#", "//", "--", "/*", "-", "/", "goes here", "go here", "Goes Here", " here", "goes",
    "simplified", "stubbed", "hardcoded", "hard-coded", "fake", "mock", "mocked", "dummy",
    " for now", " until", "for", "now",
    " ", "  ", "\n", "\t", "2 ", "x", ".", "é", "\u212a",
]  # fmt: skip
texts = st.lists(st.sampled_from(FRAGMENTS), max_size=24).map("".join)


@given(texts)
@example("the remaining 3 methods are similar")
@example("Other tests follow the same shape")
@example("I'll look into it")
@example("let me\tfollow up")
@example("# the body goes here")
@example("// hardcoded for now")
@example("# mocked until the API lands")
@settings(max_examples=800, deadline=None)
def test_gated_twins_keep_every_hit(output: str) -> None:
    want = stub.find_stubs_reference(output, "", DEFAULT_STUB_MARKERS)
    assert stub.find_stubs(output, "", DEFAULT_STUB_MARKERS) == want
    assert stub.find_stubs(output, "", DEFAULT_STUB_MARKERS, output.lower()) == want


def test_examples_hit() -> None:
    """The gates do not turn a pattern off: each example still yields its hit."""
    for text, name in [
        ("the remaining 3 methods are similar", "remaining"),
        ("I'll look into it", "deferral"),
        ("# the body goes here", "goes_here"),
        ("// hardcoded for now", "for_now"),
    ]:
        assert name in [h.name for h in stub.find_stubs(text, "", DEFAULT_STUB_MARKERS)]
