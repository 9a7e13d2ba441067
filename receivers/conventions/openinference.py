"""OpenInference semantic conventions (Arize; used by the LangChain/LangGraph,
CrewAI and OpenAI-Agents instrumentations in the fixtures).

Messages are flattened into indexed attributes
(``llm.input_messages.<i>.message.role``), span roles come from
``openinference.span.kind``, and free-form payloads sit in ``input.value`` /
``output.value`` with a mime type.
"""

from __future__ import annotations

from typing import Final

VERSION: Final = "0.1"

SPAN_KIND: Final = "openinference.span.kind"
KIND_TOOL: Final = "TOOL"
KIND_LLM: Final = "LLM"
KIND_AGENT: Final = "AGENT"
KIND_CHAIN: Final = "CHAIN"
# Root spans of these kinds name the application (LangGraph graph, CrewAI crew).
NAMED_ROOT_KINDS: Final[frozenset[str]] = frozenset({KIND_AGENT, KIND_CHAIN})
# CrewAI roots are "<crew name>.kickoff"; the suffix is the method, not the name.
ROOT_NAME_SUFFIXES: Final[tuple[str, ...]] = (".kickoff", ".kickoff_async")

INPUT_VALUE: Final = "input.value"
INPUT_MIME: Final = "input.mime_type"
OUTPUT_VALUE: Final = "output.value"
OUTPUT_MIME: Final = "output.mime_type"
JSON_MIME: Final = "application/json"

INPUT_MESSAGES_PREFIX: Final = "llm.input_messages."
OUTPUT_MESSAGES_PREFIX: Final = "llm.output_messages."
# Suffixes after "<prefix><i>." inside a flattened message.
MESSAGE_ROLE: Final = "message.role"
MESSAGE_CONTENT: Final = "message.content"
MESSAGE_CONTENTS_PREFIX: Final = "message.contents."
MESSAGE_CONTENT_TEXT_SUFFIX: Final = ".message_content.text"
MESSAGE_TOOL_CALLS_PREFIX: Final = "message.tool_calls."
TOOL_CALL_ID_SUFFIX: Final = ".tool_call.id"
TOOL_CALL_NAME_SUFFIX: Final = ".tool_call.function.name"
TOOL_CALL_ARGUMENTS_SUFFIX: Final = ".tool_call.function.arguments"

MODEL: Final[tuple[str, ...]] = ("llm.model_name",)
MODEL_REQUEST_MARKERS: Final[tuple[str, ...]] = ("llm.model_name",)
PROMPT_TOKENS: Final[tuple[str, ...]] = ("llm.token_count.prompt",)
COMPLETION_TOKENS: Final[tuple[str, ...]] = ("llm.token_count.completion",)
TOTAL_TOKENS: Final[tuple[str, ...]] = ("llm.token_count.total",)
COST: Final[tuple[str, ...]] = ("llm.cost.total",)

TOOL_MARKERS: Final[tuple[str, ...]] = ("tool.name",)
TOOL_NAME: Final[tuple[str, ...]] = ("tool.name", "tool_call.function.name")
TOOL_ARGUMENTS: Final[tuple[str, ...]] = ("tool_call.function.arguments", INPUT_VALUE)
TOOL_RESULT: Final[tuple[str, ...]] = (OUTPUT_VALUE,)
TOOL_CALL_ID: Final[tuple[str, ...]] = ("tool_call.id",)
TOOL_DESCRIPTION: Final[tuple[str, ...]] = ("tool.description",)
TOOL_PARAMETERS: Final[tuple[str, ...]] = ("tool.parameters",)

TOOLS_PREFIX: Final = "llm.tools."
TOOL_JSON_SCHEMA_SUFFIX: Final = ".tool.json_schema"

SESSION_ID: Final[tuple[str, ...]] = ("session.id",)
AGENT_NAME: Final[tuple[str, ...]] = ("agent.name",)

# CrewAI TaskOutput JSON (task span output.value): the interpolated task text.
TASK_DESCRIPTION_KEY: Final = "description"
# CrewAI CrewOutput JSON on the root: final answer and crew token totals.
CREW_OUTPUT_RAW_KEY: Final = "raw"
CREW_TOKEN_USAGE_KEY: Final = "token_usage"
