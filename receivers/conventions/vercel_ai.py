"""Vercel AI SDK telemetry attributes (``ai.*``)."""

from __future__ import annotations

VERSION = "ai@4"

PROMPT: tuple[str, ...] = ("ai.prompt",)
RESPONSE_TEXT: tuple[str, ...] = ("ai.response.text",)
MODEL: tuple[str, ...] = ("ai.model.id",)
MODEL_REQUEST_MARKERS: tuple[str, ...] = ("ai.model.id",)
TOOL_MARKERS: tuple[str, ...] = ("ai.toolCall.name",)
TOOL_NAME: tuple[str, ...] = ("ai.toolCall.name",)
TOOL_ARGUMENTS: tuple[str, ...] = ("ai.toolCall.args",)
TOOL_RESULT: tuple[str, ...] = ("ai.toolCall.result",)
TOOL_CALL_ID: tuple[str, ...] = ("ai.toolCall.id",)
INPUT_TOKENS: tuple[str, ...] = ("ai.usage.promptTokens",)
OUTPUT_TOKENS: tuple[str, ...] = ("ai.usage.completionTokens",)
