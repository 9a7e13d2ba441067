"""The model's frozen classes construct exactly as ``dataclasses`` would have
them construct: ``slot_init`` replaces only how each slot is set."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import evaluators.request
import receivers.messages
import storage.jobs
from evaluators.model import Span, SpanEvent, TokenUsage, ToolCall, slot_init, slot_initialised
from evaluators.request import EvaluationRequest
from storage.jobs import ClaimedJob

# Every class slot_init was applied to, once the modules that apply it are imported.
CLASSES = slot_initialised()


def test_every_module_that_applies_it_is_checked() -> None:
    modules = {cls.__module__ for cls in CLASSES}
    assert {"evaluators.model", evaluators.request.__name__} <= modules
    assert {receivers.messages.__name__, storage.jobs.__name__} <= modules


def _reference(cls: type) -> type:
    """The same fields as a dataclass whose ``__init__`` ``dataclasses`` wrote."""
    spec = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            spec.append((f.name, Any, dataclasses.field(default=f.default)))
        elif f.default_factory is not dataclasses.MISSING:
            spec.append((f.name, Any, dataclasses.field(default_factory=f.default_factory)))
        else:
            spec.append((f.name, Any))
    return dataclasses.make_dataclass(f"Reference{cls.__name__}", spec, frozen=True, slots=True)


def _values(obj: Any) -> list[Any]:
    return [getattr(obj, f.name) for f in dataclasses.fields(obj)]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_signature_is_the_dataclass_one(cls: type) -> None:
    # of ``__init__``: a compiled class shows ``()`` as its own signature
    ours = inspect.signature(cls.__init__)
    theirs = inspect.signature(_reference(cls).__init__)
    assert [(p.name, p.kind) for p in ours.parameters.values()] == [
        (p.name, p.kind) for p in theirs.parameters.values()
    ]
    for name, p in ours.parameters.items():
        q = theirs.parameters[name]
        if q.default is inspect.Parameter.empty:
            assert p.default is inspect.Parameter.empty
        else:  # the same value, or for a default factory the same marker
            assert p.default is q.default or repr(p.default) == repr(q.default)


values = st.one_of(
    st.none(), st.integers(), st.text(max_size=5), st.dictionaries(st.text(max_size=3), st.none())
)


def _the_dataclass_way(cls: type, *args: Any, **kwargs: Any) -> Any:
    """What the ``__init__`` ``dataclasses`` writes does: bind the arguments
    and fill defaults and factories (here by the reference class), set each
    field with ``object.__setattr__`` (a compiled class checks its types
    there), then call ``__post_init__``."""
    bound = _values(_reference(cls)(*args, **kwargs))
    obj = cls.__new__(cls)
    for f, value in zip(dataclasses.fields(cls), bound, strict=True):
        object.__setattr__(obj, f.name, value)
    if hasattr(cls, "__post_init__"):
        obj.__post_init__()
    return obj


@given(st.sampled_from(CLASSES), st.data())
def test_any_arguments_give_the_same_fields_or_the_same_error(cls: type, data: Any) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    positional = data.draw(st.lists(values, max_size=len(names)))
    keywords = data.draw(
        st.dictionaries(st.sampled_from([*names, "not_a_field"]), values, max_size=3)
    )
    outcomes = []
    for build in (cls, functools.partial(_the_dataclass_way, cls)):
        try:
            outcomes.append(("made", _values(build(*positional, **keywords))))
        except Exception as exc:  # the same kind of refusal either way
            outcomes.append((type(exc).__name__, None))
    assert outcomes[0] == outcomes[1]


def test_default_factories_give_each_object_its_own_value() -> None:
    a, b = Span("a"), Span("b")
    assert a.attributes == {} and a.attributes is not b.attributes
    assert SpanEvent("e").attributes is not SpanEvent("e").attributes


def test_post_init_still_checks_the_request() -> None:
    with pytest.raises(ValueError, match="eval_type"):
        EvaluationRequest(output="x", eval_type="nonsense")


def test_the_objects_stay_frozen_hashable_and_picklable() -> None:
    call = ToolCall("search", {"q": "x"}, "found", 3.0, call_id="c1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.tool_name = "other"  # type: ignore[misc]
    assert hash(TokenUsage(1, 2, 3)) == hash(TokenUsage(1, 2, 3))
    assert pickle.loads(pickle.dumps(call)) == call
    assert dataclasses.replace(call, tool_name="read").tool_name == "read"
    job = ClaimedJob(1, "t", "a" * 32, 1, None, True, 1, "w", 7)
    assert pickle.loads(pickle.dumps(job)) == job


def test_a_field_it_cannot_set_positionally_is_refused() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class KeywordOnly:
        a: int
        b: int = dataclasses.field(default=0, kw_only=True)

    with pytest.raises(TypeError, match=r"KeywordOnly\.b"):
        slot_init(KeywordOnly)
