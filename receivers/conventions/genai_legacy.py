"""Older GenAI conventions still emitted in the wild.

* semconv ≤ 1.27 span attributes ``gen_ai.prompt`` / ``gen_ai.completion``;
* the 1.28–1.35 *event* form: one span event (or log record) per message,
  ``gen_ai.system.message`` … ``gen_ai.choice``;
* the ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` events;
* OpenLLMetry's indexed ``gen_ai.prompt.N.content`` attributes;
* the pre-1.28 token names ``gen_ai.usage.prompt_tokens`` / ``completion_tokens``
  and Semantic Kernel's ``gen_ai.response.*_tokens``.
"""

from __future__ import annotations

from typing import Final

VERSIONS: Final[tuple[str, ...]] = ("1.26.0", "1.27.0", "1.28.0–1.35.0")

PROMPT: Final[tuple[str, ...]] = ("gen_ai.prompt",)
COMPLETION: Final[tuple[str, ...]] = ("gen_ai.completion",)

# OpenLLMetry flattening: gen_ai.prompt.<i>.role / .content (and completion).
INDEXED_PROMPT_PREFIX: Final = "gen_ai.prompt."
INDEXED_COMPLETION_PREFIX: Final = "gen_ai.completion."
INDEXED_CONTENT_SUFFIX: Final = ".content"
INDEXED_ROLE_SUFFIX: Final = ".role"

PROMPT_EVENTS: Final[dict[str, str]] = {"gen_ai.content.prompt": "gen_ai.prompt"}
COMPLETION_EVENTS: Final[dict[str, str]] = {"gen_ai.content.completion": "gen_ai.completion"}

# 1.28–1.35 message events: event name → role of the message it carries.
MESSAGE_EVENTS: Final[dict[str, str]] = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
    "gen_ai.choice": "assistant",
}
# Where an event keeps its text: flat attribute/body field, or nested ``message``.
EVENT_CONTENT_KEYS: Final[tuple[str, ...]] = ("content", "gen_ai.event.content", "body")
EVENT_MESSAGE_KEY: Final = "message"

INPUT_TOKENS: Final[tuple[str, ...]] = (
    "gen_ai.usage.prompt_tokens",
    "gen_ai.response.prompt_tokens",
)
OUTPUT_TOKENS: Final[tuple[str, ...]] = (
    "gen_ai.usage.completion_tokens",
    "gen_ai.response.completion_tokens",
)
TOTAL_TOKENS: Final[tuple[str, ...]] = ("gen_ai.usage.total_tokens",)
