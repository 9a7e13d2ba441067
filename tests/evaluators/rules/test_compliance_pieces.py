"""no_injection_compliance's piece gate turns away only slices without a directive.

``_may_hold_directive`` asks that every space-separated piece of some
directive occur in the lowered slice. Texts made of the directives, their
pieces in every order, the whitespace ``str.split`` folds (tabs, ideographic
space, information separators), U+200B and case-changing characters: a text
the gate turns away must fold to a slice holding no directive, and the gate
must never let through less than the earlier word gate would turn away.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import compliance as C
from tests.support.texts import bench_strings, corpus_strings

PIECES = sorted({p for ps in C._DIRECTIVE_PIECES for p in ps})
EDGE = [" ", "  ", "\n", "\t", "\u3000", "\x1c", "\u200b", ":", "x", "é", "İ", "\u212a", "YOU"]
texts = st.one_of(
    st.lists(st.sampled_from([*PIECES, *EDGE]), max_size=16).map("".join),
    st.lists(st.sampled_from([*PIECES, *C.DIRECTIVES, *EDGE]), max_size=16).map(" ".join),
    st.text(max_size=80),
)


def _check(text: str) -> None:
    gate = C._may_hold_directive(text)
    if gate:
        assert C._may_hold_directive_words(text)
    else:
        folded = C._fold_slice(text)
        assert not any(p in folded for p in C.DIRECTIVES)
        assert not C._DIRECTIVE_SET.present(folded)


@given(texts)
@example("you\tare\u3000now")
@example("YOU ARE\n NOW")
@example("ignore the\x1cabove")
@example("send\u200ball")
@settings(max_examples=800, deadline=None)
def test_the_piece_gate_never_hides_a_directive(text: str) -> None:
    _check(text)


def test_on_corpus_and_bench_texts() -> None:
    for text in (*corpus_strings(), *bench_strings()):
        _check(text)


def test_every_directive_passes_its_own_gate() -> None:
    for d in C.DIRECTIVES:
        assert C._may_hold_directive(d) and C._may_hold_directive(d.upper())
        assert C._may_hold_directive(f"x {d.replace(' ', chr(9))} y")
    assert not C._may_hold_directive('{"email": "a@b.c", "notes": "you said"}')
