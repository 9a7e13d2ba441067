"""Any agent → Iris: a hand-written agent loop instrumented by hand with the
OpenTelemetry GenAI semantic conventions, for code no framework instruments.

    python -m recipes.otel_genai_agent "What's the weather in Paris, and what is 23 * 7?"

One ``invoke_agent`` span per run, a ``chat`` span per model call (model and
token usage) and an ``execute_tool`` span per tool call (name, id, arguments
and result), with the messages as ``gen_ai.input.messages`` and
``gen_ai.output.messages`` in the conventions' JSON parts. Iris reads them
as it reads any instrumentation that follows the conventions; the model here
is a scripted stand-in, where a real one's client call would go.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.trace import SpanKind, Status, StatusCode, Tracer

from recipes import script, tools
from recipes.exporter import tracer_provider

MODEL = script.MODEL_NAME
TOOLS: dict[str, Callable[..., Any]] = {
    "get_weather": tools.get_weather,
    "calculator": tools.calculator,
}
TOOL_DEFINITIONS = [
    {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
    {
        "type": "function",
        "name": "calculator",
        "description": "Evaluate an arithmetic expression.",
        "parameters": {
            "type": "object",
            "properties": {"expression": {"type": "string"}},
            "required": ["expression"],
        },
    },
]


@dataclass
class Reply:
    """What a chat model answers: text or tool calls, and the tokens it used."""

    text: str = ""
    calls: list[dict[str, Any]] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0


def scripted_model(messages: list[dict[str, Any]]) -> Reply:
    """``recipes.script`` behind a chat call: ask for the tools the question
    needs, then answer from what they returned."""
    results = [p for p in messages[-1]["parts"] if p["type"] == "tool_call_response"]
    if not results:
        question = messages[-1]["parts"][0]["content"]
        calls = [
            {"id": cid, "name": name, "arguments": args}
            for cid, name, args in script.planned_calls(question)
        ]
        return Reply("" if calls else script.NOTHING_TO_DO, calls, *script.PLAN_TOKENS)
    asked = {c["id"]: c for c in messages[-2]["parts"] if c["type"] == "tool_call"}
    sentences = []
    for result in results:
        call, response = asked[result["id"]], result["response"]
        failed = isinstance(response, dict) and "error" in response
        value = response["error"] if failed else response
        sentences.append(script.answer_sentence(call["name"], call["arguments"], value, failed))
    return Reply(" ".join(sentences), [], *script.ANSWER_TOKENS)


def run_agent(tracer: Tracer, question: str, conversation: str | None) -> str:
    """The agent loop: ask the model, run the tools it calls, until it answers."""
    user = {"role": "user", "parts": [{"type": "text", "content": question}]}
    messages: list[dict[str, Any]] = [user]
    with tracer.start_as_current_span(f"invoke_agent {script.AGENT_NAME}") as run:
        run.set_attributes(
            {
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": script.AGENT_NAME,
                "gen_ai.tool.definitions": json.dumps(TOOL_DEFINITIONS),
                "gen_ai.input.messages": json.dumps([user]),
            }
        )
        if conversation:
            run.set_attribute("gen_ai.conversation.id", conversation)
        for _ in range(10):  # a step budget, as any agent loop should have
            reply = _chat(tracer, messages)
            if not reply.calls:
                answer = {"role": "assistant", "parts": [{"type": "text", "content": reply.text}]}
                run.set_attribute("gen_ai.output.messages", json.dumps([answer]))
                return reply.text
            messages.append(
                {"role": "assistant", "parts": [{"type": "tool_call", **c} for c in reply.calls]}
            )
            messages.append(
                {"role": "tool", "parts": [_execute_tool(tracer, c) for c in reply.calls]}
            )
        run.set_status(Status(StatusCode.ERROR, "step budget exhausted"))
        return ""


def _chat(tracer: Tracer, messages: list[dict[str, Any]]) -> Reply:
    with tracer.start_as_current_span(f"chat {MODEL}", kind=SpanKind.CLIENT) as span:
        span.set_attributes(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "scripted",
                "gen_ai.request.model": MODEL,
                "gen_ai.input.messages": json.dumps(messages),
            }
        )
        reply = scripted_model(messages)  # a real client call goes here
        parts: list[dict[str, Any]] = [{"type": "tool_call", **c} for c in reply.calls]
        if reply.text:
            parts.append({"type": "text", "content": reply.text})
        span.set_attributes(
            {
                "gen_ai.response.model": MODEL,
                "gen_ai.usage.input_tokens": reply.input_tokens,
                "gen_ai.usage.output_tokens": reply.output_tokens,
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
            }
        )
        return reply


def _execute_tool(tracer: Tracer, call: dict[str, Any]) -> dict[str, Any]:
    """Run one tool call in its own span; a failure is recorded on the span
    and handed back to the model as the call's response."""
    with tracer.start_as_current_span(
        f"execute_tool {call['name']}", record_exception=False, set_status_on_exception=False
    ) as span:
        span.set_attributes(
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": call["name"],
                "gen_ai.tool.call.id": call["id"],
                "gen_ai.tool.call.arguments": json.dumps(call["arguments"]),
            }
        )
        try:
            response: Any = TOOLS[call["name"]](**call["arguments"])
        except Exception as exc:
            span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, str(exc)))
            span.set_attribute("error.type", type(exc).__qualname__)
            response = {"error": str(exc)}
        else:
            span.set_attribute("gen_ai.tool.call.result", json.dumps(response))
        return {"type": "tool_call_response", "id": call["id"], "response": response}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", nargs="?", default=script.EXAMPLE_QUESTION)
    parser.add_argument("--conversation", help="gen_ai.conversation.id: groups runs into a session")
    args = parser.parse_args(argv)

    provider = tracer_provider("otel-genai-recipe")
    try:
        answer = run_agent(
            provider.get_tracer("recipes.otel_genai_agent"), args.question, args.conversation
        )
        print(json.dumps({"output": answer}))
    finally:
        provider.shutdown()  # flushes the batch to Iris before exiting


if __name__ == "__main__":
    main()
