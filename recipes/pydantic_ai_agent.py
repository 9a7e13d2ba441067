"""Pydantic AI → Iris: an agent with two tools, traced by Pydantic AI's own
OpenTelemetry instrumentation and exported to Iris over OTLP/HTTP.

    python -m recipes.pydantic_ai_agent "What's the weather in Paris, and what is 23 * 7?"

Without ``--model`` the agent runs on a scripted model (Pydantic AI's
``FunctionModel``), so the recipe needs no key and no network but Iris. With
``--model openai:gpt-4o-mini`` (and ``pip install 'pydantic-ai-slim[openai]'``,
``OPENAI_API_KEY``) the same agent runs on a real model. The Iris-specific
part is two lines: the tracer provider, and ``Agent.instrument_all``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.exceptions import ToolFailed
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentationSettings
from pydantic_ai.usage import RequestUsage

from recipes import script, tools
from recipes.exporter import tracer_provider


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """``recipes.script`` as a Pydantic AI ``FunctionModel``: ask for the
    tools the question needs, then answer from what they returned."""
    last = messages[-1]
    returns = (
        [p for p in last.parts if isinstance(p, ToolReturnPart | RetryPromptPart)]
        if isinstance(last, ModelRequest)
        else []
    )
    if not returns:
        question = next(str(p.content) for p in messages[0].parts if isinstance(p, UserPromptPart))
        calls = [
            ToolCallPart(name, args, cid) for cid, name, args in script.planned_calls(question)
        ]
        text = [] if calls else [TextPart(script.NOTHING_TO_DO)]
        return ModelResponse(parts=[*calls, *text], usage=_usage(script.PLAN_TOKENS))
    asked = {  # the arguments of each call, by its id
        p.tool_call_id: p.args_as_dict()
        for m in messages
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    }
    sentences = []
    for part in returns:
        # a call that failed (ToolFailed) or was refused is answered, not retried
        failed = isinstance(part, RetryPromptPart) or part.outcome != "success"
        result: Any = part.model_response() if isinstance(part, RetryPromptPart) else part.content
        args = asked.get(part.tool_call_id, {})
        sentences.append(script.answer_sentence(str(part.tool_name), args, result, failed))
    return ModelResponse(parts=[TextPart(" ".join(sentences))], usage=_usage(script.ANSWER_TOKENS))


def _usage(tokens: tuple[int, int]) -> RequestUsage:
    return RequestUsage(input_tokens=tokens[0], output_tokens=tokens[1])


def build_agent(model: str | None) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(
        model or FunctionModel(scripted_model, model_name=script.MODEL_NAME),
        name=script.AGENT_NAME,
        instructions=script.INSTRUCTIONS,
    )

    @agent.tool_plain
    def get_weather(city: str) -> dict[str, float | str]:
        """Current weather for a city."""
        try:
            return tools.get_weather(city)
        except tools.UnknownCityError as exc:
            raise ToolFailed(str(exc)) from exc  # the model sees it; no retry

    @agent.tool_plain
    def calculator(expression: str) -> float:
        """Evaluate an arithmetic expression."""
        return tools.calculator(expression)

    return agent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", nargs="?", default=script.EXAMPLE_QUESTION)
    parser.add_argument("--model", help="a Pydantic AI model name; default: the scripted model")
    parser.add_argument("--conversation", help="gen_ai.conversation.id: groups runs into a session")
    args = parser.parse_args(argv)

    provider = tracer_provider("pydantic-ai-recipe")
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider))
    agent = build_agent(args.model)
    try:
        result = agent.run_sync(args.question, conversation_id=args.conversation)
        print(json.dumps({"output": result.output}))
    finally:
        provider.shutdown()  # flushes the batch to Iris before exiting


if __name__ == "__main__":
    main()
