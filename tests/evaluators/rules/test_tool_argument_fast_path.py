"""valid_tool_arguments' plain schema check only ever says what jsonschema says.

``_plainly_valid`` lets a call skip jsonschema when the schema is a few typed
properties and the arguments certainly satisfy it. Its claim is one-sided
("certainly valid"), so the properties check that whenever it says so,
jsonschema finds no error, and that the rule's outcome is the same as with
jsonschema asked for every call (the reference path).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest
from evaluators.rules import completeness
from evaluators.rules.base import Outcome

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from engine_bench import make_cases  # noqa: E402

TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(["a", "b", "repo", "web", ""]),
    st.text(max_size=5),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "path"]), inner, max_size=4),
    ),
    max_leaves=12,
)
enum_members = st.one_of(st.sampled_from(["a", "b", "repo", ""]), st.integers(0, 2), st.booleans())


def _schema(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keyword = st.fixed_dictionaries(
        {},
        optional={
            "type": st.one_of(st.sampled_from(TYPES), st.lists(st.sampled_from(TYPES), max_size=3)),
            "properties": st.dictionaries(st.sampled_from(["a", "b", "c", "path"]), children),
            "required": st.lists(st.sampled_from(["a", "b", "path"]), max_size=2, unique=True),
            "additionalProperties": st.one_of(st.booleans(), children),
            "enum": st.lists(enum_members, min_size=1, max_size=3),
            "description": st.just("d"),
            "minimum": st.just(0),
            "pattern": st.just("^a"),
            "items": children,
        },
    )
    return keyword


schemas: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.booleans(), st.just({})), _schema, max_leaves=8
)


def _jsonschema_valid(schema: Any, value: Any) -> bool:
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return jsonschema.exceptions.best_match(cls(schema).iter_errors(value)) is None


@settings(max_examples=300, deadline=None)
@given(schemas, values)
def test_plainly_valid_implies_jsonschema_valid(schema: Any, value: Any) -> None:
    if not isinstance(schema, dict):
        return
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return
    if completeness._plainly_valid(schema, value):
        assert _jsonschema_valid(schema, value), (schema, value)


def test_plain_check_decides_the_common_shapes() -> None:
    s = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    assert completeness._plainly_valid(s, {"path": "x"})
    assert not completeness._plainly_valid(s, {})
    assert not completeness._plainly_valid(s, {"path": 1})
    assert not completeness._plainly_valid({"type": "number"}, True)  # bool is no number
    assert not completeness._plainly_valid({"type": "integer"}, 1.0)  # left to jsonschema
    assert not completeness._plainly_valid({"$ref": "#/x"}, {})  # unknown keyword
    closed = {"properties": {"a": {}}, "additionalProperties": False}
    assert completeness._plainly_valid(closed, {"a": 1})
    assert not completeness._plainly_valid(closed, {"a": 1, "b": 2})
    assert completeness._plainly_valid({"enum": ["repo", 1]}, "repo")
    assert not completeness._plainly_valid({"enum": [1, True]}, 1)


def _never(schema: Any, value: Any, depth: int = 0) -> bool:
    return False


def _reference(ctx: EvalContext) -> Outcome:
    """The rule with jsonschema asked for every call (the plain check off)."""
    real = completeness._plainly_valid
    setattr(completeness, "_plainly_valid", _never)  # noqa: B010
    try:
        return completeness.valid_tool_arguments(ctx)
    finally:
        setattr(completeness, "_plainly_valid", real)  # noqa: B010


def _same(a: Outcome, b: Outcome) -> None:
    assert (a.passed, a.score, a.message, a.evidence, a.skip_reason, a.skip_class) == (
        b.passed,
        b.score,
        b.message,
        b.evidence,
        b.skip_reason,
        b.skip_class,
    )


def _corpus_requests() -> list[EvaluationRequest]:
    out = []
    for path in sorted((ROOT / "proof" / "corpus").glob("**/*.json")):
        data = json.loads(path.read_text())
        for case in data.get("cases", []) if isinstance(data, dict) else []:
            ctx = case.get("context") or {}
            if isinstance(ctx, dict) and ctx.get("tools"):
                out.append(
                    EvaluationRequest.from_payload({"output": case.get("output"), "context": ctx})
                )
    return out


def test_corpus_and_bench_outcomes_equal_the_reference() -> None:
    cfg = EngineConfig()
    requests = _corpus_requests()
    assert requests
    requests += [c for c in make_cases() if c.tools and c.tool_calls]
    for req in requests:
        if not req.tool_calls and not req.spans:
            continue
        fast = completeness.valid_tool_arguments(EvalContext(req, cfg))
        _same(fast, _reference(EvalContext(req, cfg)))


@settings(max_examples=100, deadline=None)
@given(schemas, st.lists(values, min_size=1, max_size=3))
def test_rule_outcome_equals_the_reference(schema: Any, args: list[Any]) -> None:
    if not isinstance(schema, dict) or not schema:
        return
    from evaluators.model import ToolCall, ToolDef

    req = EvaluationRequest(
        output="done",
        tool_calls=tuple(ToolCall("t", a, "ok") for a in args),
        tools=(ToolDef("t", "a tool", schema),),
    )
    cfg = EngineConfig()
    fast = completeness.valid_tool_arguments(EvalContext(req, cfg))
    _same(fast, _reference(EvalContext(req, cfg)))
