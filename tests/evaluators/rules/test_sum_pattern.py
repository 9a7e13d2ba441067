"""``a + b = c`` found by RE2 exactly where the ``re`` search found it."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules.hallucination import _SUM, context_free_signals

# As first written: quadratic in the length of a run of digits ("7777...") and
# of a chain with no "=" ("1+1+1+..."); fine on the short texts generated here.
_PLAIN = re.compile(
    r"(\d[\d,]*(?:\.\d+)?)((?:\s*\+\s*\d[\d,]*(?:\.\d+)?)+)\s*=\s*(\d[\d,]*(?:\.\d+)?)"
)

pieces = st.sampled_from(
    [
        "1", "0", "12", "٣", "²", ",", ".", "+", "=", " ", "\n", "\x0b", "\x1c", "\u2003",
        "\xa0", "a", "é", "x", "1,000", "2.5", " + ", " = ", "-", "\f",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


def _found(it: object) -> list[tuple[tuple[int, int], tuple[str, str, str]]]:
    return [(m.span(), (m.group(1), m.group(2), m.group(3))) for m in it]  # type: ignore[attr-defined]


@given(texts)
@settings(max_examples=3000, deadline=None)
def test_same_sums_as_the_plain_search(text: str) -> None:
    assert _found(_SUM.finditer(text)) == _found(_PLAIN.finditer(text))


def test_known_sums() -> None:
    text = "1+1=2, 3 + 4 = 8 and 1.5,3+2=5.5 then ٣+1=4"
    assert _found(_SUM.finditer(text)) == _found(_PLAIN.finditer(text))
    # 3 + 4 = 8, and 5,3 + 2 = 5.5 (the comma makes 53)
    assert [s[1:3] for s in context_free_signals(text)] == [(7, 16), (23, 32)]


def test_long_runs_are_scanned_once() -> None:
    # Each of these was quadratic before (~10^10 steps); one pass now.
    for text in ("7" * 200_000 + "+=", "1+" * 100_000 + "=", "1.1+" * 50_000, "1," * 100_000):
        assert context_free_signals(text + " +=") == []
