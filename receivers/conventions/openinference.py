"""OpenInference semantic conventions (Arize; used by the LangChain/LangGraph,
CrewAI and OpenAI-Agents instrumentations in the fixtures).

Messages are flattened into indexed attributes
(``llm.input_messages.<i>.message.role``), span roles come from
``openinference.span.kind``, and free-form payloads sit in ``input.value`` /
``output.value`` with a mime type.
"""

from __future__ import annotations

VERSION = "0.1"

SPAN_KIND = "openinference.span.kind"
KIND_TOOL = "TOOL"
KIND_LLM = "LLM"
KIND_AGENT = "AGENT"
KIND_CHAIN = "CHAIN"
# Root spans of these kinds name the application (LangGraph graph, CrewAI crew).
NAMED_ROOT_KINDS: frozenset[str] = frozenset({KIND_AGENT, KIND_CHAIN})
# CrewAI roots are "<crew name>.kickoff"; the suffix is the method, not the name.
ROOT_NAME_SUFFIXES: tuple[str, ...] = (".kickoff", ".kickoff_async")

INPUT_VALUE = "input.value"
INPUT_MIME = "input.mime_type"
OUTPUT_VALUE = "output.value"
OUTPUT_MIME = "output.mime_type"
JSON_MIME = "application/json"

INPUT_MESSAGES_PREFIX = "llm.input_messages."
OUTPUT_MESSAGES_PREFIX = "llm.output_messages."
# Suffixes after "<prefix><i>." inside a flattened message.
MESSAGE_ROLE = "message.role"
MESSAGE_CONTENT = "message.content"
MESSAGE_CONTENTS_PREFIX = "message.contents."
MESSAGE_CONTENT_TEXT_SUFFIX = ".message_content.text"
MESSAGE_TOOL_CALLS_PREFIX = "message.tool_calls."
TOOL_CALL_ID_SUFFIX = ".tool_call.id"
TOOL_CALL_NAME_SUFFIX = ".tool_call.function.name"
TOOL_CALL_ARGUMENTS_SUFFIX = ".tool_call.function.arguments"

MODEL: tuple[str, ...] = ("llm.model_name",)
MODEL_REQUEST_MARKERS: tuple[str, ...] = ("llm.model_name",)
PROMPT_TOKENS: tuple[str, ...] = ("llm.token_count.prompt",)
COMPLETION_TOKENS: tuple[str, ...] = ("llm.token_count.completion",)
TOTAL_TOKENS: tuple[str, ...] = ("llm.token_count.total",)
COST: tuple[str, ...] = ("llm.cost.total",)

TOOL_MARKERS: tuple[str, ...] = ("tool.name",)
TOOL_NAME: tuple[str, ...] = ("tool.name", "tool_call.function.name")
TOOL_ARGUMENTS: tuple[str, ...] = ("tool_call.function.arguments", INPUT_VALUE)
TOOL_RESULT: tuple[str, ...] = (OUTPUT_VALUE,)
TOOL_CALL_ID: tuple[str, ...] = ("tool_call.id",)
TOOL_DESCRIPTION: tuple[str, ...] = ("tool.description",)
TOOL_PARAMETERS: tuple[str, ...] = ("tool.parameters",)

TOOLS_PREFIX = "llm.tools."
TOOL_JSON_SCHEMA_SUFFIX = ".tool.json_schema"

SESSION_ID: tuple[str, ...] = ("session.id",)
AGENT_NAME: tuple[str, ...] = ("agent.name",)

# CrewAI TaskOutput JSON (task span output.value): the interpolated task text.
TASK_DESCRIPTION_KEY = "description"
# CrewAI CrewOutput JSON on the root: final answer and crew token totals.
CREW_OUTPUT_RAW_KEY = "raw"
CREW_TOKEN_USAGE_KEY = "token_usage"
