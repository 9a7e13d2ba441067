"""OTLP spans → Iris trace fields (SPEC §7.17), once a trace's spans are together.

``classify_span`` decides a span's Iris kind; ``derive_trace`` reads the
convention tables in ``receivers.conventions`` to fill every ``AgentTrace``
field plus what the assembler needs (root, status, what was lacking, iris.*
steering flags). Spans may come from several export requests in any order:
everything here sorts by time and ids first, so the result does not depend on
arrival order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Any, Literal, cast

from evaluators.model import (
    AgentTrace,
    ExpectedTrajectory,
    Span,
    SpanEvent,
    SpanKind,
    StatusCode,
    TokenUsage,
    ToolCall,
    ToolDef,
)
from evaluators.text.case import lower
from receivers.conventions import frameworks as fw
from receivers.conventions import genai_current as gc
from receivers.conventions import genai_legacy as gl
from receivers.conventions import iris as iris_conv
from receivers.conventions import langsmith as ls
from receivers.conventions import openinference as oi
from receivers.conventions import precedence as P
from receivers.conventions import pydantic_ai as pyd
from receivers.conventions import traceloop as tl
from receivers.messages import (
    ParseOnce,
    answer_from_value,
    ask_from_value,
    flattened_messages,
    last_assistant_text,
    last_user_text,
    maybe_json,
    to_message,
    usable_text,
)
from receivers.spans import SpanRecord, carries_none, has_key_prefix
from receivers.timeutil import iso_from_ns
from receivers.toolcalls import extract_tool_calls, first
from receivers.usage import reported_cost, token_usage

TOOL = "TOOL"
LLM = "LLM"
AGENT = "AGENT"
FALLBACK_AGENT_NAME = "otel"
SERVICE_NAME = "service.name"
UNKNOWN_SERVICE = "unknown_service"
_MODEL_SPAN_KINDS: frozenset[str] = frozenset(
    {"INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER", "LLM", "TOOL"}
)


@dataclass(slots=True, init=False)
class DerivedTrace(AgentTrace):
    """An ``AgentTrace`` (it *is* one) plus the assembler's view of the trace.

    ``__init__`` is written out, as ``receivers.spans.SpanRecord``'s is (the
    generated one runs interpreted when compiled: ~6,000 instructions a
    trace); its parameters are the dataclass's fields, in order."""

    trace_id: str = ""
    root_span_id: str | None = None
    has_root: bool = False
    status: str = "ok"
    lacked: list[str] = field(default_factory=list)
    finalize_requested: bool = False
    evaluate: bool | None = None
    eval_type: str | None = None

    def __init__(
        self,
        agent_name: str,
        framework: str | None = None,
        input: str | None = None,
        output: str | None = None,
        tool_calls: tuple[ToolCall, ...] | None = None,
        latency_ms: float | None = None,
        token_usage: TokenUsage | None = None,
        cost_usd: float | None = None,
        cost_source: Literal["reported", "estimated"] | None = None,
        metadata: dict[str, Any] | None = None,
        spans: tuple[Span, ...] = (),
        tools: tuple[ToolDef, ...] | None = None,
        run: str | None = None,
        case_key: str | None = None,
        session_id: str | None = None,
        expected_trajectory: ExpectedTrajectory | None = None,
        timestamp: str | None = None,
        trace_id: str = "",
        root_span_id: str | None = None,
        has_root: bool = False,
        status: str = "ok",
        lacked: list[str] | None = None,
        finalize_requested: bool = False,
        evaluate: bool | None = None,
        eval_type: str | None = None,
    ) -> None:
        self.agent_name = agent_name
        self.framework = framework
        self.input = input
        self.output = output
        self.tool_calls = tool_calls
        self.latency_ms = latency_ms
        self.token_usage = token_usage
        self.cost_usd = cost_usd
        self.cost_source = cost_source
        self.metadata = {} if metadata is None else metadata
        self.spans = spans
        self.tools = tools
        self.run = run
        self.case_key = case_key
        self.session_id = session_id
        self.expected_trajectory = expected_trajectory
        self.timestamp = timestamp
        self.trace_id = trace_id
        self.root_span_id = root_span_id
        self.has_root = has_root
        self.status = status
        self.lacked = [] if lacked is None else lacked
        self.finalize_requested = finalize_requested
        self.evaluate = evaluate
        self.eval_type = eval_type

    def to_agent_trace(self) -> AgentTrace:
        """A plain ``AgentTrace`` (for code that checks the exact type or serialises it)."""
        return AgentTrace(
            agent_name=self.agent_name,
            framework=self.framework,
            input=self.input,
            output=self.output,
            tool_calls=self.tool_calls,
            latency_ms=self.latency_ms,
            token_usage=self.token_usage,
            cost_usd=self.cost_usd,
            cost_source=self.cost_source,
            metadata=dict(self.metadata),
            spans=self.spans,
            tools=self.tools,
            run=self.run,
            case_key=self.case_key,
            session_id=self.session_id,
            expected_trajectory=self.expected_trajectory,
            timestamp=self.timestamp,
        )


# ---------------------------------------------------------------------------
# classification


# The keys ``carries_none`` tries, each once (``dict.fromkeys`` keeps the
# first of a repeated key).
_TOOL_MARKERS: tuple[str, ...] = tuple(dict.fromkeys(P.TOOL_MARKERS))
_MODEL_REQUEST_MARKERS: tuple[str, ...] = tuple(dict.fromkeys(P.MODEL_REQUEST_MARKERS))
_OUTPUT_MESSAGE_KEYS: frozenset[str] = frozenset(gc.OUTPUT_MESSAGES)
_TOOL_DEFINITION_KEYS: tuple[str, ...] = tuple(dict.fromkeys(gc.TOOL_DEFINITIONS))
# Every key of Iris's own table: few spans or resources carry any, and one
# call lets the readers of ``iris.*`` attributes pass the others over.
_IRIS_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(
        key for keys in vars(iris_conv).values() if isinstance(keys, tuple) for key in keys
    )
)


def _lower(val: Any) -> str:
    return lower(val) if isinstance(val, str) else ""


def classify_span(record: SpanRecord) -> str:
    """The span's Iris kind: ``TOOL``, ``LLM``, ``AGENT`` or its OTLP kind (SPEC §7.17).

    SPEC says agent operations map to ``INTERNAL``; we return ``AGENT`` so the
    caller can tell agent spans apart, and ``model_span_kind`` folds it back to
    ``INTERNAL`` for ``evaluators.model.Span``.
    """
    a = record.attributes
    op = a.get(gc.OPERATION_NAME)
    oi_kind = a.get(oi.SPAN_KIND)
    ls_kind = _lower(a.get(ls.SPAN_KIND))
    if (
        not carries_none(a, _TOOL_MARKERS)
        or op in gc.TOOL_OPERATIONS
        or oi_kind == oi.KIND_TOOL
        or ls_kind in ls.TOOL_KINDS
        or _lower(a.get(tl.SPAN_KIND)) in tl.TOOL_KINDS
    ):
        return TOOL
    if (
        op in gc.AGENT_OPERATIONS
        or oi_kind == oi.KIND_AGENT
        or ls_kind in ls.AGENT_KINDS
        or _lower(a.get(tl.SPAN_KIND)) in tl.AGENT_KINDS
        or record.name in pyd.AGENT_RUN_SPAN_NAMES
    ):
        return AGENT
    if (
        op in gc.MODEL_OPERATIONS
        or not carries_none(a, _MODEL_REQUEST_MARKERS)
        or oi_kind == oi.KIND_LLM
        or ls_kind in ls.LLM_KINDS
    ):
        return LLM
    return record.kind


def model_span_kind(iris_kind: str) -> SpanKind:
    """Fold an Iris kind into ``evaluators.model.SpanKind`` (AGENT → INTERNAL)."""
    if iris_kind in _MODEL_SPAN_KINDS:
        return cast(SpanKind, iris_kind)
    return "INTERNAL"


# ---------------------------------------------------------------------------
# grouping and ordering


def group_by_trace(spans: Iterable[SpanRecord]) -> dict[str, list[SpanRecord]]:
    """Spans of one or more requests grouped per trace id, in arrival order."""
    out: dict[str, list[SpanRecord]] = {}
    for s in spans:
        out.setdefault(s.trace_id, []).append(s)
    return out


# Sort keys, as ``attrgetter``s (C) rather than Python functions called per span.
# Start order: (start, end, span id).
_start_key = attrgetter("start_unix_nano", "end_unix_nano", "span_id")
# End order: (end, start, span id).
_end_key = attrgetter("end_unix_nano", "start_unix_nano", "span_id")


def _pick_root(ordered: list[SpanRecord], by_id: dict[str, SpanRecord]) -> SpanRecord | None:
    true_roots = [s for s in ordered if not s.parent_span_id]
    pool = true_roots or [s for s in ordered if s.parent_span_id not in by_id]
    if not pool:
        return None
    # The earliest start; among equals the longest (it encloses the others).
    return min(pool, key=lambda s: (s.start_unix_nano, -s.end_unix_nano, s.span_id))


# ---------------------------------------------------------------------------
# field readers


def _agent_name(
    ordered: list[SpanRecord],
    agent_spans: list[SpanRecord],
    steered: list[SpanRecord],
    root: SpanRecord | None,
    resource: dict[str, Any],
    lacked: list[str],
) -> str:
    """``steered``: the spans of ``ordered`` that carry an ``iris.*`` key."""

    def ok(val: Any) -> str | None:
        if isinstance(val, str) and val.strip() and val not in gc.PLACEHOLDER_AGENT_NAMES:
            return val.strip()
        return None

    root_attrs = root.attributes if root is not None else {}
    for attrs in (resource, root_attrs):
        name = ok(first(attrs, iris_conv.AGENT_NAME))
        if name:
            return name
    for s in steered:
        name = ok(first(s.attributes, iris_conv.AGENT_NAME))
        if name:
            return name
    # Convention names: agent spans first (start order), then any span.
    for group in (agent_spans, ordered):
        for s in group:
            name = ok(first(s.attributes, P.AGENT_NAME_KEYS))
            if name:
                return name
    # OpenInference apps name themselves by the root span (LangGraph graph, CrewAI crew).
    if root is not None and not root.parent_span_id:
        if root_attrs.get(oi.SPAN_KIND) in oi.NAMED_ROOT_KINDS:
            name = root.name
            for suf in oi.ROOT_NAME_SUFFIXES:
                if name.endswith(suf):
                    name = name[: -len(suf)]
            if ok(name):
                return name
        name = ok(first(root_attrs, ls.TRACE_NAME))
        if name:
            return name
    service = resource.get(SERVICE_NAME)
    if isinstance(service, str) and service.strip() and not service.startswith(UNKNOWN_SERVICE):
        return service
    lacked.append(SERVICE_NAME)
    return FALLBACK_AGENT_NAME


_ATTRIBUTE_PREFIXES: tuple[str, ...] = tuple(p for p, _ in fw.ATTRIBUTE_PREFIXES)


@lru_cache(maxsize=1024)
def _scope_framework(scope: str) -> str | None:
    """The framework an instrumentation scope name belongs to, if any.

    Memoised: exporters use a handful of scope names, and the table walk
    (two prefix tests per known scope) was ~140 ``startswith`` calls a trace.
    """
    for prefix, name in fw.SCOPE_PREFIXES:
        if (
            scope == prefix
            or scope.startswith(prefix + ".")
            or (len(prefix) > 3 and scope.startswith(prefix))
        ):
            return name
    return None


def _framework(ordered: list[SpanRecord], root: SpanRecord | None) -> str | None:
    candidates = ([root] if root is not None else []) + ordered
    found: str | None = None
    seen_scopes: set[str | None] = set()
    for s in candidates:
        scope = s.scope_name
        if scope in seen_scopes:
            continue
        seen_scopes.add(scope)
        found = _scope_framework(scope) if scope else None
        if found:
            break
    if found is None:
        # Exporters without a scope: the root and the first spans are enough to tell.
        for s in candidates[:4]:
            for key in s.attributes:
                if key.startswith(_ATTRIBUTE_PREFIXES):
                    found = next(n for p, n in fw.ATTRIBUTE_PREFIXES if key.startswith(p))
                    break
            if found:
                break
    if found == fw.LANGCHAIN:
        for s in ordered:
            meta = s.attributes.get(fw.METADATA_KEY)
            if isinstance(meta, str) and any(m in meta for m in fw.LANGGRAPH_METADATA_MARKERS):
                return fw.LANGGRAPH
    return found


def _event_values(span: SpanRecord, keys: Sequence[str]) -> list[Any]:
    """Values of ``keys`` carried by the span's events (event_only log content)."""
    return [ev.attributes[k] for ev in span.events for k in keys if k in ev.attributes]


def _legacy_event_messages(span: SpanRecord) -> list[Any]:
    out: list[Any] = []
    for ev in span.events:
        role = gl.MESSAGE_EVENTS.get(ev.name)
        if role is None:
            continue
        content: Any = None
        for key in gl.EVENT_CONTENT_KEYS:
            if key in ev.attributes:
                content = ev.attributes[key]
                break
        if content is None and isinstance(ev.attributes.get(gl.EVENT_MESSAGE_KEY), dict):
            content = ev.attributes[gl.EVENT_MESSAGE_KEY].get("content")
        out.append({"role": role, "content": content})
    return out


def _span_input(span: SpanRecord, strict: bool) -> str | None:
    a = span.attributes
    for key in P.INPUT_KEYS:
        if key == oi.INPUT_MESSAGES_PREFIX:
            msgs = flattened_messages(a, key)
            text = last_user_text(msgs) if msgs else None
        elif key in a:
            loose = strict and key in P.LOOSE_PAYLOAD_KEYS
            text = ask_from_value(a[key], strict=loose)
        else:
            continue
        if text is not None:
            return text
    if not span.events:  # what follows reads events only
        return None
    for val in _event_values(span, gc.INPUT_MESSAGES):
        text = ask_from_value(val, strict=True)
        if text is not None:
            return text
    legacy = _legacy_event_messages(span)
    if legacy:
        msgs = [m for m in map(to_message, legacy) if m is not None]
        text = last_user_text(msgs)
        if text is not None:
            return text
    return None


def _span_output(
    span: SpanRecord, strict: bool, parse: Callable[[Any], Any] = maybe_json
) -> tuple[bool, str | None]:
    """(did the span carry an output at all, its answer text).

    ``parse`` reads ``gen_ai.output.messages`` (``ParseOnce`` shares the
    parse with ``requested_calls``); ``answer_from_value`` of a parsed value
    is that of the string, since ``maybe_json`` leaves parsed values as they are.
    """
    a = span.attributes
    carried = False
    for key in P.OUTPUT_KEYS:
        if key == oi.OUTPUT_MESSAGES_PREFIX:
            msgs = flattened_messages(a, key)
            if not msgs:
                continue
            carried = True
            text = last_assistant_text(msgs)
        elif key in a:
            loose = strict and key in P.LOOSE_PAYLOAD_KEYS
            val = parse(a[key]) if key in _OUTPUT_MESSAGE_KEYS else a[key]
            text = answer_from_value(val, strict=loose)
            if key == pyd.FINAL_RESULT[0] and text is None and isinstance(a[key], str):
                text = usable_text(a[key])
            carried = carried or not loose or text is not None
        else:
            continue
        if text is not None:
            return True, text
    if not span.events:  # what follows reads events only
        return carried, None
    for val in _event_values(span, gc.OUTPUT_MESSAGES):
        carried = True
        text = answer_from_value(val, strict=True)
        if text is not None:
            return True, text
    legacy = _legacy_event_messages(span)
    if any(m["role"] == "assistant" for m in legacy):
        carried = True
        msgs = [m for m in map(to_message, legacy) if m is not None]
        text = last_assistant_text(msgs)
        if text is not None:
            return True, text
    return carried, None


def _indexed(ordered: list[SpanRecord], prefix: str) -> str | None:
    for s in ordered:
        if not has_key_prefix(s.attributes, prefix):
            continue
        parts: list[tuple[int, str]] = []
        for key, val in s.attributes.items():
            if key.startswith(prefix) and key.endswith(gl.INDEXED_CONTENT_SUFFIX):
                idx = key[len(prefix) : -len(gl.INDEXED_CONTENT_SUFFIX)]
                if idx.isdigit() and isinstance(val, str):
                    parts.append((int(idx), val))
        if parts:
            text = usable_text("\n".join(v for _, v in sorted(parts)))
            if text is not None:
                return text
    return None


def _content_event(ordered: list[SpanRecord], events: dict[str, str]) -> str | None:
    for s in ordered:
        for ev in s.events:
            key = events.get(ev.name)
            if key is not None:
                text = usable_text(ev.attributes.get(key))
                if text is not None:
                    return text
    return None


def _crewai_task_description(agent_spans: list[SpanRecord]) -> str | None:
    for s in agent_spans:
        out = maybe_json(s.attributes.get(oi.OUTPUT_VALUE))
        if isinstance(out, dict):
            text = usable_text(out.get(oi.TASK_DESCRIPTION_KEY))
            if text is not None:
                return text
    return None


def _input(
    ordered: list[SpanRecord],
    kinds: dict[str, str],
    by_kind: tuple[list[SpanRecord], list[SpanRecord]],
    root: SpanRecord | None,
    steer_from: tuple[dict[str, Any], ...],
) -> str | None:
    """The trace's ask; ``by_kind`` is (agent spans, model spans), in start order;
    ``steer_from`` as ``_steer``'s."""
    for attrs in steer_from:
        text = usable_text(first(attrs, iris_conv.INPUT))
        if text is not None:
            return text
    if root is not None:
        text = _span_input(root, strict=False)
        if text is not None:
            return text
    agents = [s for s in by_kind[0] if s is not root]
    llms = by_kind[1]
    for group in (agents, llms[:1]):
        for s in group:
            text = _span_input(s, strict=True)
            if text is not None:
                return text
    text = _crewai_task_description(agents)
    if text is not None:
        return text
    for s in ordered:
        if kinds[s.span_id] != TOOL:
            text = _span_input(s, strict=True)
            if text is not None:
                return text
    return _indexed(ordered, gl.INDEXED_PROMPT_PREFIX) or _content_event(ordered, gl.PROMPT_EVENTS)


def _output(
    ordered: list[SpanRecord],
    kinds: dict[str, str],
    root: SpanRecord | None,
    steer_from: tuple[dict[str, Any], ...],
    parse: Callable[[Any], Any] = maybe_json,
) -> str | None:
    """The trace's answer; ``steer_from`` as ``_steer``'s."""
    for attrs in steer_from:
        text = usable_text(first(attrs, iris_conv.OUTPUT))
        if text is not None:
            return text
    latest = sorted(ordered, key=_end_key, reverse=True)
    if root is not None:
        carried, text = _span_output(root, strict=False, parse=parse)
        if carried:
            return text
    # Past the root, the latest span that carries an output decides: if that
    # output has no words (the run ended in tool calls), there is no answer —
    # an earlier span's text would be a previous step, not the final answer.
    for wanted in (AGENT, LLM):
        for s in latest:
            if kinds[s.span_id] == wanted and s is not root:
                carried, text = _span_output(s, strict=True, parse=parse)
                if carried:
                    return text
    for s in latest:
        if kinds[s.span_id] != TOOL and s is not root:
            carried, text = _span_output(s, strict=True, parse=parse)
            if text is not None:
                return text
    return _indexed(latest, gl.INDEXED_COMPLETION_PREFIX) or _content_event(
        latest, gl.COMPLETION_EVENTS
    )


def _model(ordered: list[SpanRecord], llms: list[SpanRecord]) -> str | None:
    for group in (llms, ordered):
        for s in group:
            val = first(s.attributes, P.MODEL_KEYS)
            if isinstance(val, str) and val.strip():
                return val
    return None


def _session(
    ordered: list[SpanRecord], root: SpanRecord | None, resource: dict[str, Any]
) -> str | None:
    groups: list[dict[str, Any]] = [resource]
    if root is not None:
        groups.insert(0, root.attributes)
    groups += [s.attributes for s in ordered]
    for attrs in groups:
        val = first(attrs, P.SESSION_KEYS)
        if isinstance(val, str | int) and not isinstance(val, bool) and str(val).strip():
            return str(val)
    return None


def _tool_def(obj: Any) -> ToolDef | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    schema = obj.get("inputSchema", obj.get("input_schema", obj.get("parameters")))
    desc = obj.get("description")
    ann = obj.get("annotations")
    return ToolDef(
        name=name,
        description=desc if isinstance(desc, str) else None,
        input_schema=schema if isinstance(schema, dict) else None,
        annotations=ann if isinstance(ann, dict) else None,
    )


def _tools_catalogue(
    ordered: list[SpanRecord], kinds: dict[str, str]
) -> tuple[ToolDef, ...] | None:
    defs: dict[str, ToolDef] = {}
    for s in ordered:
        if carries_none(s.attributes, _TOOL_DEFINITION_KEYS):
            continue
        raw = maybe_json(first(s.attributes, gc.TOOL_DEFINITIONS))
        if isinstance(raw, list):
            for item in raw:
                td = _tool_def(item)
                if td is not None:
                    defs.setdefault(td.name, td)
    if not defs:
        for s in ordered:
            if kinds[s.span_id] != LLM or not has_key_prefix(s.attributes, oi.TOOLS_PREFIX):
                continue
            indexed: list[tuple[int, Any]] = []
            for key, val in s.attributes.items():
                if key.startswith(oi.TOOLS_PREFIX) and key.endswith(oi.TOOL_JSON_SCHEMA_SUFFIX):
                    idx = key[len(oi.TOOLS_PREFIX) : -len(oi.TOOL_JSON_SCHEMA_SUFFIX)]
                    if idx.isdigit():
                        indexed.append((int(idx), val))
            for _, val in sorted(indexed):
                td = _tool_def(maybe_json(val))
                if td is not None:
                    defs.setdefault(td.name, td)
    if not defs:
        # Last resort: what the TOOL spans say about themselves.
        for s in ordered:
            if kinds[s.span_id] != TOOL:
                continue
            name = first(s.attributes, P.TOOL_NAME_KEYS)
            if not isinstance(name, str) or not name or name in defs:
                continue
            desc = first(s.attributes, P.TOOL_DESCRIPTION_KEYS)
            params = maybe_json(first(s.attributes, oi.TOOL_PARAMETERS))
            defs[name] = ToolDef(
                name=name,
                description=desc if isinstance(desc, str) else None,
                input_schema=params if isinstance(params, dict) else None,
            )
    return tuple(defs.values()) if defs else None


def finalize_requested(record: SpanRecord) -> bool:
    """True when the span carries ``iris.finalize`` (the trace is complete now)."""
    return _truthy(first(record.attributes, iris_conv.FINALIZE)) is True


def _truthy(val: Any) -> bool | None:
    if isinstance(val, bool):
        return val
    if isinstance(val, int | float):
        return bool(val)
    if isinstance(val, str):
        low = lower(val.strip())
        if low in iris_conv.TRUE_STRINGS:
            return True
        if low in iris_conv.FALSE_STRINGS:
            return False
    return None


def _steering_sources(
    resource: dict[str, Any], root: SpanRecord | None
) -> tuple[dict[str, Any], ...]:
    """Where ``iris.*`` steering attributes are read, the root span first (it
    wins over the resource), less those that carry no ``iris.*`` key at all."""
    sources = ((root.attributes if root is not None else {}), resource)
    return tuple(attrs for attrs in sources if not carries_none(attrs, _IRIS_KEYS))


def _steer(sources: tuple[dict[str, Any], ...], keys: Sequence[str]) -> Any:
    """An iris.* steering attribute from ``_steering_sources``: the first set."""
    for attrs in sources:
        val = first(attrs, keys)
        if val is not None:
            return val
    return None


def _model_span(s: SpanRecord, iris_kind: str) -> Span:
    code = s.status_code if s.status_code in ("UNSET", "OK", "ERROR") else "UNSET"
    return Span(
        name=s.name,
        span_id=s.span_id,
        parent_span_id=s.parent_span_id,
        kind=model_span_kind(iris_kind),
        status_code=cast(StatusCode, code),
        status_message=s.status_message,
        start_time=iso_from_ns(s.start_unix_nano),
        end_time=iso_from_ns(s.end_unix_nano),
        attributes=s.attributes,
        events=tuple(
            SpanEvent(name=e.name, timestamp=iso_from_ns(e.time_unix_nano), attributes=e.attributes)
            for e in s.events
        ),
    )


# ---------------------------------------------------------------------------
# the derivation


def derive_trace(spans: Sequence[SpanRecord], *, model_spans: bool = True) -> DerivedTrace:
    """Derive the Iris trace of one OTLP trace from all its spans (any order, any parts).

    Duplicate span ids (an exporter retry) keep the last copy received.
    ``model_spans=False`` leaves ``spans`` empty, for callers that store the
    derived fields and read the spans from storage anyway (the workers).
    """
    unique: dict[str, SpanRecord] = {}
    for s in spans:
        unique[s.span_id] = s
    ordered = sorted(unique.values(), key=_start_key)
    by_id = unique
    kinds = {s.span_id: classify_span(s) for s in ordered}
    root = _pick_root(ordered, by_id)
    resource: dict[str, Any] = {}
    for s in ([root] if root is not None else []) + ordered:
        if s.resource:
            resource = s.resource
            break
    lacked: list[str] = []
    # The spans of each Iris kind, in start order, listed once for every reader.
    agent_spans: list[SpanRecord] = []
    llm_spans: list[SpanRecord] = []
    tool_spans: list[SpanRecord] = []
    exchange_spans: list[SpanRecord] = []  # model and agent spans, in start order
    for s in ordered:
        kind = kinds[s.span_id]
        if kind == TOOL:
            tool_spans.append(s)
        elif kind == LLM:
            llm_spans.append(s)
            exchange_spans.append(s)
        elif kind == AGENT:
            agent_spans.append(s)
            exchange_spans.append(s)

    steered = [s for s in ordered if not carries_none(s.attributes, _IRIS_KEYS)]
    steer_from = _steering_sources(resource, root)

    agent_name = _agent_name(ordered, agent_spans, steered, root, resource, lacked)
    text_in = _input(ordered, kinds, (agent_spans, llm_spans), root, steer_from)
    parse = ParseOnce()
    text_out = _output(ordered, kinds, root, steer_from, parse)
    model = _model(ordered, llm_spans)
    tool_calls = (
        extract_tool_calls(tool_spans, exchange_spans, by_id, parse) if tool_spans else None
    )
    usage = token_usage(ordered, by_id, root)
    cost = reported_cost(ordered, by_id, root, resource)

    if text_in is None:
        lacked.append("input")
    if text_out is None:
        lacked.append("output")
    if model is None:
        lacked.append("model")
    if usage is None:
        lacked.append("token_usage")
    if root is None or root.parent_span_id:
        lacked.append("root_span")

    failed = any(
        s.status_code == "ERROR" and (s is root or kinds[s.span_id] == AGENT) for s in ordered
    )
    latency = None
    timestamp = None
    if root is not None:
        timestamp = iso_from_ns(root.start_unix_nano)
        if root.end_unix_nano >= root.start_unix_nano > 0:
            latency = (root.end_unix_nano - root.start_unix_nano) / 1e6
    run = _steer(steer_from, iris_conv.RUN)
    case_key = _steer(steer_from, iris_conv.CASE_KEY)
    eval_type = _steer(steer_from, iris_conv.EVAL_TYPE)
    metadata: dict[str, Any] = {}
    if model is not None:
        metadata["model"] = model
    return DerivedTrace(
        agent_name=agent_name,
        framework=_framework(ordered, root),
        input=text_in,
        output=text_out,
        tool_calls=tool_calls,
        latency_ms=latency,
        token_usage=usage,
        cost_usd=cost,
        cost_source="reported" if cost is not None else None,
        metadata=metadata,
        spans=tuple(_model_span(s, kinds[s.span_id]) for s in ordered) if model_spans else (),
        tools=_tools_catalogue(ordered, kinds),
        run=str(run) if run is not None else None,
        case_key=str(case_key) if case_key is not None else None,
        session_id=_session(ordered, root, resource),
        timestamp=timestamp,
        trace_id=ordered[0].trace_id if ordered else "",
        root_span_id=root.span_id if root is not None else None,
        has_root=any(not s.parent_span_id for s in ordered),
        status="error" if failed else "ok",
        lacked=lacked,
        finalize_requested=any(finalize_requested(s) for s in steered)
        or _truthy(first(resource, iris_conv.FINALIZE)) is True,
        evaluate=_truthy(_steer(steer_from, iris_conv.EVALUATE)),
        eval_type=str(eval_type) if eval_type is not None else None,
    )
