"""``outcome`` and ``skip`` build what the ``Outcome`` class call builds.

Both pass every field by position (``evaluators.rules.base._outcome``: no
keyword dict to build); a field added to or moved in ``Outcome`` would shift
the values, which the comparisons below (dataclass ``==`` reads every field)
catch.
"""

from __future__ import annotations

import gc
import pickle
from dataclasses import fields, make_dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules.base import Outcome, outcome, skip

_TEXT = st.text(max_size=12)
_NAMES = st.lists(st.sampled_from(["output", "input", "tool_calls", "cost"]), max_size=3).map(tuple)
_EVIDENCE = st.lists(st.dictionaries(st.sampled_from(["type", "n"]), _TEXT, max_size=2), max_size=3)
_VALUE = st.none() | st.dictionaries(st.sampled_from(["stat", "value"]), _TEXT, max_size=2)
_SKIP_CLASS = st.sampled_from(["not_applicable", "defeated", "config_invalid"])


@settings(max_examples=300, deadline=None)
@given(
    st.booleans(),
    st.floats(allow_nan=False) | st.integers(-2, 2),
    _TEXT,
    st.none() | _EVIDENCE,
    _NAMES,
    _VALUE,
    st.booleans(),
)
def test_outcome_is_the_class_call(
    passed: bool,
    score: float,
    message: str,
    evidence: list[dict[str, Any]] | None,
    saw: tuple[str, ...],
    value: dict[str, Any] | None,
    asked: bool,
) -> None:
    built = outcome(passed, score, message, evidence, saw=saw, value=value, asked=asked)
    if evidence is None:
        expected = Outcome(passed, score, message, saw=saw, value=value, asked=asked)
    else:
        expected = Outcome(passed, score, message, evidence, saw=saw, value=value, asked=asked)
    assert built == expected
    assert [type(getattr(built, f.name)) for f in fields(Outcome)] == [
        type(getattr(expected, f.name)) for f in fields(Outcome)
    ]
    assert pickle.loads(pickle.dumps(built)) == expected


@settings(max_examples=300, deadline=None)
@given(_TEXT, _SKIP_CLASS, _NAMES, _NAMES)
def test_skip_is_the_class_call(
    reason: str, skip_class: Any, lacked: tuple[str, ...], saw: tuple[str, ...]
) -> None:
    expected = Outcome(
        passed=False,
        score=0.0,
        message=f"Skipped: {reason}",
        skipped=True,
        skip_class=skip_class,
        skip_reason=reason,
        lacked=lacked,
        saw=saw,
        config_invalid=skip_class == "config_invalid",
    )
    assert skip(reason, skip_class, lacked, saw) == expected


def test_each_gets_its_own_lists() -> None:
    a, b = outcome(True, 1.0, "x"), outcome(True, 1.0, "x")
    assert a.evidence is not b.evidence and a.notes is not b.notes
    s, t = skip("r"), skip("r")
    assert s.evidence is not t.evidence and s.notes is not t.notes


kernel = pytest.importorskip("evaluators._resultkernel")


@settings(max_examples=300, deadline=None)
@given(
    st.tuples(
        st.booleans(),
        st.floats(allow_nan=False) | st.integers(-2, 2),
        _TEXT,
        _EVIDENCE,
        st.booleans(),
        st.none() | _SKIP_CLASS,
        st.none() | _TEXT,
        _NAMES,
        _VALUE,
        st.booleans(),
        st.booleans(),
        _NAMES,
        st.booleans(),
        st.lists(_TEXT, max_size=2),
    )
)
def test_new_outcome_is_the_class_call(values: tuple[Any, ...]) -> None:
    built = kernel.new_outcome(Outcome, *values)
    expected = Outcome(*values)
    assert type(built) is Outcome
    assert built == expected
    for f in fields(Outcome):  # the very objects, as the dataclass __init__ stores them
        assert getattr(built, f.name) is getattr(expected, f.name)
    assert gc.is_tracked(built)
    assert pickle.loads(pickle.dumps(built)) == expected


# Slotted like Outcome, fourteen fields, other names: not Outcome's layout.
_Other = make_dataclass("_Other", [f"f{i}" for i in range(14)], slots=True)


def test_new_outcome_calls_any_other_class() -> None:
    values = (True, 1.0, "m", [], False, None, None, (), None, False, False, (), False, [])
    assert kernel.new_outcome(_Other, *values) == _Other(*values)
    with pytest.raises(TypeError):
        kernel.new_outcome(Outcome, *values[:-1])  # one field short
