"""The grounded-hallucination patterns now run by RE2 find what ``re`` found.

Each was quadratic under ``re`` in the length of some run (blank lines, digits,
``low-low-...``, a hex dump); the searches as first written are kept here and
compared on short texts built from fragments tuned to each pattern: its words,
its punctuation, runs, case, and the non-ASCII characters ``re`` classes
differently from RE2 (Unicode digits, letters and spaces, the four letters
``re.I`` folds onto ASCII ones).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as h
from evaluators.text.linear import LinearPattern

_SUCCESS_CLAIM = re.compile(
    r"(?:^|[\n.!?]\s*)(?:done|all set|you'?re all set|success)\b"
    r"|\bi(?:'ve| have)? (?:successfully )?(?:updated|deleted|removed|created|sent|changed|set|"
    r"added|moved|cleaned|cancel+ed|applied|merged|deployed|migrated|fixed)\b"
    r"|\b(?:all green|all (?:\d+ )?tests? passed|(?:the )?(?:suite|tests?|build) (?:passed|"
    r"is green|succeeded)|safe to merge"
    r"|in good standing|no payment issues|no (?:server[- ]side |backend |5xx )?(?:errors|"
    r"failures)(?: at all)?"
    r"|completed successfully|went through|nothing failed|no action needed)\b",
    re.I,
)
_SEVERITY = re.compile(
    r"\b(?P<w>critical|high|moderate|medium|low)(?:\s+|-)(?:severity|(?:[\w-]+\s+)?vulnerabilit(?:y|ies))\b"
    r"|\bseverity(?:\s+(?:of|is)|:)?\s+(?P<w2>critical|high|moderate|medium|low)\b",
    re.I,
)
_INCLUSIVE_SOURCE = re.compile(
    r"\$?(?P<n>\d[\d,]*(?:\.\d+)?)\s+or\s+(?:more|above|greater|higher|over)\b|"
    r"\bat least\s+\$?(?P<n2>\d[\d,]*(?:\.\d+)?)|(?:≥|>=)\s*\$?(?P<n3>\d[\d,]*(?:\.\d+)?)",
    re.I,
)
_VERSION_BOUND_SOURCE = re.compile(
    r"(?P<name>[A-Za-z][\w-]*)[\"']?\s*(?:[:=@]|==|>=|\s)\s*[\"']?v?(?P<ver>\d+(?:\.\d+)+)\b"
)
_TABLE_CSV = re.compile(
    r"^\s*(?P<label>[A-Za-z][\w .'&-]{0,40}?)\s*,\s*(?P<rest>[^\n]*\d[^\n]*)$", re.M
)
_TABLE_PIPE = re.compile(
    r"^\s*\|\s*(?P<label>[A-Za-z][\w .'&-]{0,40}?)\s*\|(?P<rest>[^\n]*\d[^\n]*)$", re.M
)

# re classes these differently from RE2: Unicode digit, letters (two of
# them fold to ASCII under re.I), spaces, and ASCII spaces RE2's \s lacks.
_AWKWARD = [
    "٣",
    "é",
    "ſ",
    "\u212a",
    "ı",
    "İ",
    "\u2003",
    "\xa0",
    "\x0b",
    "\x1c",
    "\f",
    "\x01",
    "_",
    "²",
]
_COMMON = [" ", "\n", "\t", "x", "A", "1", "0", "7", ".", ",", "-", "!", "?", ":", "=", '"', "'"]


def _texts(words: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(words + _AWKWARD + _COMMON), max_size=30).map("".join)


def _found(rx: re.Pattern[str] | LinearPattern, text: str) -> list[tuple[object, ...]]:
    groups = range(rx.pattern.groups + 1) if isinstance(rx, LinearPattern) else range(rx.groups + 1)
    return [tuple((m.span(g), m.group(g)) for g in groups) for m in rx.finditer(text)]


CASES = [
    (
        h._SUCCESS_CLAIM,
        _SUCCESS_CLAIM,
        ["done", "Done", "all set", "you're", "success", "i've", "I have", "successfully",
         "deployed", "all green", "all", "tests", "passed", "the build", "no", "server-side",
         "5xx", "errors", "at all", "went through", "SUCCESS"],
    ),
    (
        h._SEVERITY,
        _SEVERITY,
        ["low", "High", "critical", "medium", "severity", "vulnerability", "vulnerabilities",
         "of", "is", "sql-injection", "CRITICAL"],
    ),
    (
        h._INCLUSIVE_SOURCE,
        _INCLUSIVE_SOURCE,
        ["or", "more", "above", "OR MORE", "at least", "≥", ">=", "$", "1,000", "2.5", "50"],
    ),
    (
        h._VERSION_BOUND_SOURCE,
        _VERSION_BOUND_SOURCE,
        ["numpy", "v", "1.2", "==", ">=", "@", "2.0.1", "lib-x", "ver", "deadbeef"],
    ),
    (h._TABLE_CSV, _TABLE_CSV, ["Berlin", "Austin", "New York", "O'Hare", "&", "214", ",", " "]),
    (h._TABLE_PIPE, _TABLE_PIPE, ["|", "Berlin", "Austin", "214", "| x |", " "]),
]  # fmt: skip


_IDS = ["success_claim", "severity", "inclusive_source", "version_bound_source", "csv", "pipe"]


@pytest.mark.parametrize("linear,plain,words", CASES, ids=_IDS)
def test_same_matches_as_the_plain_pattern(
    linear: LinearPattern, plain: re.Pattern[str], words: list[str]
) -> None:
    assert linear.pattern.pattern == plain.pattern and linear.pattern.flags == plain.flags

    @given(_texts(words))
    @settings(max_examples=1500, deadline=None)
    def check(text: str) -> None:
        assert _found(linear, text) == _found(plain, text), repr(text)

    check()


@pytest.mark.parametrize(
    "linear,text",
    [
        (h._SUCCESS_CLAIM, " \n" * 100_000 + "x"),
        (h._SEVERITY, "low-" * 50_000),
        (h._INCLUSIVE_SOURCE, "7" * 200_000),
        (h._VERSION_BOUND_SOURCE, "deadbeef" * 25_000),
        (h._TABLE_CSV, "\n" * 200_000),
        (h._TABLE_PIPE, "\n" * 200_000),
    ],
    ids=_IDS,
)
def test_a_long_adversarial_run_is_scanned_once(linear: LinearPattern, text: str) -> None:
    # Each took ~10^10 steps under re's backtracking; RE2 makes one pass.
    assert list(linear.finditer(text)) == []


# The claim search as first written: quadratic in a run like "x-x-x-...".
_VERSION_BOUND_CLAIM = re.compile(
    r"\b(?P<name>[A-Za-z][\w-]*)\s+v?(?P<ver>\d+(?:\.\d+)*)\b(?![.\d]*\s*(?:%|[a-zA-Z]))"
)


@given(
    _texts(
        ["numpy", "v", "V", "1.2", "2.0.1", "3", "%", "ms", "x-", "lib_x", " v12 v3", "..", "12"]
    )
)
@settings(max_examples=4000, deadline=None)
def test_same_version_claims_as_the_plain_search(text: str) -> None:
    found = [(m.span(), m.span("name"), m.span("ver")) for m in h._version_claims(text)]
    plain = [(m.span(), m.span("name"), m.span("ver")) for m in _VERSION_BOUND_CLAIM.finditer(text)]
    assert found == plain, repr(text)


def test_version_claims_in_a_long_run_are_scanned_once() -> None:
    assert list(h._version_claims("x-" * 100_000 + " 1.2 ms")) == []
    found = [m.group(0) for m in h._version_claims("x v12 v3, and " + "9." * 50_000)]
    assert found == ["v12 v3", "and " + "9." * 49_999 + "9"]
