"""The table-free identity view normalize() returns for plain ASCII text.

It must be indistinguishable from a view carrying the explicit identity table:
same fields, same spans, equal, same hash, same repr, and it must pickle.
"""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.text import NormalizedText, normalize

_PLAIN = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E)
    | st.sampled_from("\t\n\r\x0b\x0c")
)


def _explicit(n: NormalizedText) -> NormalizedText:
    return NormalizedText(n.raw, n.text, tuple(range(len(n.raw) + 1)))


def test_plain_ascii_gets_an_identity_view() -> None:
    n = normalize("Hello\tWorld\nBye")
    assert n._offsets is None
    assert n.text == "hello world bye"
    assert n.offsets == tuple(range(16))
    assert n == _explicit(n)


def test_space_runs_still_build_a_table() -> None:
    n = normalize("a  b")
    assert n._offsets == (0, 1, 3, 4)


@settings(max_examples=300)
@given(_PLAIN)
def test_identity_view_matches_the_explicit_table(raw: str) -> None:
    n = normalize(raw)
    ref = _explicit(n) if n._offsets is None else n
    assert n == ref and ref == n
    assert hash(n) == hash(ref)
    assert repr(n) == repr(ref)
    assert len(n.offsets) == len(n.text) + 1
    size = len(n.text)
    for start in range(0, size + 1, max(1, size // 7)):
        for end in (start, min(size, start + 1), size):
            assert n.raw_span(start, end) == ref.raw_span(start, end)


def test_out_of_range_spans_raise_on_both_forms() -> None:
    n = normalize("abc")
    assert n._offsets is None
    for view in (n, _explicit(n)):
        with pytest.raises(ValueError):
            view.raw_span(2, 4)
        with pytest.raises(ValueError):
            view.raw_span(-1, 1)


def test_views_are_frozen_and_pickle() -> None:
    n = normalize("plain text")
    with pytest.raises(FrozenInstanceError):
        n.text = "x"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del n.raw  # type: ignore[misc]
    back = pickle.loads(pickle.dumps(n))
    assert back == n and back.offsets == n.offsets


def test_inequality() -> None:
    assert normalize("ab") != normalize("abc")
    assert normalize("ab") != NormalizedText("ab", "ab", (0, 0, 2))
    assert normalize("ab") != ("ab", "ab", (0, 1, 2))
