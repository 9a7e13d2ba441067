"""``no_tool_loop``'s keys skip the input text of a tool called once, and no
equality between keys changes.

The rule reads its keys only by equality (grouping, cycle search), so
``cost.loop_keys`` may leave out the canonical input text of a step whose
name no other step has: compared with the full keys
(``f"{name}\\x00{norm_input(input)}"``), every pair of steps must be equal
under one exactly when it is equal under the other (the engine identity
bench compares the rule's results).
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.context import Step
from evaluators.rules import cost
from evaluators.rules.completeness import norm_input

_NAMES = st.sampled_from(["read", "read\x00", "read\x00a", "a", "", "grep", "grép"])
_INPUTS: st.SearchStrategy[Any] = st.none() | st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "a ", "", "x\x00"]),
    lambda kids: (
        st.lists(kids, max_size=3) | st.dictionaries(st.sampled_from("ab"), kids, max_size=2)
    ),
    max_leaves=6,
)
_STEPS = st.lists(st.tuples(_NAMES, _INPUTS), max_size=9).map(
    lambda rows: tuple(Step(i, n, inp, None, None) for i, (n, inp) in enumerate(rows))
)


def _full_keys(steps: tuple[Step, ...]) -> list[str]:
    return [f"{s.name}\x00{norm_input(s.input)}" for s in steps]


@settings(max_examples=600, deadline=None)
@given(_STEPS)
def test_loop_keys_keep_every_equality(steps: tuple[Step, ...]) -> None:
    got, full = cost.loop_keys(steps), _full_keys(steps)
    assert len(got) == len(full)
    for i in range(len(got)):
        for j in range(len(got)):
            assert (got[i] == got[j]) == (full[i] == full[j])


def test_a_repeated_name_keeps_its_input_text() -> None:
    steps = (Step(0, "read", {"p": 1}, None, None), Step(1, "read", {"p": 2}, None, None))
    assert cost.loop_keys(steps) == _full_keys(steps)
    once = (Step(0, "read", {"p": 1}, None, None), Step(1, "grep", {"p": 1}, None, None))
    assert cost.loop_keys(once) == ["read\x00", "grep\x00"]
