"""The workers' cheaper derivation paths give the same fields as the full ones."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators.model import ToolCall
from receivers.mapping import derive_trace, group_by_trace
from receivers.messages import ParseOnce, maybe_json
from receivers.spans import carries_none, has_key_prefix
from storage import codec
from tests.receivers.fixtures_support import all_scenarios, load_spans, needs_fixtures


@needs_fixtures
@pytest.mark.parametrize(("directory", "scenario"), all_scenarios())
def test_derivation_without_span_models_differs_only_in_spans(
    directory: str, scenario: str
) -> None:
    for group in group_by_trace(load_spans(directory, scenario, "pb")).values():
        full = derive_trace(group)
        lean = derive_trace(group, model_spans=False)
        assert lean.spans == ()
        assert dataclasses.replace(full, spans=()) == lean
        assert codec.agent_fields(full, now=None) == codec.agent_fields(lean, now=None)


def test_tool_call_json_is_asdict_without_nones() -> None:
    calls = [
        ToolCall("lookup", {"q": [1, {"deep": None}]}, {"rows": []}, 1.5, None, 0.0, None, "c1"),
        ToolCall("bare"),
    ]
    for call in calls:
        expected = {k: v for k, v in dataclasses.asdict(call).items() if v is not None}
        assert codec.tool_call_to_json(call) == expected


# ---------------------------------------------------------------------------
# the key checks and the JSON fast paths behind them

_keys = st.text(st.sampled_from("ab.\n_0l"), max_size=6)


@given(st.dictionaries(_keys, st.integers(), max_size=6), _keys)
def test_has_key_prefix_is_never_false_when_a_key_has_the_prefix(
    attrs: dict[str, int], prefix: str
) -> None:
    if any(k.startswith(prefix) for k in attrs):
        assert has_key_prefix(attrs, prefix)
    if "\n" not in prefix and not any("\n" in k for k in attrs):
        assert has_key_prefix(attrs, prefix) == any(k.startswith(prefix) for k in attrs)


@given(st.dictionaries(_keys, st.integers(), max_size=6), st.frozensets(_keys, max_size=4))
def test_carries_none_is_no_key_present(attrs: dict[str, int], keys: frozenset[str]) -> None:
    assert carries_none(attrs, keys) == (not any(k in attrs for k in keys))


def _maybe_json_general(value: Any) -> Any:
    """``maybe_json``'s general path alone (strip the ends, ``json.loads``)."""
    if (
        isinstance(value, str)
        and value.lstrip()[:1] in ("{", "[")
        and value.rstrip()[-1:] in ("}", "]")
    ):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


# JSON-looking strings, well formed or not: a valid document, one with bytes
# after it, broken ones, and whitespace of json's and of str.isspace's kinds.
_json_like = st.one_of(
    st.builds(
        lambda v: json.dumps(v),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            ),
            max_leaves=6,
        ),
    ),
    st.builds(
        lambda a, mid, b: a + mid + b,
        st.sampled_from(["{", "[", " {", "\x0b["]),
        st.text(st.sampled_from('{}[]",:1 ta\\\n'), max_size=12),
        st.sampled_from(["}", "]", "} ", "]\xa0", "]]", "} {}"]),
    ),
)


@given(_json_like)
def test_maybe_json_fast_path_equals_the_general_path(text: str) -> None:
    got, want = maybe_json(text), _maybe_json_general(text)
    assert type(got) is type(want)
    assert json.dumps(got) == json.dumps(want)


@given(st.lists(_json_like | st.integers(), max_size=5))
def test_parse_once_gives_maybe_json_each_time(values: list[Any]) -> None:
    parse = ParseOnce()
    for _ in range(2):
        for v in values:
            assert json.dumps(parse(v)) == json.dumps(maybe_json(v))
    for v in values:
        if isinstance(v, str) and not isinstance(maybe_json(v), str):
            assert parse(v) is parse(v)  # parsed once, shared
