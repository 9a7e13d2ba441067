"""Reduce message lists and payloads to "the ask" and "the answer".

Conventions carry conversation state in many shapes — GenAI ``parts`` lists,
OpenAI ``[{role, content}]``, LangChain serialized messages or
``{"messages": [...]}`` graph state, ``{"generations": ...}``, CrewAI outputs,
OpenInference's flattened ``llm.*_messages.<i>`` attributes. The trace's
``input`` is the last user message *with words* (tool results and system
prompts are not the ask); its ``output`` is the last assistant message, or
nothing when that message has no words (a run that ended in tool calls has no
answer). Python object reprs (``StopEvent(result=…)``) are never text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from evaluators.model import slot_init
from evaluators.text.case import lower
from receivers.conventions import genai_current as gc
from receivers.conventions import openinference as oi
from receivers.spans import has_key_prefix

_WORD = re.compile(r"\w")
# ``Name(field=…)`` / ``Name()`` — a Python object repr, not prose.
_OBJ_REPR = re.compile(r"^\s*[A-Za-z_][\w.]*\((?:\)|[A-Za-z_]\w*=)", re.DOTALL)
# ``{'key': …}`` — a Python dict repr (JSON would use double quotes).
_DICT_REPR = re.compile(r"^\s*\{'[^']*':", re.DOTALL)

_ROLE_ALIASES: dict[str, str] = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}
_LC_CLASS_ROLES: dict[str, str] = {
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "tool",
}
# Keys of a plain input dict that hold the user's question (CrewAI kickoff inputs, …).
ASK_KEYS: tuple[str, ...] = (
    "question",
    "input",
    "query",
    "prompt",
    "message",
    "user_input",
    "task",
    "text",
    "content",
)


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    text: str | None


slot_init(Message)


def has_words(text: str | None) -> bool:
    return bool(text) and _WORD.search(text or "") is not None


def is_python_repr(text: str) -> bool:
    """True for ``StopEvent(result=…)``-style reprs and ``{'k': …}`` dict reprs."""
    return bool(_OBJ_REPR.match(text) or _DICT_REPR.match(text))


def usable_text(text: Any) -> str | None:
    """``text`` when it is a non-repr string with words, else None."""
    if isinstance(text, str) and has_words(text) and not is_python_repr(text):
        return text
    return None


# ``json.loads``'s own scanner (C when built): ``loads`` reaches it through
# ``decode``/``raw_decode`` and two whitespace regex matches, which cost more
# than scanning a short payload.
_SCAN_ONCE: Callable[[str, int], tuple[Any, int]] = json.decoder.JSONDecoder().scan_once  # type: ignore[attr-defined]


def maybe_json(value: Any) -> Any:
    """Parse strings that look like JSON objects/arrays; anything else unchanged."""
    if isinstance(value, str):
        head = value[:1]
        if head in ("{", "[") and value[-1:] in ("}", "]"):
            # The common shape, no whitespace at either end: scan it directly.
            # ``json.loads`` would skip no leading whitespace and find nothing
            # after ``end`` when it is the string's length, so its result is
            # the same; anything else takes the general path below.
            try:
                obj, end = _SCAN_ONCE(value, 0)
            except (ValueError, StopIteration, RecursionError):
                return value
            if end == len(value):
                return obj
        # the ends without copying the string when it has no surrounding
        # whitespace (attribute values are often kilobytes of message text)
        if head.isspace():
            head = value.lstrip()[:1]
        tail = value[-1:]
        if tail.isspace():
            tail = value.rstrip()[-1:]
        if head in ("{", "[") and tail in ("}", "]"):
            try:
                return json.loads(value)
            except (ValueError, RecursionError):
                return value
    return value


class ParseOnce:
    """``maybe_json`` that parses each string object once.

    One derivation reads some values twice (a model span's
    ``gen_ai.output.messages`` gives the answer and the tool calls it asked
    for). Remembered by the string's identity, holding the string so the id
    stays its own; a result is shared by the readers, which only read it.
    """

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[int, tuple[str, Any]] = {}

    def __call__(self, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        hit = self._seen.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        parsed = maybe_json(value)
        self._seen[id(value)] = (value, parsed)
        return parsed


# ---------------------------------------------------------------------------
# message normalisation


def _content_text(content: Any) -> str | None:
    """Text of a ``content`` field: a string, or a list of typed blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for block in content:
            if isinstance(block, str):
                texts.append(block)
            elif isinstance(block, dict) and block.get("type") in (
                None,
                "text",
                "output_text",
                "input_text",
            ):
                val = block.get("text", block.get("content"))
                if isinstance(val, str):
                    texts.append(val)
        return "\n".join(texts) if texts else None
    return None


def _parts_text(parts: list[Any]) -> str | None:
    texts = [
        p.get("content")
        for p in parts
        if isinstance(p, dict)
        and p.get("type") in gc.PART_TEXT_TYPES
        and isinstance(p.get("content"), str)
    ]
    return "\n".join(t for t in texts if isinstance(t, str)) if texts else None


def to_message(obj: Any) -> Message | None:
    """One message dict of any supported shape → ``Message`` (None if not a message)."""
    if not isinstance(obj, dict):
        return None
    # LangChain serialized constructor form.
    if obj.get("lc") == 1 and isinstance(obj.get("kwargs"), dict):
        ids = obj.get("id")
        cls = ids[-1] if isinstance(ids, list) and ids else ""
        role = _LC_CLASS_ROLES.get(cls if isinstance(cls, str) else "", "")
        return Message(role, _content_text(obj["kwargs"].get("content"))) if role else None
    # LangChain dumpd form {"type": "human", "data": {...}}.
    if isinstance(obj.get("data"), dict) and isinstance(obj.get("type"), str):
        role = _ROLE_ALIASES.get(obj["type"], "")
        return Message(role, _content_text(obj["data"].get("content"))) if role else None
    raw_role = obj.get("role", obj.get("type") if "content" in obj else None)
    if not isinstance(raw_role, str):
        return None
    role = _ROLE_ALIASES.get(lower(raw_role), lower(raw_role))
    if isinstance(obj.get("parts"), list):
        return Message(role, _parts_text(obj["parts"]))
    if "content" in obj:
        return Message(role, _content_text(obj.get("content")))
    if isinstance(obj.get("message"), dict):  # gen_ai.choice-style wrapper
        inner = to_message({"role": role, **obj["message"]})
        return inner
    return Message(role, None)


def _flatten(items: list[Any]) -> list[Any]:
    """LangChain LLM inputs are ``[[msg, …]]``; flatten one level of nesting."""
    out: list[Any] = []
    for it in items:
        if isinstance(it, list):
            out.extend(it)
        else:
            out.append(it)
    return out


def to_messages(value: Any) -> list[Message] | None:
    """A message container of any supported shape → messages; None if not one."""
    value = maybe_json(value)
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            return [m for m in map(to_message, _flatten(value["messages"])) if m is not None]
        gens = value.get("generations")
        if isinstance(gens, list):
            msgs: list[Message] = []
            for g in _flatten(gens):
                if isinstance(g, dict):
                    inner = to_message(g.get("message")) if "message" in g else None
                    text = g.get("text")
                    if inner is not None and inner.text:
                        msgs.append(Message("assistant", inner.text))
                    elif isinstance(text, str):
                        msgs.append(Message("assistant", text))
            return msgs
        one = to_message(value)
        return [one] if one is not None else None
    if isinstance(value, list) and value:
        msgs = [m for m in map(to_message, _flatten(value)) if m is not None]
        return msgs if msgs else None
    return None


def last_user_text(messages: list[Message]) -> str | None:
    for m in reversed(messages):
        if m.role == "user":
            text = usable_text(m.text)
            if text is not None:
                return text
    return None


def last_assistant_text(messages: list[Message]) -> str | None:
    """The last assistant message's words; None when it has none (tool calls only)."""
    for m in reversed(messages):
        if m.role == "assistant":
            return usable_text(m.text)
    return None


# ---------------------------------------------------------------------------
# payload reduction


def ask_from_value(value: Any, strict: bool = False) -> str | None:
    """The user's ask held in one attribute value.

    ``strict`` (used away from the root span) accepts only message structures
    and ask-keyed dicts, never an arbitrary string.
    """
    parsed = maybe_json(value)
    msgs = to_messages(parsed)
    if msgs:
        return last_user_text(msgs)
    if isinstance(parsed, dict):
        for key in ASK_KEYS:
            text = usable_text(parsed.get(key))
            if text is not None:
                return text
        return None
    if isinstance(parsed, str) and not strict:
        return usable_text(parsed)
    return None


def answer_from_value(value: Any, strict: bool = False) -> str | None:
    """The final answer held in one attribute value (see ``ask_from_value``)."""
    parsed = maybe_json(value)
    if isinstance(parsed, dict):
        raw = parsed.get(oi.CREW_OUTPUT_RAW_KEY)
        if isinstance(raw, str) and ("tasks_output" in parsed or "token_usage" in parsed):
            return usable_text(raw)
    msgs = to_messages(parsed)
    if msgs:
        return last_assistant_text(msgs)
    if isinstance(parsed, str) and not strict:
        return usable_text(parsed)
    return None


# ---------------------------------------------------------------------------
# OpenInference flattened messages


def flattened_messages(attributes: dict[str, Any], prefix: str) -> list[Message] | None:
    """Rebuild ``llm.input_messages.<i>.message.*`` attributes into messages, in index order.

    Spans with no key under ``prefix`` (most spans: only OpenInference
    flattens messages) are answered by ``has_key_prefix`` without the loop.
    """
    if not has_key_prefix(attributes, prefix):
        return None
    roles: dict[int, str] = {}
    texts: dict[int, list[str]] = {}
    plen = len(prefix)
    for key, val in attributes.items():
        if not key.startswith(prefix):
            continue
        idx_s, _, rest = key[plen:].partition(".")
        if not idx_s.isdigit():
            continue
        idx = int(idx_s)
        if rest == oi.MESSAGE_ROLE and isinstance(val, str):
            roles[idx] = _ROLE_ALIASES.get(lower(val), lower(val))
        elif rest == oi.MESSAGE_CONTENT and isinstance(val, str):
            texts.setdefault(idx, []).insert(0, val)
        elif (
            rest.startswith(oi.MESSAGE_CONTENTS_PREFIX)
            and rest.endswith(oi.MESSAGE_CONTENT_TEXT_SUFFIX)
            and isinstance(val, str)
            and idx not in texts
        ):
            texts.setdefault(idx, []).append(val)
    if not roles and not texts:
        return None
    out: list[Message] = []
    for idx in sorted(set(roles) | set(texts)):
        parts = texts.get(idx)
        out.append(Message(roles.get(idx, ""), parts[0] if parts else None))
    return out
