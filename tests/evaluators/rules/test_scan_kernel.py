"""``anchored_finditer`` finds each anchor's run with the C kernel on ASCII text;
the run bounds and the matches must equal the pure-``re`` walk they replace.

Texts mix the callers' run characters (letters, digits, ``_ . / -``) with
spaces, other punctuation, non-ASCII letters and digits (which ``\\w`` and
``\\d`` take but the ASCII tables do not: such text keeps the regex walk).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules import grounding, hallucination_grounded, scan
from evaluators.text import _scankernel

RUNS = [
    grounding._PATHISH_RUN,
    hallucination_grounded._VERSION_RUN,
    hallucination_grounded._FILE_RUN,
    re.compile(r"[a-z]*", re.I),
]
FRAGS = [*"aZ09_./-: ,;\n\t", "v1.2.3", "src/a.ts", "x.py", "1.0", "é", "٣", "\u212a", "İ", "𝐀"]
TEXTS = st.one_of(st.lists(st.sampled_from(FRAGS), max_size=30).map("".join), st.text(max_size=60))
CALLERS = [
    (grounding._PATHISH, grounding._LOCATION_ANCHOR, grounding._PATHISH_RUN, None),
    (
        hallucination_grounded._VERSION_ANY,
        hallucination_grounded._DIGIT_DOT_DIGIT,
        hallucination_grounded._VERSION_RUN,
        b"1.1",
    ),
    (
        hallucination_grounded._FILE_TOKEN,
        hallucination_grounded._DOT_LETTER,
        hallucination_grounded._FILE_RUN,
        None,
    ),
]


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.integers(0, 80), st.sampled_from(RUNS))
def test_run_bounds_equal_the_regex_walk(text: str, at: int, run: re.Pattern[str]) -> None:
    i = min(at, len(text))
    if not text.isascii():
        text = text.encode("ascii", "replace").decode("ascii")
    got = _scankernel.run_bounds(text, scan.run_table(run), i)
    assert got == scan.run_bounds_plain(run, text, i)


def test_run_bounds_refuses_bad_arguments() -> None:
    table = scan.run_table(RUNS[0])
    with pytest.raises(IndexError):
        _scankernel.run_bounds("abc", table, 4)
    with pytest.raises(ValueError):
        _scankernel.run_bounds("abc", table[:5], 1)


def _anchored(text: str) -> list[list[tuple[int, int]]]:
    return [
        [m.span() for m in scan.anchored_finditer(pattern, anchor, text, run, shape)]
        for pattern, anchor, run, shape in CALLERS
    ]


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_anchored_finditer_with_and_without_the_kernel(text: str) -> None:
    """The same matches either way; for the hallucination tokens (whose two
    properties hold) they are ``finditer``'s. The location scan keeps only
    what starts at a run start, which grounding's callers rely on."""
    got = _anchored(text)
    for (pattern, _, _, _), spans in list(zip(CALLERS, got, strict=True))[1:]:
        assert spans == [m.span() for m in pattern.finditer(text)]
    saved = scan._scankernel
    try:
        scan._scankernel = None  # type: ignore[assignment]
        assert _anchored(text) == got
    finally:
        scan._scankernel = saved


def test_anchored_finditer_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "see src/a.ts and v1.2.3 then x.py, 1.0.0-rc1 ./b/c.md"
    with_kernel = _anchored(text)
    monkeypatch.setattr(scan, "_scankernel", None)
    assert _anchored(text) == with_kernel
    assert with_kernel[1] and with_kernel[2]
