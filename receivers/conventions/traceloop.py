"""OpenLLMetry / Traceloop attributes (``traceloop.*``, ``llm.*`` request keys)."""

from __future__ import annotations

VERSION = "0.x"

SPAN_KIND = "traceloop.span.kind"
TOOL_KINDS: frozenset[str] = frozenset({"tool"})
AGENT_KINDS: frozenset[str] = frozenset({"agent"})
ENTITY_NAME: tuple[str, ...] = ("traceloop.entity.name",)
ENTITY_INPUT: tuple[str, ...] = ("traceloop.entity.input",)
ENTITY_OUTPUT: tuple[str, ...] = ("traceloop.entity.output",)
MODEL_REQUEST_MARKERS: tuple[str, ...] = ("llm.request.type", "llm.request.model")
MODEL: tuple[str, ...] = ("llm.request.model", "llm.response.model")
INPUT_TOKENS: tuple[str, ...] = ("llm.usage.prompt_tokens",)
OUTPUT_TOKENS: tuple[str, ...] = ("llm.usage.completion_tokens",)
TOTAL_TOKENS: tuple[str, ...] = ("llm.usage.total_tokens",)
COST: tuple[str, ...] = ("llm.usage.total_cost",)
