"""OpenTelemetry GenAI semantic conventions, current (message-part) form.

Semconv ``gen_ai`` 1.36+ (``gen_ai.input.messages`` / ``gen_ai.output.messages``
as JSON "parts" lists, ``gen_ai.provider.name``, ``gen_ai.tool.call.*``). Used
by pydantic-ai v3+, opentelemetry-util-genai and the official OpenAI and
OpenAI-Agents instrumentations.
"""

from __future__ import annotations

VERSION = "1.37.0"

OPERATION_NAME = "gen_ai.operation.name"
AGENT_OPERATIONS: tuple[str, ...] = ("invoke_agent", "create_agent")
TOOL_OPERATIONS: tuple[str, ...] = ("execute_tool",)
MODEL_OPERATIONS: tuple[str, ...] = (
    "chat",
    "text_completion",
    "generate_content",
    "embeddings",
)

AGENT_NAME: tuple[str, ...] = ("gen_ai.agent.name",)
# Values instrumentations stamp when they do not know the agent (otel-genai
# openai-agents 0.1.0 puts this on every non-agent span); never an answer.
PLACEHOLDER_AGENT_NAMES: frozenset[str] = frozenset({"OpenAI Agent"})

CONVERSATION_ID: tuple[str, ...] = ("gen_ai.conversation.id",)

INPUT_MESSAGES: tuple[str, ...] = ("gen_ai.input.messages",)
OUTPUT_MESSAGES: tuple[str, ...] = ("gen_ai.output.messages",)
SYSTEM_INSTRUCTIONS: tuple[str, ...] = ("gen_ai.system_instructions",)

# A span carrying any of these is a model request (SPEC §7.17 "GenAI request attribute").
MODEL_REQUEST_MARKERS: tuple[str, ...] = ("gen_ai.request.model",)
MODEL: tuple[str, ...] = ("gen_ai.request.model", "gen_ai.response.model")
PROVIDER: tuple[str, ...] = ("gen_ai.provider.name", "gen_ai.system")

# ``gen_ai.tool.definitions`` lives on chat spans, so it is *not* a tool marker.
TOOL_MARKERS: tuple[str, ...] = (
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
)
TOOL_NAME: tuple[str, ...] = ("gen_ai.tool.name",)
TOOL_CALL_ID: tuple[str, ...] = ("gen_ai.tool.call.id",)
TOOL_ARGUMENTS: tuple[str, ...] = ("gen_ai.tool.call.arguments",)
TOOL_RESULT: tuple[str, ...] = ("gen_ai.tool.call.result",)
TOOL_DESCRIPTION: tuple[str, ...] = ("gen_ai.tool.description",)
TOOL_DEFINITIONS: tuple[str, ...] = ("gen_ai.tool.definitions",)

INPUT_TOKENS: tuple[str, ...] = ("gen_ai.usage.input_tokens",)
OUTPUT_TOKENS: tuple[str, ...] = ("gen_ai.usage.output_tokens",)
COST: tuple[str, ...] = ("gen_ai.usage.cost",)

ERROR_TYPE = "error.type"

# event_only capture: content arrives as a log record with this event name and
# the message attributes as structured AnyValues (see receivers.otlp.logs).
INFERENCE_DETAILS_EVENT = "gen_ai.client.inference.operation.details"

# Message "parts" schema.
PART_TEXT_TYPES: frozenset[str] = frozenset({"text"})
PART_TOOL_CALL = "tool_call"
PART_TOOL_RESPONSE = "tool_call_response"
