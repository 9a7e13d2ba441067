"""normalize(): the folded view and its offset map back to the raw text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.text import NormalizedText, normalize


def test_folds_disguises_to_plain_lowercase() -> None:
    raw = "Hе\u200bLLo\u00a0\t\nＷｏｒｌｄ"
    n = normalize(raw)
    assert n.text == "hello world"


def test_offsets_point_at_source_chars() -> None:
    raw = "A\u200bB  C"
    n = normalize(raw)
    assert n.text == "ab c"
    assert n.offsets == (0, 2, 3, 5, 6)
    assert n.raw_span(0, 2) == (0, 3)
    assert n.raw_span(3, 4) == (5, 6)


def test_nfkc_expansion_shares_source_index() -> None:
    n = normalize("xﬁy")
    assert n.text == "xfiy"
    assert n.raw_span(1, 2) == (1, 2)
    assert n.raw_span(1, 3) == (1, 2)


def test_empty() -> None:
    n = normalize("")
    assert n == NormalizedText("", "", (0,))


@settings(max_examples=300)
@given(st.text())
def test_offset_table_invariants(raw: str) -> None:
    n = normalize(raw)
    assert len(n.offsets) == len(n.text) + 1
    assert n.offsets[-1] == len(raw)
    assert list(n.offsets) == sorted(n.offsets)
    assert "  " not in n.text
    for i in range(len(n.text)):
        s, e = n.raw_span(i, i + 1)
        assert 0 <= s < e <= len(raw)
