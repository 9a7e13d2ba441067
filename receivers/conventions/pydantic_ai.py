"""Pydantic AI's built-in instrumentation, data-format versions 2 through 6.

Versions differ in a few keys only; each table maps version → keys, and the
``*_KEYS`` tuples are the union, newest first, which is the order mapping reads
them in (a span carries one version's keys, so the order only matters for
robustness).
"""

from __future__ import annotations

from typing import Final

VERSIONS: Final[tuple[int, ...]] = (2, 3, 4, 5, 6)
CURRENT_VERSION: Final = 5

SCOPE_NAMES: Final[tuple[str, ...]] = ("pydantic-ai", "pydantic_ai")

# Span names of the run and the tool calls, by version.
AGENT_SPAN_NAMES: Final[dict[int, str]] = {2: "agent run", 3: "invoke_agent", 5: "invoke_agent"}
TOOL_SPAN_NAMES: Final[dict[int, str]] = {2: "running tool", 3: "execute_tool", 5: "execute_tool"}
# Exact span names that mark an agent run regardless of other attributes.
AGENT_RUN_SPAN_NAMES: Final[frozenset[str]] = frozenset({"agent run"})

ALL_MESSAGES: Final[tuple[str, ...]] = ("pydantic_ai.all_messages",)
FINAL_RESULT: Final[tuple[str, ...]] = ("final_result",)
AGENT_NAME: Final[tuple[str, ...]] = ("agent_name",)
MODEL: Final[tuple[str, ...]] = ("model_name",)

TOOL_ARGUMENTS_BY_VERSION: Final[dict[int, tuple[str, ...]]] = {
    2: ("tool_arguments",),
    3: ("gen_ai.tool.call.arguments",),
}
TOOL_RESULT_BY_VERSION: Final[dict[int, tuple[str, ...]]] = {
    2: ("tool_response",),
    3: ("gen_ai.tool.call.result",),
}
TOOL_ARGUMENTS: Final[tuple[str, ...]] = ("tool_arguments",)
TOOL_RESULT: Final[tuple[str, ...]] = ("tool_response",)

# Run totals under a non-standard namespace so backends do not double count.
AGGREGATED_INPUT_TOKENS: Final[tuple[str, ...]] = ("gen_ai.aggregated_usage.input_tokens",)
AGGREGATED_OUTPUT_TOKENS: Final[tuple[str, ...]] = ("gen_ai.aggregated_usage.output_tokens",)
AGGREGATED_TOTAL_TOKENS: Final[tuple[str, ...]] = ("gen_ai.aggregated_usage.total_tokens",)

# Handled tool failures (the model saw the error and the run went on) carry an
# ``exception`` event with one of these types on an ERROR tool span.
HANDLED_TOOL_ERRORS: Final[tuple[str, ...]] = (
    "pydantic_ai.exceptions.ToolFailedError",
    "pydantic_ai.exceptions.ToolRetryError",
)
RETRY_CAUSE: Final = "pydantic_ai.tool.retry.cause"
