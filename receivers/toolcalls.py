"""Tool calls from TOOL spans: name, arguments, result, error, call id.

Every instrumentation records a tool call differently (see the fixtures
README): arguments as JSON strings or bare values, results as JSON strings,
ints or LangChain ``ToolMessage`` JSON, errors as an ``exception`` event, a
status description (sometimes with a multi-KB traceback) or ``error.type``.
This module turns each TOOL span into one ``ToolCall`` and, where the span
lacks the call id, recovers it from the model's tool-call requests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from evaluators.model import ToolCall
from receivers.conventions import genai_current as gc
from receivers.conventions import openinference as oi
from receivers.conventions import precedence as P
from receivers.messages import maybe_json
from receivers.spans import SpanRecord, has_key_prefix
from receivers.timeutil import iso_from_ns

EXCEPTION_EVENT = "exception"
EXCEPTION_TYPE = "exception.type"
EXCEPTION_MESSAGE = "exception.message"
_TRACEBACK_MARK = "Traceback (most recent call last)"
# Span-name decorations that are not part of the tool name.
_NAME_PREFIXES: tuple[str, ...] = ("execute_tool ",)
_NAME_SUFFIXES: tuple[str, ...] = (".run", "._run", ".arun")
# Tool calls rendered as Python reprs inside message text (otel-genai agents).
_REPR_CALL = re.compile(
    r"arguments='(?P<args>(?:[^'\\]|\\.)*)'.*?call_id='(?P<id>[^']+)'.*?name='(?P<name>[^']+)'",
    re.DOTALL,
)
# LangChain ToolMessage JSON: {"type": "tool", "data": {"content", "tool_call_id", "status"}}
_LC_TOOL = "tool"


def first(attrs: dict[str, Any], keys: Sequence[str]) -> Any:
    """The value of the first key present (and not empty) in ``attrs``."""
    for key in keys:
        val = attrs.get(key)
        if val is not None and val != "":
            return val
    return None


def tool_name(span: SpanRecord) -> str:
    name = first(span.attributes, P.TOOL_NAME_KEYS)
    if isinstance(name, str) and name:
        return name
    base = span.name
    for pre in _NAME_PREFIXES:
        if base.startswith(pre):
            base = base[len(pre) :]
    for suf in _NAME_SUFFIXES:
        if base.endswith(suf) and len(base) > len(suf):
            base = base[: -len(suf)]
    return base


def _parse_payload(value: Any) -> Any:
    """JSON strings holding objects/arrays become Python values; the rest is kept."""
    parsed = maybe_json(value)
    return parsed


def tool_arguments(attrs: dict[str, Any]) -> Any:
    for key in P.TOOL_ARGUMENT_KEYS:
        val = attrs.get(key)
        if val is None:
            continue
        if key == oi.INPUT_VALUE and attrs.get(oi.INPUT_MIME) not in (None, oi.JSON_MIME):
            return val
        parsed = _parse_payload(val)
        if isinstance(parsed, dict) and set(parsed) <= {"args", "kwargs"} and "kwargs" in parsed:
            args = parsed.get("args")
            if not args and isinstance(parsed["kwargs"], dict):
                return parsed["kwargs"]
        return parsed
    return None


def _lc_tool_message(value: Any) -> dict[str, Any] | None:
    if (
        isinstance(value, dict)
        and value.get("type") == _LC_TOOL
        and isinstance(value.get("data"), dict)
    ):
        return value["data"]
    return None


def tool_result(attrs: dict[str, Any]) -> tuple[Any, str | None, bool]:
    """(result, call id found inside it, whether it says the call failed)."""
    val = first(attrs, P.TOOL_RESULT_KEYS)
    if val is None:
        return None, None, False
    parsed = _parse_payload(val)
    data = _lc_tool_message(parsed)
    if data is not None:
        cid = data.get("tool_call_id")
        return (
            _parse_payload(data.get("content")),
            cid if isinstance(cid, str) else None,
            data.get("status") == "error",
        )
    return parsed, None, False


def error_text(span: SpanRecord) -> str | None:
    """A non-empty description when the span says the call failed, else None."""
    for ev in span.events:
        if ev.name == EXCEPTION_EVENT:
            etype = ev.attributes.get(EXCEPTION_TYPE)
            emsg = ev.attributes.get(EXCEPTION_MESSAGE)
            parts = [p for p in (etype, emsg) if isinstance(p, str) and p.strip()]
            if parts:
                return ": ".join(parts)
    etype = span.attributes.get(gc.ERROR_TYPE)
    msg = (span.status_message or "").split(_TRACEBACK_MARK, 1)[0].strip()
    if msg:
        if isinstance(etype, str) and etype and etype not in msg:
            return f"{etype}: {msg}"
        return msg
    if isinstance(etype, str) and etype.strip():
        return etype
    if span.status_code == "ERROR":
        return "error"
    return None


def _parent_tool_message(
    span: SpanRecord, name: str, by_id: dict[str, SpanRecord]
) -> dict[str, Any] | None:
    """LangGraph ``handle_tool_errors``: what the model saw sits in the parent ``tools`` span."""
    parent = by_id.get(span.parent_span_id or "")
    if parent is None:
        return None
    payload = maybe_json(parent.attributes.get(oi.OUTPUT_VALUE))
    if not isinstance(payload, dict) or not isinstance(payload.get("messages"), list):
        return None
    for msg in payload["messages"]:
        data = _lc_tool_message(msg)
        if data is not None and data.get("name") == name:
            return data
    return None


def requested_calls(
    llm_spans: Sequence[SpanRecord], parse: Callable[[Any], Any] = maybe_json
) -> list[tuple[str, str, Any]]:
    """Tool calls the model asked for, in order: (call id, name, arguments).

    ``parse`` reads the ``gen_ai.output.messages`` values: ``derive_trace``
    passes one that remembers what it parsed, so the JSON the output reader
    already parsed is not parsed again (it must return what ``maybe_json`` does).
    """
    out: list[tuple[str, str, Any]] = []
    for span in llm_spans:
        attrs = span.attributes
        # GenAI parts (span attributes, or event_only log content as span events).
        sources = [attrs.get(k) for k in gc.OUTPUT_MESSAGES]
        if span.events:
            sources += [ev.attributes.get(k) for ev in span.events for k in gc.OUTPUT_MESSAGES]
        for raw in sources:
            msgs = parse(raw)
            if not isinstance(msgs, list):
                continue
            for m in msgs:
                parts = m.get("parts") if isinstance(m, dict) else None
                for p in parts if isinstance(parts, list) else []:
                    if not isinstance(p, dict):
                        continue
                    if p.get("type") == gc.PART_TOOL_CALL and isinstance(p.get("id"), str):
                        out.append((p["id"], str(p.get("name", "")), p.get("arguments")))
                    elif p.get("type") == "text" and isinstance(p.get("content"), str):
                        for mt in _REPR_CALL.finditer(p["content"]):
                            out.append((mt["id"], mt["name"], mt["args"]))
        # OpenAI-style chat history kept in an output payload (CrewAI TaskOutput "messages").
        for msg in _payload_messages(attrs):
            for call in msg.get("tool_calls") or [] if msg.get("role") == "assistant" else []:
                fn = call.get("function") if isinstance(call, dict) else None
                if isinstance(fn, dict) and isinstance(call.get("id"), str):
                    out.append((call["id"], str(fn.get("name", "")), fn.get("arguments")))
        # OpenInference flattened tool calls.
        if not has_key_prefix(attrs, oi.OUTPUT_MESSAGES_PREFIX):
            continue
        calls: dict[tuple[int, int], dict[str, Any]] = {}
        plen = len(oi.OUTPUT_MESSAGES_PREFIX)
        for key, val in attrs.items():
            if not key.startswith(oi.OUTPUT_MESSAGES_PREFIX):
                continue
            idx_s, _, rest = key[plen:].partition(".")
            if not idx_s.isdigit() or not rest.startswith(oi.MESSAGE_TOOL_CALLS_PREFIX):
                continue
            j_s, _, leaf = rest[len(oi.MESSAGE_TOOL_CALLS_PREFIX) :].partition(".")
            if not j_s.isdigit():
                continue
            calls.setdefault((int(idx_s), int(j_s)), {})["." + leaf] = val
        for _, c in sorted(calls.items()):
            cid = c.get(oi.TOOL_CALL_ID_SUFFIX)
            if isinstance(cid, str):
                out.append(
                    (
                        cid,
                        str(c.get(oi.TOOL_CALL_NAME_SUFFIX, "")),
                        c.get(oi.TOOL_CALL_ARGUMENTS_SUFFIX),
                    )
                )
    return out


def _payload_messages(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    """OpenAI-style ``messages`` inside a span's ``output.value`` JSON, if any."""
    payload = maybe_json(attrs.get(oi.OUTPUT_VALUE))
    msgs = payload.get("messages") if isinstance(payload, dict) else None
    return [m for m in msgs if isinstance(m, dict)] if isinstance(msgs, list) else []


def tool_responses(spans: Sequence[SpanRecord]) -> dict[str, Any]:
    """What the model was told each call returned (``role: tool`` messages), by call id."""
    out: dict[str, Any] = {}
    for span in spans:
        for msg in _payload_messages(span.attributes):
            cid = msg.get("tool_call_id")
            if msg.get("role") == "tool" and isinstance(cid, str):
                out.setdefault(cid, msg.get("content"))
    return out


def _same_args(a: Any, b: Any) -> bool:
    return bool(maybe_json(a) == maybe_json(b))


def _named_argument(bare: Any, requested: Any) -> Any:
    """The model's request for a call whose tool span kept only a bare value.

    LangChain hands a tool of one argument its value alone, so OpenInference
    records ``input.value = "Paris"`` where the model asked for
    ``{"city": "Paris"}``. When the request names exactly one argument whose
    value reads the same, the request is what the tool was called with, name
    included; otherwise the span's value stands."""
    if not isinstance(bare, str):
        return None
    asked = _parse_payload(requested)
    if not isinstance(asked, dict) or len(asked) != 1:
        return None
    value = next(iter(asked.values()))
    if isinstance(value, str):
        return asked if value == bare else None
    if isinstance(value, bool | int | float):  # "5" for 5, "True" or "true" for True
        return asked if bare.strip() in (str(value), json.dumps(value)) else None
    return None


def extract_tool_calls(
    tool_spans: Sequence[SpanRecord],
    llm_spans: Sequence[SpanRecord],
    by_id: dict[str, SpanRecord],
    parse: Callable[[Any], Any] = maybe_json,
) -> tuple[ToolCall, ...]:
    """One ``ToolCall`` per TOOL span, in start order; call ids recovered when missing.

    ``llm_spans`` are the spans that may record the model's side of the exchange
    (model calls, and agent/task spans whose output keeps the chat history).
    ``parse`` is ``requested_calls``'s.
    """
    requests = requested_calls(llm_spans, parse)
    used: set[str] = set()
    drafts: list[dict[str, Any]] = []
    for span in tool_spans:
        attrs = span.attributes
        name = tool_name(span)
        args = tool_arguments(attrs)
        result, result_cid, result_failed = tool_result(attrs)
        err = error_text(span)
        cid = first(attrs, P.TOOL_CALL_ID_KEYS) or result_cid
        if result is None and err is not None:
            data = _parent_tool_message(span, name, by_id)
            if data is not None:
                result = _parse_payload(data.get("content"))
                cid = cid or data.get("tool_call_id")
        if err is None and result_failed:
            err = result if isinstance(result, str) and result.strip() else "error"
        if isinstance(cid, str):
            used.add(cid)
        drafts.append(
            {
                "span": span,
                "name": name,
                "args": args,
                "result": result,
                "error": err,
                "cid": cid if isinstance(cid, str) else None,
            }
        )
    args_by_id = {r[0]: r[2] for r in requests}
    for d in drafts:
        if d["cid"] is not None:
            asked = args_by_id.get(d["cid"])
            if d["args"] is None and asked is not None:
                # Content captured only on the model side (event_only): the model's
                # request is what the tool was called with.
                d["args"] = _parse_payload(asked)
            elif asked is not None:
                d["args"] = _named_argument(d["args"], asked) or d["args"]
            continue
        candidates = [r for r in requests if r[0] not in used and r[1] == d["name"]]
        exact = [r for r in candidates if _same_args(r[2], d["args"])]
        pool = exact or candidates
        pick = pool[0] if pool else None
        if pick is not None:
            d["cid"] = pick[0]
            used.add(pick[0])
            if d["args"] is None and pick[2] is not None:
                d["args"] = _parse_payload(pick[2])
            elif pick[2] is not None:
                d["args"] = _named_argument(d["args"], pick[2]) or d["args"]
    # Read only when a failed call lacks its result (rare).
    responses = (
        tool_responses(llm_spans)
        if any(d["result"] is None and d["error"] is not None for d in drafts)
        else {}
    )
    calls: list[ToolCall] = []
    for d in drafts:
        if d["result"] is None and d["error"] is not None and d["cid"] in responses:
            # The span has no result because the tool raised; the framework told the
            # model something (CrewAI: "Error executing tool: ...") — that is the result.
            d["result"] = _parse_payload(responses[d["cid"]])
        span = d["span"]
        latency = (
            (span.end_unix_nano - span.start_unix_nano) / 1e6
            if span.end_unix_nano >= span.start_unix_nano > 0
            else None
        )
        calls.append(
            ToolCall(
                tool_name=d["name"],
                input=d["args"],
                output=d["result"],
                latency_ms=latency,
                error=d["error"],
                started_at=iso_from_ns(span.start_unix_nano),
                call_id=d["cid"],
            )
        )
    return tuple(calls)
