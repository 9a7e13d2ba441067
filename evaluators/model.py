"""The agent-trace model the engine reads.

These plain dataclasses are the contract between the doors that capture a run
(native ingest, OTLP receivers, the CLI) and the engine that judges it. They
carry no behaviour and import nothing beyond the standard library, so
``evaluators`` stays usable as a library on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal, TypeVar, cast

SpanKind = Literal["INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER", "LLM", "TOOL"]
StatusCode = Literal["UNSET", "OK", "ERROR"]
TrajectoryMode = Literal["strict", "unordered", "subset", "superset", "ordered_subset"]


class Frozen:
    """Base of the frozen dataclasses here and of the request: their pickled
    state is their field values in field order, what ``dataclasses`` gives a
    frozen class with slots. Defined here because compiled with mypyc a
    class gets a default pair that sets each attribute through the frozen
    ``__setattr__``, so no instance would unpickle (the engine pool sends
    requests to its processes pickled)."""

    __slots__ = ()

    def __getstate__(self) -> list[Any]:
        return [getattr(self, f.name) for f in fields(cast(Any, self))]

    def __setstate__(self, state: Sequence[Any]) -> None:
        for f, value in zip(fields(cast(Any, self)), state, strict=False):
            object.__setattr__(self, f.name, value)


_Cls = TypeVar("_Cls", bound=type)


class _Factory:
    """The default of a parameter whose field has a default factory; shown as
    ``dataclasses`` shows it in a signature."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()
# Every class given its ``__init__`` by ``slot_init``, in the order given.
_SLOT_INITIALISED: list[type] = []


def slot_initialised() -> tuple[type, ...]:
    """The classes ``slot_init`` has been applied to (tests check each one)."""
    return tuple(_SLOT_INITIALISED)


def slot_init(cls: _Cls) -> _Cls:
    """Give a frozen dataclass with slots an ``__init__`` that sets each slot
    through the slot's own descriptor.

    The ``__init__`` that ``dataclasses`` writes sets every field with
    ``object.__setattr__``, to get past the frozen ``__setattr__``. Once this
    module is compiled (mypyc) that cost ~1,300 instructions a field, ~10,000
    a ``ToolCall``, and a worker builds nine such objects for each of the
    load generator's traces. A
    slot's descriptor stores the same value without the detour. The
    parameters, defaults, default factories and ``__post_init__`` call are
    the dataclass's own, read from its fields; ``tests/evaluators/
    test_model.py`` checks each class it was applied to against the way
    the generated ``__init__`` builds it.

    Called after the class statement, not as a decorator: mypyc compiles a
    class with any decorator but ``dataclass`` as a plain Python class, which
    may not inherit from the compiled ``Frozen``."""
    names: dict[str, Any] = {"_FACTORY": _FACTORY}
    params: list[str] = ["self"]
    body: list[str] = []
    for i, f in enumerate(fields(cls)):
        if not f.init or f.kw_only:
            raise TypeError(f"slot_init: {cls.__name__}.{f.name} is not a plain init field")
        names[f"_set{i}"] = cls.__dict__[f.name].__set__
        value = f.name
        if f.default is not MISSING:
            names[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
        elif f.default_factory is not MISSING:
            names[f"_factory{i}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
            value = f"_factory{i}() if {f.name} is _FACTORY else {f.name}"
        else:
            params.append(f.name)
        body.append(f"    _set{i}(self, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(compile(source, f"<slot_init {cls.__qualname__}>", "exec"), names)
    init: Callable[..., None] = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    _SLOT_INITIALISED.append(cls)
    return cls


@dataclass(frozen=True, slots=True)
class ToolCall(Frozen):
    """One call the agent made, in call order (SPEC §3.2 ToolCall)."""

    tool_name: str
    input: Any = None
    output: Any = None
    latency_ms: float | None = None
    error: str | None = None
    cost_usd: float | None = None
    started_at: str | None = None
    call_id: str | None = None


@dataclass(frozen=True, slots=True)
class TokenUsage(Frozen):
    """Token counts; any of them may be unknown."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    total_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class SpanEvent(Frozen):
    name: str
    timestamp: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Span(Frozen):
    """A span as the trajectory rules see it (SPEC §3.2 Span)."""

    name: str
    span_id: str | None = None
    parent_span_id: str | None = None
    kind: SpanKind = "INTERNAL"
    status_code: StatusCode = "UNSET"
    status_message: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    events: tuple[SpanEvent, ...] = ()


@dataclass(frozen=True, slots=True)
class ExpectedToolCall(Frozen):
    tool_name: str
    input: Any = None


@dataclass(frozen=True, slots=True)
class ExpectedTrajectory(Frozen):
    """What the caller expected the agent to call (SPEC §3.3)."""

    tool_calls: tuple[ExpectedToolCall, ...] = ()
    mode: TrajectoryMode = "ordered_subset"
    args: Literal["exact", "subset"] = "subset"
    step_budget: int | None = None
    tolerance: float = 1.5


@dataclass(frozen=True, slots=True)
class ToolDef(Frozen):
    """One entry of the tools catalogue (an MCP ``tools/list`` item)."""

    name: str
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None


for _frozen in (
    ToolCall,
    TokenUsage,
    SpanEvent,
    Span,
    ExpectedToolCall,
    ExpectedTrajectory,
    ToolDef,
):
    slot_init(_frozen)


@dataclass(slots=True)
class AgentTrace:
    """One agent execution: what the engine judges and what storage keeps.

    ``tool_calls`` is ``None`` when the caller sent none (the trajectory rules
    then look at TOOL spans) and ``()`` when the caller said "no calls".
    """

    agent_name: str
    framework: str | None = None
    input: str | None = None
    output: str | None = None
    tool_calls: tuple[ToolCall, ...] | None = None
    latency_ms: float | None = None
    token_usage: TokenUsage | None = None
    cost_usd: float | None = None
    cost_source: Literal["reported", "estimated"] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    spans: tuple[Span, ...] = ()
    tools: tuple[ToolDef, ...] | None = None
    run: str | None = None
    case_key: str | None = None
    session_id: str | None = None
    expected_trajectory: ExpectedTrajectory | None = None
    timestamp: str | None = None
