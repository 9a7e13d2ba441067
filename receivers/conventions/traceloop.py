"""OpenLLMetry / Traceloop attributes (``traceloop.*``, ``llm.*`` request keys)."""

from __future__ import annotations

from typing import Final

VERSION: Final = "0.x"

SPAN_KIND: Final = "traceloop.span.kind"
TOOL_KINDS: Final[frozenset[str]] = frozenset({"tool"})
AGENT_KINDS: Final[frozenset[str]] = frozenset({"agent"})
ENTITY_NAME: Final[tuple[str, ...]] = ("traceloop.entity.name",)
ENTITY_INPUT: Final[tuple[str, ...]] = ("traceloop.entity.input",)
ENTITY_OUTPUT: Final[tuple[str, ...]] = ("traceloop.entity.output",)
MODEL_REQUEST_MARKERS: Final[tuple[str, ...]] = ("llm.request.type", "llm.request.model")
MODEL: Final[tuple[str, ...]] = ("llm.request.model", "llm.response.model")
INPUT_TOKENS: Final[tuple[str, ...]] = ("llm.usage.prompt_tokens",)
OUTPUT_TOKENS: Final[tuple[str, ...]] = ("llm.usage.completion_tokens",)
TOTAL_TOKENS: Final[tuple[str, ...]] = ("llm.usage.total_tokens",)
COST: Final[tuple[str, ...]] = ("llm.usage.total_cost",)
