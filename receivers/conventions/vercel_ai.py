"""Vercel AI SDK telemetry attributes (``ai.*``)."""

from __future__ import annotations

from typing import Final

VERSION: Final = "ai@4"

PROMPT: Final[tuple[str, ...]] = ("ai.prompt",)
RESPONSE_TEXT: Final[tuple[str, ...]] = ("ai.response.text",)
MODEL: Final[tuple[str, ...]] = ("ai.model.id",)
MODEL_REQUEST_MARKERS: Final[tuple[str, ...]] = ("ai.model.id",)
TOOL_MARKERS: Final[tuple[str, ...]] = ("ai.toolCall.name",)
TOOL_NAME: Final[tuple[str, ...]] = ("ai.toolCall.name",)
TOOL_ARGUMENTS: Final[tuple[str, ...]] = ("ai.toolCall.args",)
TOOL_RESULT: Final[tuple[str, ...]] = ("ai.toolCall.result",)
TOOL_CALL_ID: Final[tuple[str, ...]] = ("ai.toolCall.id",)
INPUT_TOKENS: Final[tuple[str, ...]] = ("ai.usage.promptTokens",)
OUTPUT_TOKENS: Final[tuple[str, ...]] = ("ai.usage.completionTokens",)
