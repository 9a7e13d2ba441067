"""valid_tool_arguments' compiled plain check equals the Python reference.

``_argkernel.plainly_valid(schema, value, _PLAIN_KEYWORDS)`` must return what
``_plainly_valid_py`` returns, or ``None`` ("ask the reference") when the
schema holds a dict, list or str subclass (whose methods the reference would
call); an error the reference raises must be raised alike. Schemas and values
are drawn from the keywords and types the check decides on, with unknown
keywords, bad keyword values, subclasses, deep nesting and non-str keys, and
the bench cases' catalogues and calls are checked one by one. The rule's
outcome with the kernel monkeypatched away is the same.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from contextlib import suppress
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest
from evaluators.rules import completeness as c
from tests.support.texts import bench_cases

kernel = pytest.importorskip("evaluators.rules._argkernel")
KEYS = c._PLAIN_KEYWORDS
TYPES = ["object", "array", "string", "number", "integer", "boolean", "null", "objects", ""]


class Sub(str):
    pass


class DictSub(dict):  # type: ignore[type-arg]
    pass


class ListSub(list):  # type: ignore[type-arg]
    pass


class Meta(type):
    pass


class Odd(metaclass=Meta):
    pass


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, width=16),
    st.sampled_from(["a", "b", "repo", "", "é", "😀"]),
    st.text(max_size=3),
    st.just(Odd()),
    st.just(Sub("a")),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "path", 1]), inner, max_size=4),
        st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2).map(OrderedDict),
    ),
    max_leaves=12,
)
type_names = st.one_of(st.sampled_from(TYPES), st.just(Sub("string")), st.integers(0, 1))
keyword_values: dict[str, st.SearchStrategy[Any]] = {
    "type": st.one_of(
        type_names,
        st.lists(type_names, max_size=3),
        st.lists(type_names, max_size=2).map(ListSub),
        st.just(("string",)),
    ),
    "required": st.one_of(
        st.lists(st.sampled_from(["a", "b", "path", 1]), max_size=3),
        st.lists(st.sampled_from(["a"]), max_size=1).map(ListSub),
        st.just("a"),
    ),
    "enum": st.one_of(
        st.lists(st.sampled_from(["a", "b", "", 0, True, None, Sub("a")]), max_size=3),
        st.lists(st.just("a"), max_size=1).map(ListSub),
        st.just(("a",)),
    ),
    "description": st.just("d"),
    "title": st.just(5),
    "minimum": st.just(0),
    "$ref": st.just("#/x"),
}


def _schema(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    kids = st.dictionaries(st.sampled_from(["a", "b", "c", "path", 1]), children, max_size=3)
    optional = dict(keyword_values)
    optional["properties"] = st.one_of(kids, kids.map(DictSub), st.just([]))
    optional["additionalProperties"] = st.one_of(st.booleans(), children, st.none())
    plain = st.fixed_dictionaries({}, optional=optional)
    return st.one_of(plain, plain.map(DictSub), st.just({1: "x"}))


schemas: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.booleans(), st.just({}), st.none(), st.just([])), _schema, max_leaves=10
)


def _same(schema: Any, value: Any) -> None:
    try:
        want: Any = c._plainly_valid_py(schema, value)
    except TypeError as exc:
        with pytest.raises(TypeError) as got:
            kernel.plainly_valid(schema, value, KEYS)
        assert str(got.value) == str(exc)
        return
    got_ = kernel.plainly_valid(schema, value, KEYS)
    assert got_ is None or got_ is want, (schema, value)
    assert c._plainly_valid(schema, value) is want


def _exact(x: Any) -> bool:
    """No subclass of dict, list or str anywhere in the schema."""
    if type(x) in (DictSub, ListSub, Sub):
        return False
    if isinstance(x, dict):
        return all(_exact(v) for v in x.values())
    if isinstance(x, list | tuple):
        return all(_exact(v) for v in x)
    return True


def _plain_types(x: Any) -> bool:
    """No value anywhere in ``x`` whose type has a metaclass of its own (the
    kernel declines those, at any depth, and leaves them to the reference)."""
    if type(type(x)) is not type:
        return False
    if isinstance(x, dict):
        return all(_plain_types(v) for v in x.values())
    if isinstance(x, list | tuple):
        return all(_plain_types(v) for v in x)
    return True


@given(schemas, values)
@settings(max_examples=1500, deadline=None)
@example({"properties": {"a": {}}}, {"a": Odd()})  # declined: the odd value is nested
def test_the_kernel_equals_the_reference(schema: Any, value: Any) -> None:
    _same(schema, value)
    if _exact(schema) and _plain_types(value):
        assert kernel.plainly_valid(schema, value, KEYS) is not None or _raises(schema, value)


def _raises(schema: Any, value: Any) -> bool:
    try:
        c._plainly_valid_py(schema, value)
    except TypeError:
        return True
    return False


def test_edges() -> None:
    deep: Any = {"type": "string"}
    for _ in range(20):
        deep = {"type": "object", "properties": {"a": deep}}
    value: Any = "x"
    for _ in range(20):
        value = {"a": value}
    for d in range(14, 22):
        s, v = deep, value
        for _ in range(20 - d):
            s, v = s["properties"]["a"], v["a"]
        _same(s, v)
    _same({"required": [["a"]]}, {"a": 1})  # unhashable: TypeError, as the reference
    _same({"type": "object", "required": [["a"]]}, {"a": 1})
    _same(True, object())
    _same({}, Odd())
    _same({"type": "string"}, Odd())
    _same({"enum": ["a"]}, Sub("a"))
    _same({"additionalProperties": False}, {})
    _same({"additionalProperties": False}, {"a": 1})
    _same({"additionalProperties": False, "properties": {"a": True}}, {"a": 1})
    assert kernel.plainly_valid(DictSub(type="string"), "a", KEYS) is None
    assert kernel.plainly_valid({"type": Sub("string")}, "a", KEYS) is None
    assert kernel.plainly_valid({"type": "string"}, Odd(), KEYS) is None


def test_bad_arguments_raise() -> None:
    with pytest.raises(TypeError):
        kernel.plainly_valid({}, {})  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        kernel.plainly_valid({}, {}, set(KEYS))  # type: ignore[arg-type]


def test_the_kernel_equals_the_reference_on_the_bench_calls() -> None:
    seen = 0
    for case in bench_cases(500):
        catalogue = {t.name: t.input_schema for t in case.tools or ()}
        for call in case.tool_calls or ():
            schema = catalogue.get(call.tool_name)
            if not schema:
                continue
            args = call.input if call.input is not None else {}
            if isinstance(args, str):
                with suppress(ValueError):
                    args = json.loads(args)
            _same(schema, args)
            seen += 1
    assert seen


def test_the_rule_runs_the_kernel_when_built() -> None:
    assert c._argkernel is kernel


def test_the_rule_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = EngineConfig()
    cases: tuple[EvaluationRequest, ...] = bench_cases(200)
    with_kernel = [c.valid_tool_arguments(EvalContext(r, cfg)) for r in cases]
    monkeypatch.setattr(c, "_argkernel", None)
    assert [c.valid_tool_arguments(EvalContext(r, cfg)) for r in cases] == with_kernel
