"""The session-7 narrowing of the credential and address gates must not change
a single match: each narrowed search is compared with the plain regex it
replaces, on generated text and on every corpus and bench text (fixed and
varied cases)."""

from __future__ import annotations

import functools
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.detectors import injection, personal, secrets
from evaluators.detectors import injection_patterns as P
from evaluators.detectors.findings import normalized
from tests.support.texts import bench_cases, bench_strings, corpus_strings

# Letters of the key words, operators, quotes and separators, so that
# assignments, near misses and far-away operators are all common.
_ASSIGN_TEXT = st.lists(
    st.sampled_from(
        [*"passwordtkenycrilh_-.:= '\"`0123456789", "token", "api_key", "secret", "credentials"]
    ),
    max_size=120,
).map("".join)


@functools.cache
def _texts() -> tuple[str, ...]:
    """Normalised views of every corpus string and of the bench texts, the
    varied cases' included (those hold many distinct keys and numbers)."""
    bench_cases(1)  # loads the bench module as the tests load it
    varied = sys.modules["_engine_bench"].make_cases(200, varied=True)
    raw = [*corpus_strings(), *bench_strings()]
    for case in varied:
        raw += [case.output, case.input or ""]
    return tuple(dict.fromkeys(normalized(s).text for s in raw))


def _spans(matches: object) -> list[tuple[int, int, str | None]]:
    return [(m.start(), m.end(), m.group("word")) for m in matches]  # type: ignore[attr-defined]


def _assert_assign_same(t: str) -> None:
    want = _spans(secrets._ASSIGN_RE.finditer(t))
    assert _spans(secrets._assign_matches(t, None)) == want
    present = frozenset(lit for lit in secrets.GATE_LITERALS if lit in t)
    assert _spans(secrets._assign_matches(t, present)) == want


@settings(max_examples=500, deadline=None)
@given(_ASSIGN_TEXT)
def test_assign_matches_equal_finditer(t: str) -> None:
    _assert_assign_same(t)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_assign_matches_equal_finditer_on_any_text(t: str) -> None:
    _assert_assign_same(t)


def test_assign_matches_far_operator() -> None:
    # the operator as far after the word's literal as a match allows, and one further
    near = "credentials" + "x" * 20 + "' = abcdefgh12345678"
    assert _spans(secrets._assign_matches(near, None)) == _spans(secrets._ASSIGN_RE.finditer(near))
    assert _spans(secrets._assign_matches(near, None))
    far = "token" + " " + "x" * 40 + "=1"
    assert list(secrets._assign_matches(far, None)) == []


def test_assign_matches_on_corpus_and_bench_texts() -> None:
    for t in _texts():
        _assert_assign_same(t)


_ZIP_TEXT = st.lists(
    st.sampled_from([*"zipcode:, 0123456789ny", "zip code", "ny", "in", "de", " 12345"]),
    max_size=60,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_ZIP_TEXT)
def test_the_zip_head_gate_never_hides_a_head_match(t: str) -> None:
    # at every place, not only five-digit starts: the gate must be implied
    # by the head regex wherever that can match
    for p in range(len(t) + 1):
        want = personal._ZIP_HEAD_RE.search(t, max(0, p - 10), p) is not None
        assert personal._may_have_zip(t, [p]) is want


@settings(max_examples=300, deadline=None)
@given(_ZIP_TEXT)
def test_may_have_zip_equals_its_plain_statement(t: str) -> None:
    starts = [m.start() for m in personal._FIVE_DIGITS_RE.finditer(t)]
    want = any(personal._ZIP_HEAD_RE.search(t, max(0, p - 10), p) is not None for p in starts)
    assert personal._may_have_zip(t, starts) is want


def test_may_have_zip_on_corpus_and_bench_texts() -> None:
    for t in _texts():
        starts = [m.start() for m in personal._FIVE_DIGITS_RE.finditer(t)]
        want = any(personal._ZIP_HEAD_RE.search(t, max(0, p - 10), p) is not None for p in starts)
        assert personal._may_have_zip(t, starts) is want


def _addressee_matches_before(t: str, positions: list[int]) -> list[tuple[int, int]]:
    """``injection._addressee_matches`` as it was before segments were gated on
    how a match can end: the reference the gated version must equal."""
    out: list[tuple[int, int]] = []
    done = 0
    n = len(t)
    for p in positions:
        if p < done:
            continue
        q = p
        while q > done and t[q - 1] in P.ADDRESSEE_INTERIOR:
            q -= 1
        brk = P.ADDRESSEE_BREAK_RE.search(t, p)
        end = brk.end() if brk is not None else n
        pos = q
        while pos < end:
            m = P.ADDRESSEE_RE.search(t, pos, end)
            if m is None:
                break
            full = P.ADDRESSEE_RE.match(t, m.start())
            if full is None:
                pos = m.start() + 1
                continue
            out.append(full.span())
            pos = max(full.end(), full.start() + 1)
        done = max(end, pos)
    return out


def _assert_addressee_same(t: str) -> None:
    positions = injection._machine_positions(injection._FAMILY.scan(t))
    got = [m.span() for m in injection._addressee_matches(t, positions)]
    assert got == _addressee_matches_before(t, positions)


_ADDRESSEE_TEXT = st.lists(
    st.sampled_from(
        [
            *"ab -:,.—–'\n",
            "ai",
            "bot",
            "the ",
            "note to the ",
            "assistant",
            "triage-bot",
            "screener",
            " reading",
            "--",
            "llm",
        ]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_ADDRESSEE_TEXT)
def test_addressee_matches_equal_the_ungated_search(t: str) -> None:
    _assert_addressee_same(t)


def test_addressee_matches_on_corpus_and_bench_texts() -> None:
    for t in _texts():
        _assert_addressee_same(injection._unleet(t))


# --- _piikernel.near, the C twin of secrets._near_reference ------------------------------

_NEAR_LITS = secrets._ASSIGN.locator.literals if secrets._ASSIGN.locator is not None else ()
_near_text = st.one_of(
    st.text(max_size=200),
    st.lists(
        st.sampled_from(
            [*"ab:= \u00e9\u4e2d\U0001f600", "token", "key", "pass", "pwd", "secret", "credential"]
        ),
        max_size=80,
    ).map("".join),
)


@settings(max_examples=500, deadline=None)
@given(_near_text, st.integers(min_value=0, max_value=60))
def test_near_kernel_equals_reference(t: str, reach: int) -> None:
    kernel = secrets._piikernel
    assert kernel is not None
    for chars in (":=", ":", "", "\u00e9"[:0] + "a"):
        want = secrets._near_reference(t, _NEAR_LITS, chars, reach)
        assert kernel.near(t, _NEAR_LITS, chars, reach) == want
    assert kernel.near(t, ("a", "ab", "b"), "b:", reach) == secrets._near_reference(
        t, ("a", "ab", "b"), "b:", reach
    )


def test_near_kernel_on_corpus_and_bench_texts() -> None:
    kernel = secrets._piikernel
    assert kernel is not None
    for t in _texts():
        want = secrets._near_reference(t, _NEAR_LITS, secrets._OPERATORS, secrets._OPERATOR_REACH)
        assert kernel.near(t, _NEAR_LITS, secrets._OPERATORS, secrets._OPERATOR_REACH) == want


def test_near_kernel_odd_inputs() -> None:
    kernel = secrets._piikernel
    assert kernel is not None
    assert kernel.near("", ("key",), ":=", 40) == []
    assert kernel.near("key:", (), ":=", 40) == []
    assert kernel.near("key:", ("key",), "", 40) == []
    assert kernel.near("key:", ("key",), ":", 0) == []
    assert kernel.near("key:", ("key",), ":", 4) == [0]
    assert kernel.near("key:", ("key",), ":", 3) == []
    assert kernel.near("\U0001f600key\U0001f600:", ("key",), ":", 5) == [1]
    huge = "key " * 50_000 + "="
    assert kernel.near(huge, ("key",), "=", 40) == secrets._near_reference(huge, ("key",), "=", 40)
    with pytest.raises(ValueError):
        kernel.near("key", ("",), ":", 4)
    with pytest.raises(ValueError):
        kernel.near("key", ("k\u00e9",), ":", 4)
    with pytest.raises(ValueError):
        kernel.near("key", ("key",), "\u00e9", 4)
    with pytest.raises(TypeError):
        kernel.near("key", ["key"], ":", 4)
    for near in (kernel.near, secrets._near_reference):
        with pytest.raises(ValueError):
            near("key:", ("key",), ":", -1)


def test_assignments_use_the_kernel_and_fall_back_without_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert secrets._piikernel is not None and hasattr(secrets._piikernel, "near")
    texts = [t for t in _texts() if ":" in t or "=" in t][:300]
    texts += ['api_key = "sk9f8a7s6d5f4g3h2j1k0lzxcvbnmqw"', "password: hunter2hunter2!"]
    with_kernel = [secrets._assignments(t) for t in texts]
    monkeypatch.setattr(secrets, "_piikernel", None)
    assert [secrets._assignments(t) for t in texts] == with_kernel
    for t in texts:
        _assert_assign_same(t)
