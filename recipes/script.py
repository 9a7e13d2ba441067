"""What the recipes' scripted model decides, the same in every framework.

Each recipe wraps this in its framework's model interface, so the recipes
run without a key and their traces compare across frameworks: for a
question, which tools to call with which arguments; for what they returned,
the answer. The fixed token counts are reported as a provider would.
"""

from __future__ import annotations

import re
from typing import Any

from recipes import tools

# The agent every recipe builds.
AGENT_NAME = "weather_assistant"
INSTRUCTIONS = "You are a helpful assistant. Use the tools to look up weather and to do math."

MODEL_NAME = "scripted-weather-model"
# (input, output) tokens of the first call (choosing tools) and of the answer
PLAN_TOKENS = (112, 36)
ANSWER_TOKENS = (171, 29)
NOTHING_TO_DO = "I can look up the weather in a city or do arithmetic."
# What a recipe asks when run without a question.
EXAMPLE_QUESTION = "What's the weather in Paris, and what is 23 * 7?"

# Linear patterns: a capitalised word after "in", and arithmetic.
_CITY = re.compile(r"\bin ([A-Z][a-z]+)")
_SUM = re.compile(r"\d+(?:\.\d+)?(?: ?[-+*/] ?\d+(?:\.\d+)?)+")


def planned_calls(question: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(call id, tool name, arguments) for each tool the question needs:
    the weather of each city it names, the value of each sum in it."""
    cities = dict.fromkeys(_CITY.findall(question))
    return [(f"call_w{i}", "get_weather", {"city": city}) for i, city in enumerate(cities)] + [
        (f"call_c{i}", "calculator", {"expression": s})
        for i, s in enumerate(_SUM.findall(question))
    ]


def answer_sentence(tool: str, args: dict[str, Any], result: Any, failed: bool) -> str:
    """One sentence of the answer, from one call's result (or its error)."""
    if failed:
        what = f"the weather for {args['city']}" if "city" in args else "that"
        return f"I couldn't get {what}: {result}"
    if tool == "get_weather":
        return (
            f"In {result['city']} it is currently {result['temperature_c']}°C "
            f"and {result['condition']}."
        )
    return f"The result is {tools.number_text(float(result))}."
