"""Which framework produced a trace, told from instrumentation scopes and attributes.

Scope names are the most reliable signal (each instrumentation names itself);
attribute hints are for exporters that leave the scope empty.
"""

from __future__ import annotations

from typing import Final

# (scope-name prefix, framework) — first match wins, so specific before generic.
SCOPE_PREFIXES: Final[tuple[tuple[str, str], ...]] = (
    ("pydantic-ai", "pydantic-ai"),
    ("pydantic_ai", "pydantic-ai"),
    ("openinference.instrumentation.langchain", "langchain"),
    ("openinference.instrumentation.crewai", "crewai"),
    ("openinference.instrumentation.openai_agents", "openai-agents"),
    ("opentelemetry.instrumentation.openai_agents", "openai-agents"),
    ("openinference.instrumentation.llama_index", "llamaindex"),
    ("openinference.instrumentation.smolagents", "smolagents"),
    ("openinference.instrumentation.autogen", "autogen"),
    ("openinference.instrumentation.openai", "openai"),
    ("opentelemetry.instrumentation.openai", "openai"),
    ("opentelemetry.util.genai", "openai"),
    ("langsmith", "langchain"),
    ("ai", "vercel-ai"),
)

# LangChain traces whose metadata shows a LangGraph run are reported as langgraph.
LANGGRAPH_METADATA_MARKERS: Final[tuple[str, ...]] = (
    '"langgraph_',
    '"ls_integration": "langgraph"',
)
LANGGRAPH: Final = "langgraph"
LANGCHAIN: Final = "langchain"
METADATA_KEY: Final = "metadata"

# Attribute-key prefixes that betray a framework when no scope says so.
ATTRIBUTE_PREFIXES: Final[tuple[tuple[str, str], ...]] = (
    ("pydantic_ai.", "pydantic-ai"),
    ("langsmith.", "langchain"),
    ("traceloop.", "traceloop"),
    ("ai.", "vercel-ai"),
)
