"""LangGraph → Iris: a tool-calling graph traced by the OpenInference
LangChain instrumentation and exported to Iris over OTLP/HTTP.

    python -m recipes.langgraph_agent "What's the weather in Paris, and what is 23 * 7?"

The graph is LangGraph's usual agent loop: a model node, a ``ToolNode`` and
``tools_condition`` between them. Without a model of yours it runs on a
scripted chat model, so the recipe needs no key and no network but Iris;
swap ``ScriptedChatModel()`` for ``ChatOpenAI(model="gpt-4o-mini")`` (or any
chat model that binds tools) for a real one. The Iris-specific part is the
tracer provider handed to ``LangChainInstrumentor``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from openinference.instrumentation.langchain import LangChainInstrumentor

from recipes import script, tools
from recipes.exporter import tracer_provider


class ScriptedChatModel(BaseChatModel):
    """A stand-in for an LLM: first ask for the tools the question needs, then
    answer from what they returned, reporting fixed token counts as a
    provider would."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self  # the script knows its two tools  # type: ignore[return-value]

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        results: list[ToolMessage] = []
        for message in reversed(messages):  # this turn's tool results, if any
            if not isinstance(message, ToolMessage):
                break
            results.insert(0, message)
        if results:
            sentences = [_sentence(m, _call_args(messages, m)) for m in results]
            reply = AIMessage(" ".join(sentences), usage_metadata=_usage(script.ANSWER_TOKENS))
        else:
            question = next(
                str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)
            )
            calls = [
                ToolCall(name=name, args=args, id=cid)
                for cid, name, args in script.planned_calls(question)
            ]
            text = "" if calls else script.NOTHING_TO_DO
            reply = AIMessage(text, tool_calls=calls, usage_metadata=_usage(script.PLAN_TOKENS))
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _call_args(messages: list[BaseMessage], result: ToolMessage) -> dict[str, Any]:
    """The arguments of the call ``result`` answers, from the model's message."""
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                if call["id"] == result.tool_call_id:
                    return dict(call["args"])
    return {}


def _sentence(result: ToolMessage, args: dict[str, Any]) -> str:
    failed = result.status == "error"
    content: Any = result.content
    if result.name == "get_weather" and not failed:
        content = json.loads(str(content))
    return script.answer_sentence(str(result.name), args, content, failed)


def _usage(tokens: tuple[int, int]) -> UsageMetadata:
    return {"input_tokens": tokens[0], "output_tokens": tokens[1], "total_tokens": sum(tokens)}


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return json.dumps(tools.get_weather(city))


@tool
def calculator(expression: str) -> float:
    """Evaluate an arithmetic expression."""
    return tools.calculator(expression)


def build_graph(model: BaseChatModel) -> CompiledStateGraph[Any, Any, Any, Any]:
    bound = model.bind_tools([get_weather, calculator])

    def agent(state: MessagesState) -> dict[str, list[BaseMessage]]:
        return {"messages": [bound.invoke([("system", script.INSTRUCTIONS), *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    # a failed tool goes back to the model as an error message, not an exception
    graph.add_node("tools", ToolNode([get_weather, calculator], handle_tool_errors=str))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=InMemorySaver(), name=script.AGENT_NAME)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("question", nargs="?", default=script.EXAMPLE_QUESTION)
    parser.add_argument("--thread", default="thread-1", help="LangGraph thread id (a session)")
    args = parser.parse_args(argv)

    provider = tracer_provider("langgraph-recipe")
    LangChainInstrumentor().instrument(tracer_provider=provider)
    graph = build_graph(ScriptedChatModel())
    try:
        state = graph.invoke(
            {"messages": [HumanMessage(args.question)]},
            config={"configurable": {"thread_id": args.thread}},
        )
        print(json.dumps({"output": str(state["messages"][-1].content)}))
    finally:
        provider.shutdown()  # flushes the batch to Iris before exiting


if __name__ == "__main__":
    main()
