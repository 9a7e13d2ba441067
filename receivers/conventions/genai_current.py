"""OpenTelemetry GenAI semantic conventions, current (message-part) form.

Semconv ``gen_ai`` 1.36+ (``gen_ai.input.messages`` / ``gen_ai.output.messages``
as JSON "parts" lists, ``gen_ai.provider.name``, ``gen_ai.tool.call.*``). Used
by pydantic-ai v3+, opentelemetry-util-genai and the official OpenAI and
OpenAI-Agents instrumentations.
"""

from __future__ import annotations

from typing import Final

VERSION: Final = "1.37.0"

OPERATION_NAME: Final = "gen_ai.operation.name"
AGENT_OPERATIONS: Final[tuple[str, ...]] = ("invoke_agent", "create_agent")
TOOL_OPERATIONS: Final[tuple[str, ...]] = ("execute_tool",)
MODEL_OPERATIONS: Final[tuple[str, ...]] = (
    "chat",
    "text_completion",
    "generate_content",
    "embeddings",
)

AGENT_NAME: Final[tuple[str, ...]] = ("gen_ai.agent.name",)
# Values instrumentations stamp when they do not know the agent (otel-genai
# openai-agents 0.1.0 puts this on every non-agent span); never an answer.
PLACEHOLDER_AGENT_NAMES: Final[frozenset[str]] = frozenset({"OpenAI Agent"})

CONVERSATION_ID: Final[tuple[str, ...]] = ("gen_ai.conversation.id",)

INPUT_MESSAGES: Final[tuple[str, ...]] = ("gen_ai.input.messages",)
OUTPUT_MESSAGES: Final[tuple[str, ...]] = ("gen_ai.output.messages",)
SYSTEM_INSTRUCTIONS: Final[tuple[str, ...]] = ("gen_ai.system_instructions",)

# A span carrying any of these is a model request (SPEC §7.17 "GenAI request attribute").
MODEL_REQUEST_MARKERS: Final[tuple[str, ...]] = ("gen_ai.request.model",)
MODEL: Final[tuple[str, ...]] = ("gen_ai.request.model", "gen_ai.response.model")
PROVIDER: Final[tuple[str, ...]] = ("gen_ai.provider.name", "gen_ai.system")

# ``gen_ai.tool.definitions`` lives on chat spans, so it is *not* a tool marker.
TOOL_MARKERS: Final[tuple[str, ...]] = (
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
)
TOOL_NAME: Final[tuple[str, ...]] = ("gen_ai.tool.name",)
TOOL_CALL_ID: Final[tuple[str, ...]] = ("gen_ai.tool.call.id",)
TOOL_ARGUMENTS: Final[tuple[str, ...]] = ("gen_ai.tool.call.arguments",)
TOOL_RESULT: Final[tuple[str, ...]] = ("gen_ai.tool.call.result",)
TOOL_DESCRIPTION: Final[tuple[str, ...]] = ("gen_ai.tool.description",)
TOOL_DEFINITIONS: Final[tuple[str, ...]] = ("gen_ai.tool.definitions",)

INPUT_TOKENS: Final[tuple[str, ...]] = ("gen_ai.usage.input_tokens",)
OUTPUT_TOKENS: Final[tuple[str, ...]] = ("gen_ai.usage.output_tokens",)
COST: Final[tuple[str, ...]] = ("gen_ai.usage.cost",)

ERROR_TYPE: Final = "error.type"

# event_only capture: content arrives as a log record with this event name and
# the message attributes as structured AnyValues (see receivers.otlp.logs).
INFERENCE_DETAILS_EVENT: Final = "gen_ai.client.inference.operation.details"

# Message "parts" schema.
PART_TEXT_TYPES: Final[frozenset[str]] = frozenset({"text"})
PART_TOOL_CALL: Final = "tool_call"
PART_TOOL_RESPONSE: Final = "tool_call_response"
