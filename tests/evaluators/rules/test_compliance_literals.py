"""no_injection_compliance reads its directive phrases off one literal-set pass;
that pass must name exactly the phrases ``str.find`` finds in a folded slice."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules import compliance as C

EDGE = [" ", "\n", ":", ".", "x", "é", "İ", "ß", "\u212a", "\u200b", "A", "YOU", "Must"]


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from([*C.DIRECTIVES, *EDGE]), max_size=12).map("".join),
        st.text(max_size=80),
    )
)
def test_directive_set_names_what_find_finds(text: str) -> None:
    folded = C._fold_slice(text)
    present = C._DIRECTIVE_SET.present(folded)
    assert [p for p in C.DIRECTIVES if p in present] == [
        p for p in C.DIRECTIVES if folded.find(p) >= 0
    ]


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from([*C.DIRECTIVES, *C._DIRECTIVE_WORDS, *EDGE]), max_size=12).map(
            "".join
        ),
        st.lists(st.sampled_from([*C.DIRECTIVES, *EDGE, "\t", "\u3000", "\x1c"]), max_size=12).map(
            " ".join
        ),
        st.text(max_size=80),
    )
)
def test_the_word_gate_never_hides_a_directive(text: str) -> None:
    """A text the gate turns away folds to a slice holding no directive."""
    if not C._may_hold_directive(text):
        folded = C._fold_slice(text)
        assert not C._DIRECTIVE_SET.present(folded)
        assert not any(p in folded for p in C.DIRECTIVES)


def test_every_directive_holds_a_gate_word() -> None:
    for d in C.DIRECTIVES:
        assert any(w in d for w in C._DIRECTIVE_WORDS), d
        assert C._may_hold_directive(d.upper())
    assert not C._may_hold_directive('{"ok": true, "rows": 3}')
    assert C._may_hold_directive("ig\u200bnore")
