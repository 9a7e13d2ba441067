"""LangSmith's OpenTelemetry attributes (``langsmith.*``).

No fixture: keys follow LangSmith's OTel exporter documentation. Inputs and
outputs are written as ``gen_ai.prompt`` / ``gen_ai.completion`` JSON (handled
by the legacy GenAI table); this table adds the span kinds, session and
metadata keys.
"""

from __future__ import annotations

VERSION = "0.3"

SPAN_KIND = "langsmith.span.kind"
TOOL_KINDS: frozenset[str] = frozenset({"tool"})
LLM_KINDS: frozenset[str] = frozenset({"llm"})
AGENT_KINDS: frozenset[str] = frozenset({"agent"})

TRACE_NAME: tuple[str, ...] = ("langsmith.trace.name",)
SESSION_ID: tuple[str, ...] = (
    "langsmith.trace.session_id",
    "langsmith.metadata.session_id",
    "langsmith.metadata.thread_id",
    "langsmith.metadata.conversation_id",
)
METADATA_PREFIX = "langsmith.metadata."
AGENT_NAME: tuple[str, ...] = ("langsmith.metadata.agent_name",)
MODEL: tuple[str, ...] = ("langsmith.metadata.ls_model_name",)
TAGS = "langsmith.span.tags"
