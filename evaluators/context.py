"""Per-evaluation shared state: each field is derived (and normalised) once.

Rules receive one :class:`EvalContext`; expensive views (folded text, term
sets, the step list) are computed lazily on first use and then shared, which
is what keeps an evaluation of all bundles under a millisecond.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from mypy_extensions import mypyc_attr

from evaluators.config import NEEDS, THRESHOLD_ALIASES, THRESHOLDS, EngineConfig
from evaluators.jsontext import sorted_text
from evaluators.lexical.sentences import split_sentences
from evaluators.lexical.terms import (
    content_terms,
    distinct_tokens,
    native,
    terms_of_words,
    word_set,
    word_term_set,
    words,
)
from evaluators.model import Span, ToolCall
from evaluators.request import EvaluationRequest
from evaluators.text.case import lower
from evaluators.textview import Folded, fold

T = TypeVar("T")

StepsAbsence = Literal["none", "empty", "spans_without_tool"]
TOOL_TEXT_CAP = 262_144

# GenAI attribute precedence for TOOL spans (SPEC §7.17), as tables.
_SPAN_NAME_KEYS = (
    "gen_ai.tool.name",
    "tool.name",
    "tool_call.function.name",
    "traceloop.entity.name",
    "ai.toolCall.name",
)
_SPAN_ARGS_KEYS = (
    "gen_ai.tool.call.arguments",
    "tool_call.function.arguments",
    "input.value",
    "traceloop.entity.input",
    "ai.toolCall.args",
)
_SPAN_RESULT_KEYS = (
    "gen_ai.tool.call.result",
    "tool_call.function.output",
    "output.value",
    "traceloop.entity.output",
    "ai.toolCall.result",
)
_SPAN_ID_KEYS = ("gen_ai.tool.call.id", "tool_call.id", "ai.toolCall.id")


_UNSET: Any = object()  # no value kept yet (``EvalContext.shared``)

# The config the kept thresholds were read from, and them by key
# (``EvalContext.threshold``): one pair, so a reader on another thread sees
# a matching config and table.
_CONFIG_THRESHOLDS: tuple[EngineConfig | None, dict[str, tuple[Any, str]]] = (None, {})


@mypyc_attr(native_class=False)  # compiled: see evaluators/_compiled.py
class once(Generic[T]):
    """``functools.cached_property`` without its lock: Python 3.11's takes an
    RLock on every first access, which cost more than the values it guards
    here (a step's text forms, a Material's views), each built
    for one evaluation on one thread. The value goes to the instance
    ``__dict__``, which then shadows this non-data descriptor, as
    cached_property's does."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        # a method compiled by mypyc is a callable object with no __name__:
        # the class's own name for the attribute comes in __set_name__
        self.name: str = getattr(func, "__name__", "")
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> once[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> T | once[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


@mypyc_attr(native_class=False)  # compiled: see evaluators/_compiled.py
@dataclass(frozen=True)
class Step:
    """One tool step, from a ToolCall or a TOOL span. The text forms are
    computed once per step (several rules read them)."""

    index: int
    name: str
    input: Any
    output: Any
    error: str | None
    started_at: str | None = None
    cost_usd: float | None = None

    @once
    def output_text(self) -> str:
        return as_text(self.output)

    @once
    def input_text(self) -> str:
        return as_text(self.input)


# The compiled JSON text of a plain value (evaluators/rules/_keykernel.c);
# absent when the extension was not built, and then sorted_text runs.
try:
    from evaluators.rules import _keykernel
except ImportError:  # pragma: no cover - depends on the build
    _keykernel = None  # type: ignore[assignment]


def as_text(value: Any) -> str:
    """Stable text form of a JSON-ish value, capped (tool data is untrusted).
    A plain JSON value (exact dicts with str keys, lists, str, int, float,
    bool, None) is written by the C kernel, which returns ``sorted_text``'s
    text; it answers None for anything else, left to ``sorted_text``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value[:TOOL_TEXT_CAP]
    if _keykernel is not None:
        text = _keykernel.sorted_text(value)
        if text is not None:
            return text[:TOOL_TEXT_CAP]
    try:
        return sorted_text(value)[:TOOL_TEXT_CAP]
    except (TypeError, ValueError):
        return str(value)[:TOOL_TEXT_CAP]


def _parse_json_maybe(v: Any) -> Any:
    if isinstance(v, str) and v[:1] in "{[":
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def _first(attrs: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for k in keys:
        if k in attrs and attrs[k] is not None:
            return attrs[k]
    return None


def step_from_span(index: int, span: Span) -> Step:
    a = span.attributes
    args = _parse_json_maybe(_first(a, _SPAN_ARGS_KEYS))
    if isinstance(args, dict) and set(args) == {"kwargs"} and isinstance(args["kwargs"], dict):
        args = args["kwargs"]
    error = None
    if span.status_code == "ERROR":
        error = span.status_message or "span status ERROR"
    return _make_step(
        index,
        str(_first(a, _SPAN_NAME_KEYS) or span.name),
        args,
        _parse_json_maybe(_first(a, _SPAN_RESULT_KEYS)),
        error,
        span.start_time,
        None,
    )


_new_step = object.__new__


def _make_step(
    index: int,
    name: str,
    input: Any,
    output: Any,
    error: str | None,
    started_at: str | None,
    cost_usd: float | None,
) -> Step:
    """``Step(index, name, input, output, error, started_at, cost_usd)``
    without the frozen dataclass's ``__init__``, which pays one
    ``object.__setattr__`` per field (the step list is built for every
    evaluation with calls): the fields go into the instance ``__dict__`` in
    declaration order, where that ``__init__`` puts them. A text form that
    needs no serialising (``as_text`` of None or of a str) is stored at once,
    the value the ``once`` view would compute."""
    step = _new_step(Step)
    d = step.__dict__
    d["index"] = index
    d["name"] = name
    d["input"] = input
    d["output"] = output
    d["error"] = error
    d["started_at"] = started_at
    d["cost_usd"] = cost_usd
    if output is None:
        d["output_text"] = ""
    elif type(output) is str:
        d["output_text"] = output[:TOOL_TEXT_CAP]
    if input is None:
        d["input_text"] = ""
    elif type(input) is str:
        d["input_text"] = input[:TOOL_TEXT_CAP]
    return step


def step_from_call(index: int, call: ToolCall) -> Step:
    return _make_step(
        index, call.tool_name, call.input, call.output, call.error, call.started_at, call.cost_usd
    )


class EvalContext:
    """Everything a rule may read about one evaluation.

    The views (the lowered output, its words and terms, the step list, ...)
    are computed on first read and then kept: each is a property over an
    attribute that holds None until then. Not ``functools.cached_property``:
    compiled (evaluators/_compiled.py) this is a native class, whose views
    and ``has`` a compiled rule reaches by a direct call; a native class has
    no ``__dict__`` for a cached_property to keep its value in."""

    def __init__(self, request: EvaluationRequest, config: EngineConfig) -> None:
        self.request = request
        self.config = config
        self.output: str = request.output or ""
        self.input: str | None = request.input
        self.memo: dict[str, Any] = {}  # per-evaluation results rules share
        self._folds: dict[str, Folded] = {}
        self._has: dict[str, bool] = {}
        # the kept views, each None until its property first runs
        self._output_lower: str | None = None
        self._input_terms: list[str] | None = None
        self._output_terms: list[str] | None = None
        self._output_term_set: frozenset[str] | None = None
        self._output_word_set: frozenset[str] | None = None
        self._output_tokens: set[str] | None = None
        self._output_words: list[str] | None = None
        self._input_words: list[str] | None = None
        self._output_sentences: list[tuple[int, int]] | None = None
        self._steps: tuple[Step, ...] | None = None
        self._inputs_present: dict[str, bool] | None = None

    def shared(self, key: str, compute: Callable[..., T], *args: Any) -> T:
        """``compute(*args)`` once per evaluation, kept in ``memo`` under
        ``key``: for a value several rules read. Arguments rather than a
        closure, since some values are read a dozen times an evaluation."""
        value: T = self.memo.get(key, _UNSET)
        if value is _UNSET:
            value = self.memo[key] = compute(*args)
        return value

    # -- text views -------------------------------------------------------
    def folded(self, source: str, raw: str) -> Folded:
        """Normalise ``raw`` once per evaluation, keyed by its source name."""
        f = self._folds.get(source)
        if f is None:
            f = fold(raw)
            self._folds[source] = f
        return f

    @property
    def output_folded(self) -> Folded:
        return self.folded("output", self.output)

    @property
    def input_folded(self) -> Folded | None:
        return self.folded("input", self.input) if self.input else None

    @property
    def output_lower(self) -> str:
        got = self._output_lower
        if got is None:
            got = self._output_lower = lower(self.output)
        return got

    @property
    def input_terms(self) -> list[str]:
        got = self._input_terms
        if got is None:
            got = self._input_terms = content_terms(self.input or "")
        return got

    @property
    def input_terms_built(self) -> bool:
        """Whether ``input_terms`` has been read: a rule that needs only
        its set builds that directly unless the list exists already."""
        return self._input_terms is not None

    @property
    def output_terms(self) -> list[str]:
        got = self._output_terms
        if got is None:
            if "```" in self.output:
                got = content_terms(self.output)
            else:
                got = terms_of_words(self.output_words)
            self._output_terms = got
        return got

    @property
    def output_term_set(self) -> frozenset[str]:
        """``set(output_terms)``, without building the list when no rule has."""
        got = self._output_term_set
        if got is None:
            if self._output_terms is not None or "```" in self.output:
                got = frozenset(self.output_terms)
            elif native():
                got = frozenset(word_term_set(self.output, None))
            else:
                got = frozenset(word_term_set(self.output, self.output_tokens))
            self._output_term_set = got
        return got

    @property
    def output_word_set(self) -> frozenset[str]:
        """``set(output_words)``, without building the list when no rule has."""
        got = self._output_word_set
        if got is None:
            if self._output_words is not None:
                got = frozenset(self.output_words)
            elif native():
                got = frozenset(word_set(self.output, None))
            else:
                got = frozenset(word_set(self.output, self.output_tokens))
            self._output_word_set = got
        return got

    @property
    def output_tokens(self) -> set[str]:
        """``distinct_tokens(output)``: one tokenising pass that both
        ``output_word_set`` and ``output_term_set`` start from. Read-only."""
        got = self._output_tokens
        if got is None:
            got = self._output_tokens = distinct_tokens(self.output)
        return got

    @property
    def output_words(self) -> list[str]:
        """``words(output)``: lowercase words, identifiers split (fences kept)."""
        got = self._output_words
        if got is None:
            got = self._output_words = words(self.output)
        return got

    @property
    def input_words(self) -> list[str]:
        got = self._input_words
        if got is None:
            got = self._input_words = words(self.input or "")
        return got

    @property
    def output_sentences(self) -> list[tuple[int, int]]:
        """``split_sentences(output)``: sentence spans over the raw output."""
        got = self._output_sentences
        if got is None:
            got = self._output_sentences = split_sentences(self.output)
        return got

    # -- presence of inputs (SPEC §3.9) -----------------------------------
    def has(self, need: str) -> bool:
        """Whether ``need`` was supplied; asked for dozens of times per
        evaluation (every rule's requirements), so each answer is kept."""
        known = self._has.get(need)
        if known is None:
            known = self._has[need] = self._supplied(need)
        return known

    def _supplied(self, need: str) -> bool:
        r = self.request
        if need == "output":
            return r.output is not None
        if need == "input":
            return bool(r.input and r.input.strip())
        if need == "expected":
            return bool(r.expected and r.expected.strip())
        if need == "expected_trajectory":
            return r.expected_trajectory is not None
        if need == "tool_calls":
            return bool(self.steps)
        if need == "tool_outputs":
            return any(s.output is not None for s in self.steps)
        if need == "tools_catalogue":
            return bool(r.tools)
        if need == "cost":
            return r.cost_usd is not None
        if need == "tokens":
            u = r.token_usage
            return bool(u and u.prompt_tokens is not None and u.completion_tokens is not None)
        return False

    @property
    def inputs_present(self) -> dict[str, bool]:
        got = self._inputs_present
        if got is None:
            got = self._inputs_present = {n: self.has(n) for n in NEEDS}
        return got

    # -- steps (SPEC §3.2) ------------------------------------------------
    @property
    def steps(self) -> tuple[Step, ...]:
        got = self._steps
        if got is None:
            got = self._steps = self._make_steps()
        return got

    def _make_steps(self) -> tuple[Step, ...]:
        r = self.request
        if r.tool_calls is not None:
            return tuple(step_from_call(i, c) for i, c in enumerate(r.tool_calls))
        tool_spans = [s for s in r.spans if s.kind == "TOOL"]
        return tuple(step_from_span(i, s) for i, s in enumerate(tool_spans))

    @property
    def steps_absence(self) -> StepsAbsence | None:
        r = self.request
        if self.steps:
            return None
        if r.tool_calls is not None:
            return "empty"
        if r.spans:
            return "spans_without_tool"
        return "none"

    def steps_skip_reason(self) -> str:
        return {
            "none": "no tool calls or spans were supplied",
            "empty": "tool_calls was empty: the agent made no calls",
            "spans_without_tool": "spans were supplied but none is a TOOL span",
            None: "",
        }[self.steps_absence]

    # -- thresholds ---------------------------------------------------------
    def threshold(self, key: str) -> tuple[Any, str]:
        """Value and provenance: call beats config beats the shipped default.

        Without call overrides the answer depends only on the config and the
        key, so it is kept per config (by identity: an ``EngineConfig`` is
        frozen, and the values parsed from it are numbers and tuples, shared
        safely); a dozen thresholds are read per evaluation, each one a walk
        of the config's table before."""
        if not self.request.custom_config:
            global _CONFIG_THRESHOLDS
            config, known = _CONFIG_THRESHOLDS
            if config is not self.config:
                known = {}
                _CONFIG_THRESHOLDS = (self.config, known)
            hit = known.get(key)
            if hit is None:
                hit = known[key] = self._threshold(key)
            return hit
        return self._threshold(key)

    def _threshold(self, key: str) -> tuple[Any, str]:
        """:meth:`threshold` worked out from the call, the config and the
        shipped defaults (the reference its kept answers equal)."""
        key = THRESHOLD_ALIASES.get(key, key)
        spec = THRESHOLDS[key]
        cc = self.request.custom_config
        if cc:
            for name in (key, *[a for a, k in THRESHOLD_ALIASES.items() if k == key]):
                if name in cc:
                    parsed = spec.parse(cc[name])
                    if parsed is not None:
                        return parsed, "call"
        conf = self.config.threshold(key)
        if conf is not None and conf[0] is not None:
            return conf
        return spec.default, "default"
