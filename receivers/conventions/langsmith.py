"""LangSmith's OpenTelemetry attributes (``langsmith.*``).

No fixture: keys follow LangSmith's OTel exporter documentation. Inputs and
outputs are written as ``gen_ai.prompt`` / ``gen_ai.completion`` JSON (handled
by the legacy GenAI table); this table adds the span kinds, session and
metadata keys.
"""

from __future__ import annotations

from typing import Final

VERSION: Final = "0.3"

SPAN_KIND: Final = "langsmith.span.kind"
TOOL_KINDS: Final[frozenset[str]] = frozenset({"tool"})
LLM_KINDS: Final[frozenset[str]] = frozenset({"llm"})
AGENT_KINDS: Final[frozenset[str]] = frozenset({"agent"})

TRACE_NAME: Final[tuple[str, ...]] = ("langsmith.trace.name",)
SESSION_ID: Final[tuple[str, ...]] = (
    "langsmith.trace.session_id",
    "langsmith.metadata.session_id",
    "langsmith.metadata.thread_id",
    "langsmith.metadata.conversation_id",
)
METADATA_PREFIX: Final = "langsmith.metadata."
AGENT_NAME: Final[tuple[str, ...]] = ("langsmith.metadata.agent_name",)
MODEL: Final[tuple[str, ...]] = ("langsmith.metadata.ls_model_name",)
TAGS: Final = "langsmith.span.tags"
