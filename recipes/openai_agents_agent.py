"""OpenAI Agents SDK → Iris: an agent with two tools, traced by the
OpenInference instrumentor for the SDK and exported to Iris over OTLP/HTTP.

    python -m recipes.openai_agents_agent "What's the weather in Paris, and what is 23 * 7?"

Without a model of yours the agent runs on a scripted ``Model`` that answers
as the SDK's Responses model does, so the recipe needs no key and no network
but Iris; ``--model gpt-4o-mini`` (with ``OPENAI_API_KEY``) runs the same
agent on a real one. The Iris-specific part is the tracer provider handed to
``OpenAIAgentsInstrumentor``; ``set_trace_processors([])`` first removes the
SDK's own exporter to OpenAI's dashboard, so the traces go to Iris alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from agents import (
    Agent,
    Model,
    ModelResponse,
    ModelTracing,
    RunContextWrapper,
    Runner,
    Usage,
    function_tool,
    set_trace_processors,
)
from agents.tracing import response_span
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

from recipes import script, tools
from recipes.exporter import tracer_provider


class ScriptedModel(Model):
    """``recipes.script`` as an Agents SDK model: it answers with the output
    items the Responses API would, and records its call in a ``response``
    span as the SDK's own models do (that span is what carries the model,
    the messages and the tokens to the instrumentor)."""

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        **_: Any,
    ) -> ModelResponse:
        response = self._traced(system_instructions, input, tracing)
        usage = response.usage
        assert usage is not None
        return ModelResponse(
            output=list(response.output),
            usage=Usage(
                requests=1,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
            ),
            response_id=None,
        )

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[Any],
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: ModelTracing,
        **_: Any,
    ) -> AsyncIterator[Any]:
        """The whole answer as one completed event: all ``Runner.run_streamed``
        needs from a model."""
        response = self._traced(system_instructions, input, tracing)
        yield ResponseCompletedEvent(
            response=response, sequence_number=0, type="response.completed"
        )

    def _traced(
        self, instructions: str | None, input: str | list[Any], tracing: ModelTracing
    ) -> Response:
        """The response to ``input``, recorded in a ``response`` span."""
        items: list[Any] = [{"role": "user", "content": input}] if isinstance(input, str) else input
        with response_span(disabled=tracing.is_disabled()) as span:
            response = self._respond(instructions, items)
            span.span_data.response = response
            span.span_data.input = items
        return response

    def _respond(self, instructions: str | None, items: list[Any]) -> Response:
        results: list[Any] = []
        for item in reversed(items):  # this turn's tool results, if any
            if _field(item, "type") != "function_call_output":
                break
            results.insert(0, item)
        output: list[Any]
        if results:
            asked = {_field(i, "call_id"): i for i in items if _field(i, "type") == "function_call"}
            sentences = []
            for result in results:
                call = asked[_field(result, "call_id")]
                args = json.loads(_field(call, "arguments"))
                value = json.loads(_field(result, "output"))
                failed = isinstance(value, dict) and "error" in value
                reason = value["error"] if failed else value
                sentences.append(script.answer_sentence(_field(call, "name"), args, reason, failed))
            output = [_message(" ".join(sentences))]
            tokens = script.ANSWER_TOKENS
        else:
            question = next(
                str(_field(i, "content")) for i in reversed(items) if _field(i, "role") == "user"
            )
            output = [
                ResponseFunctionToolCall(
                    arguments=json.dumps(args), call_id=cid, name=name, type="function_call"
                )
                for cid, name, args in script.planned_calls(question)
            ] or [_message(script.NOTHING_TO_DO)]
            tokens = script.PLAN_TOKENS
        return Response(
            id=f"resp_{uuid.uuid4().hex}",
            created_at=time.time(),
            model=script.MODEL_NAME,
            object="response",
            instructions=instructions,
            output=output,
            parallel_tool_calls=True,
            tool_choice="auto",
            tools=[],
            status="completed",
            usage=ResponseUsage(
                input_tokens=tokens[0],
                input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
                output_tokens=tokens[1],
                output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
                total_tokens=sum(tokens),
            ),
        )


def _field(item: Any, name: str) -> Any:
    """An input item's field: the SDK passes dicts and typed objects alike."""
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{uuid.uuid4().hex}",
        content=[ResponseOutputText(annotations=[], text=text, type="output_text")],
        role="assistant",
        status="completed",
        type="message",
    )


def _tool_failed(_ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model is told when a tool raises: the error, as JSON."""
    return json.dumps({"error": str(error)})


@function_tool(failure_error_function=_tool_failed)
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(tools.get_weather(city))


@function_tool(failure_error_function=_tool_failed)
def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression."""
    return tools.calculator(expression)


def build_agent(model: str | None) -> Agent[Any]:
    return Agent(
        name=script.AGENT_NAME,
        instructions=script.INSTRUCTIONS,
        tools=[get_weather, calculator],
        model=model or ScriptedModel(),
    )


async def _run(agent: Agent[Any], question: str, stream: bool) -> str:
    if not stream:
        return str((await Runner.run(agent, question)).final_output)
    streamed = Runner.run_streamed(agent, question)
    async for _event in streamed.stream_events():
        pass  # a real program would show the events as they come
    return str(streamed.final_output)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", nargs="?", default=script.EXAMPLE_QUESTION)
    parser.add_argument("--model", help="an OpenAI model name; default: the scripted model")
    parser.add_argument("--stream", action="store_true", help="run with Runner.run_streamed")
    args = parser.parse_args(argv)

    provider = tracer_provider("openai-agents-recipe")
    set_trace_processors([])  # not to OpenAI's dashboard: to Iris, below
    OpenAIAgentsInstrumentor().instrument(tracer_provider=provider)
    try:
        output = asyncio.run(_run(build_agent(args.model), args.question, args.stream))
        print(json.dumps({"output": output}))
    finally:
        provider.shutdown()  # flushes the batch to Iris before exiting


if __name__ == "__main__":
    main()
