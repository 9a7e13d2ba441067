"""The workers' cheaper derivation paths give the same fields as the full ones."""

from __future__ import annotations

import dataclasses
import inspect
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluators.model import ToolCall
from receivers.mapping import DerivedTrace, derive_trace, group_by_trace
from receivers.messages import ParseOnce, maybe_json
from receivers.spans import SpanRecord, carries_none, has_key_prefix
from receivers.timeutil import iso_from_ns
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
def test_has_key_prefix_is_whether_a_key_has_the_prefix(attrs: dict[str, int], prefix: str) -> None:
    assert has_key_prefix(attrs, prefix) == any(k.startswith(prefix) for k in attrs)


def test_has_key_prefix_answers_true_for_a_non_string_key() -> None:
    assert has_key_prefix({1: "x"}, "llm.")  # type: ignore[dict-item]


@given(st.dictionaries(_keys, st.integers(), max_size=6), st.lists(_keys, max_size=4))
def test_carries_none_is_no_key_present(attrs: dict[str, int], keys: list[str]) -> None:
    assert carries_none(attrs, tuple(keys)) == (not any(k in attrs for k in keys))


def test_carries_none_tables_hold_each_key_once() -> None:
    """The tuples ``carries_none`` is given: every key of their convention
    tables, none twice."""
    from receivers import mapping, usage
    from receivers.conventions import genai_current as gc
    from receivers.conventions import precedence as P

    assert set(usage._TOKEN_KEYS) == set(
        P.PROMPT_TOKEN_KEYS + P.COMPLETION_TOKEN_KEYS + P.TOTAL_TOKEN_KEYS
    )
    assert set(usage._COST_KEYS) == set(P.COST_KEYS)
    assert set(mapping._TOOL_MARKERS) == set(P.TOOL_MARKERS)
    assert set(mapping._MODEL_REQUEST_MARKERS) == set(P.MODEL_REQUEST_MARKERS)
    assert set(mapping._TOOL_DEFINITION_KEYS) == set(gc.TOOL_DEFINITIONS)
    assert "iris.evaluate" in mapping._IRIS_KEYS
    for table in (
        usage._TOKEN_KEYS,
        usage._COST_KEYS,
        usage._AGGREGATED_KEYS,
        mapping._TOOL_MARKERS,
        mapping._MODEL_REQUEST_MARKERS,
        mapping._TOOL_DEFINITION_KEYS,
        mapping._IRIS_KEYS,
    ):
        assert isinstance(table, tuple) and len(set(table)) == len(table)


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


@given(st.integers(-10, 2**64 - 1))
def test_iso_from_ns_is_the_strftime_rendering(ns: int) -> None:
    """What ``iso_from_ns`` rendered with ``strftime``, and still does."""
    if ns <= 0:
        expected = None
    else:
        secs, rem = divmod(ns, 1_000_000_000)
        try:
            stamp = datetime.fromtimestamp(secs, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
        except (OverflowError, OSError, ValueError):
            expected = None
        else:
            expected = f"{stamp}.{rem // 1000:06d}Z"
    assert iso_from_ns(ns) == expected


@pytest.mark.parametrize("cls", [SpanRecord, DerivedTrace])
def test_written_out_inits_are_what_the_dataclass_would_generate(cls: type) -> None:
    """``SpanRecord.__init__`` and ``DerivedTrace.__init__`` are written out
    (so that they compile): the same parameters, in field order, with the
    fields' defaults, a fresh container where a field has a factory."""
    params = list(inspect.signature(cls).parameters.values())
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    required = [f.name for f in fields if f.default is dataclasses.MISSING is f.default_factory]
    first, second = cls(*required), cls(*required)
    for p, f in zip(params, fields, strict=True):
        if f.default is not dataclasses.MISSING:
            assert p.default == f.default
        elif f.default_factory is not dataclasses.MISSING:
            assert p.default is None
            assert getattr(first, f.name) == f.default_factory()
            assert getattr(first, f.name) is not getattr(second, f.name)
        else:
            assert p.default is inspect.Parameter.empty
