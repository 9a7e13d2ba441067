"""Cross-convention precedence: the per-convention tables joined in SPEC §7.17 order.

Where the fixtures showed SPEC's order to be wrong we say so next to the tuple.
"""

from __future__ import annotations

from typing import Final

from receivers.conventions import (
    genai_current,
    genai_legacy,
    iris,
    langsmith,
    openinference,
    pydantic_ai,
    traceloop,
    vercel_ai,
)

# Agent name. SPEC puts service.name first; the brief (and the fixtures, where
# service.name is "<framework>-fixture") want a convention's name to win and
# service.name only as the fallback — see receivers.mapping.
AGENT_NAME_KEYS: Final[tuple[str, ...]] = (
    genai_current.AGENT_NAME
    + openinference.AGENT_NAME
    + pydantic_ai.AGENT_NAME
    + langsmith.AGENT_NAME
)

SESSION_KEYS: Final[tuple[str, ...]] = (
    iris.SESSION_ID
    + genai_current.CONVERSATION_ID
    + openinference.SESSION_ID
    + langsmith.SESSION_ID
)

MODEL_KEYS: Final[tuple[str, ...]] = (
    genai_current.MODEL
    + openinference.MODEL
    + traceloop.MODEL
    + vercel_ai.MODEL
    + pydantic_ai.MODEL
    + langsmith.MODEL
)

MODEL_REQUEST_MARKERS: Final[tuple[str, ...]] = (
    genai_current.MODEL_REQUEST_MARKERS
    + openinference.MODEL_REQUEST_MARKERS
    + traceloop.MODEL_REQUEST_MARKERS
    + vercel_ai.MODEL_REQUEST_MARKERS
)

TOOL_MARKERS: Final[tuple[str, ...]] = (
    genai_current.TOOL_MARKERS + openinference.TOOL_MARKERS + vercel_ai.TOOL_MARKERS
)
TOOL_NAME_KEYS: Final[tuple[str, ...]] = (
    genai_current.TOOL_NAME + openinference.TOOL_NAME + traceloop.ENTITY_NAME + vercel_ai.TOOL_NAME
)
TOOL_ARGUMENT_KEYS: Final[tuple[str, ...]] = (
    genai_current.TOOL_ARGUMENTS
    + pydantic_ai.TOOL_ARGUMENTS
    + openinference.TOOL_ARGUMENTS
    + traceloop.ENTITY_INPUT
    + vercel_ai.TOOL_ARGUMENTS
)
TOOL_RESULT_KEYS: Final[tuple[str, ...]] = (
    genai_current.TOOL_RESULT
    + pydantic_ai.TOOL_RESULT
    + openinference.TOOL_RESULT
    + traceloop.ENTITY_OUTPUT
    + vercel_ai.TOOL_RESULT
)
TOOL_CALL_ID_KEYS: Final[tuple[str, ...]] = (
    genai_current.TOOL_CALL_ID + openinference.TOOL_CALL_ID + vercel_ai.TOOL_CALL_ID
)
TOOL_DESCRIPTION_KEYS: Final[tuple[str, ...]] = (
    genai_current.TOOL_DESCRIPTION + openinference.TOOL_DESCRIPTION
)

PROMPT_TOKEN_KEYS: Final[tuple[str, ...]] = (
    genai_current.INPUT_TOKENS
    + genai_legacy.INPUT_TOKENS
    + iris.PROMPT_TOKENS
    + openinference.PROMPT_TOKENS
    + traceloop.INPUT_TOKENS
    + vercel_ai.INPUT_TOKENS
)
COMPLETION_TOKEN_KEYS: Final[tuple[str, ...]] = (
    genai_current.OUTPUT_TOKENS
    + genai_legacy.OUTPUT_TOKENS
    + iris.COMPLETION_TOKENS
    + openinference.COMPLETION_TOKENS
    + traceloop.OUTPUT_TOKENS
    + vercel_ai.OUTPUT_TOKENS
)
TOTAL_TOKEN_KEYS: Final[tuple[str, ...]] = (
    genai_legacy.TOTAL_TOKENS
    + iris.TOTAL_TOKENS
    + openinference.TOTAL_TOKENS
    + traceloop.TOTAL_TOKENS
)
COST_KEYS: Final[tuple[str, ...]] = (
    iris.COST_USD + genai_current.COST + openinference.COST + traceloop.COST
)

# Input / output: keys holding a message list or a payload to reduce, in the
# order SPEC §7.17 reads them on one span. ``final_result`` (pydantic) is the
# answer itself and goes first for output: it is exactly this run's result,
# whereas message lists may carry earlier turns.
INPUT_KEYS: Final[tuple[str, ...]] = (
    openinference.INPUT_MESSAGES_PREFIX,  # flattened; read by prefix
    *genai_current.INPUT_MESSAGES,
    *pydantic_ai.ALL_MESSAGES,
    *genai_legacy.PROMPT,
    openinference.INPUT_VALUE,
    *traceloop.ENTITY_INPUT,
    *vercel_ai.PROMPT,
)
OUTPUT_KEYS: Final[tuple[str, ...]] = (
    *pydantic_ai.FINAL_RESULT,
    openinference.OUTPUT_MESSAGES_PREFIX,
    *genai_current.OUTPUT_MESSAGES,
    *pydantic_ai.ALL_MESSAGES,
    *genai_legacy.COMPLETION,
    openinference.OUTPUT_VALUE,
    *traceloop.ENTITY_OUTPUT,
    *vercel_ai.RESPONSE_TEXT,
)
# Keys whose value is free text/JSON of any shape; on spans other than the root
# they are only trusted when they reduce from a message structure.
LOOSE_PAYLOAD_KEYS: Final[frozenset[str]] = frozenset(
    {openinference.INPUT_VALUE, openinference.OUTPUT_VALUE}
    | set(traceloop.ENTITY_INPUT)
    | set(traceloop.ENTITY_OUTPUT)
)
