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
