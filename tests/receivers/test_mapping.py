"""Mapping rules on hand-built spans: kinds, precedence, iris.* steering, legacy conventions."""

from __future__ import annotations

import json
from typing import Any

from receivers.mapping import classify_span, derive_trace
from receivers.messages import answer_from_value, ask_from_value, is_python_repr
from receivers.spans import SpanEventRecord, SpanRecord

T = "0af7651916cd43dd8448eb211c80319c"


def span(
    sid: str,
    name: str = "s",
    parent: str | None = None,
    start: int = 1_000_000_000,
    end: int = 2_000_000_000,
    resource: dict[str, Any] | None = None,
    events: list[SpanEventRecord] | None = None,
    status: str = "UNSET",
    kind: str = "INTERNAL",
    **attrs: Any,
) -> SpanRecord:
    return SpanRecord(
        trace_id=T,
        span_id=sid,
        name=name,
        parent_span_id=parent,
        kind=kind,
        start_unix_nano=start,
        end_unix_nano=end,
        status_code=status,
        attributes={k.replace("__", "."): v for k, v in attrs.items()},
        events=events or [],
        resource=resource or {},
    )


def test_classify_span_rules() -> None:
    assert classify_span(span("1", **{"gen_ai__tool__name": "x"})) == "TOOL"
    assert classify_span(span("1", **{"gen_ai__operation__name": "execute_tool"})) == "TOOL"
    assert classify_span(span("1", **{"openinference__span__kind": "TOOL"})) == "TOOL"
    assert classify_span(span("1", **{"langsmith__span__kind": "tool"})) == "TOOL"
    assert classify_span(span("1", **{"traceloop__span__kind": "tool"})) == "TOOL"
    assert classify_span(span("1", **{"ai__toolCall__name": "t"})) == "TOOL"
    assert classify_span(span("1", **{"gen_ai__operation__name": "invoke_agent"})) == "AGENT"
    assert classify_span(span("1", name="agent run")) == "AGENT"
    assert (
        classify_span(
            span("1", **{"gen_ai__request__model": "m", "gen_ai__tool__definitions": "[]"})
        )
        == "LLM"
    )
    assert classify_span(span("1", **{"llm__model_name": "m"})) == "LLM"
    assert classify_span(span("1", **{"langsmith__span__kind": "LLM"})) == "LLM"
    assert classify_span(span("1", kind="SERVER")) == "SERVER"


def test_agent_name_falls_back_to_service_name_then_otel() -> None:
    d = derive_trace([span("1", resource={"service.name": "billing-bot"})])
    assert d.agent_name == "billing-bot" and "service.name" not in d.lacked
    d = derive_trace([span("1", resource={"service.name": "unknown_service:python"})])
    assert d.agent_name == "otel" and "service.name" in d.lacked
    d = derive_trace(
        [
            span(
                "1",
                resource={"service.name": "svc", "iris.agent_name": "mine"},
                **{"gen_ai__agent__name": "other"},
            )
        ]
    )
    assert d.agent_name == "mine"


def test_placeholder_agent_name_is_ignored() -> None:
    d = derive_trace(
        [
            span("1", **{"gen_ai__agent__name": "OpenAI Agent", "gen_ai__operation__name": "chat"}),
            span(
                "2",
                parent="1",
                start=1_100_000_000,
                **{"gen_ai__agent__name": "real", "gen_ai__operation__name": "invoke_agent"},
            ),
        ]
    )
    assert d.agent_name == "real"


def test_iris_attributes() -> None:
    root = span(
        "1",
        resource={"service.name": "svc", "iris.evaluate": "true", "iris.eval_type": "safety"},
        **{
            "iris__input": "the ask",
            "iris__output": "the answer",
            "iris__run": "nightly-1",
            "iris__case_key": "case-7",
            "iris__cost_usd": 0.25,
            "iris__prompt_tokens": 10,
            "iris__completion_tokens": 5,
        },
    )
    child = span("2", parent="1", **{"iris__finalize": True, "gen_ai__usage__cost": 9.0})
    d = derive_trace([child, root])
    assert (d.input, d.output, d.run, d.case_key) == (
        "the ask",
        "the answer",
        "nightly-1",
        "case-7",
    )
    assert d.evaluate is True and d.eval_type == "safety"
    assert d.finalize_requested is True
    assert d.cost_usd == 0.25 and d.cost_source == "reported"
    assert d.token_usage is not None and d.token_usage.total_tokens == 15
    d2 = derive_trace([span("1", **{"iris__evaluate": False})])
    assert d2.evaluate is False and d2.finalize_requested is False


def test_reported_cost_sums_leaf_carriers() -> None:
    d = derive_trace(
        [
            span("1", **{"llm__usage__total_cost": 1.0}),
            span("2", parent="1", **{"gen_ai__usage__cost": 0.5, "gen_ai__request__model": "m"}),
            span("3", parent="1", **{"gen_ai__usage__cost": 0.25, "gen_ai__request__model": "m"}),
        ]
    )
    assert d.cost_usd == 0.75


def test_tokens_not_double_counted_through_agent_totals() -> None:
    d = derive_trace(
        [
            span(
                "1",
                **{
                    "gen_ai__operation__name": "invoke_agent",
                    "gen_ai__usage__input_tokens": 30,
                    "gen_ai__usage__output_tokens": 6,
                },
            ),
            span(
                "2",
                parent="1",
                **{"gen_ai__usage__input_tokens": 10, "gen_ai__usage__output_tokens": 2},
            ),
            span(
                "3",
                parent="1",
                **{"gen_ai__usage__input_tokens": 20, "gen_ai__usage__output_tokens": 4},
            ),
        ]
    )
    assert d.token_usage is not None
    assert (d.token_usage.prompt_tokens, d.token_usage.completion_tokens) == (30, 6)


def test_python_reprs_are_not_input_or_output() -> None:
    assert is_python_repr("StopEvent(result='x')")
    assert is_python_repr("{'city': 'Paris'}")
    assert not is_python_repr("Hello (world)")
    d = derive_trace(
        [
            span(
                "1",
                **{
                    "input__value": "StartEvent()",
                    "output__value": "StopEvent(result=CompletionResponse())",
                },
            )
        ]
    )
    assert d.input is None and d.output is None
    assert {"input", "output"} <= set(d.lacked)


def test_message_list_reduction() -> None:
    msgs = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": [{"type": "text", "text": "second question"}]},
        {"role": "assistant", "content": "second answer"},
    ]
    assert ask_from_value(json.dumps(msgs)) == "second question"
    assert answer_from_value(json.dumps(msgs)) == "second answer"
    tool_only = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c", "name": "t"}]}]
    assert answer_from_value(json.dumps(tool_only)) is None
    assert ask_from_value(json.dumps({"question": "q?"})) == "q?"
    lc = {
        "messages": [
            {"type": "human", "data": {"content": "hi"}},
            {"type": "ai", "data": {"content": "hello"}},
        ]
    }
    assert ask_from_value(json.dumps(lc)) == "hi" and answer_from_value(json.dumps(lc)) == "hello"


def test_legacy_genai_attributes_and_events() -> None:
    d = derive_trace(
        [
            span(
                "1",
                **{
                    "gen_ai__prompt__0__role": "user",
                    "gen_ai__prompt__0__content": "legacy ask",
                    "gen_ai__completion__0__content": "legacy answer",
                    "llm__request__type": "chat",
                },
            )
        ]
    )
    assert (d.input, d.output) == ("legacy ask", "legacy answer")
    ev = [
        SpanEventRecord("gen_ai.user.message", 1, {"content": "event ask"}),
        SpanEventRecord("gen_ai.choice", 2, {"message": {"content": "event answer"}}),
    ]
    d = derive_trace([span("1", events=ev, **{"gen_ai__request__model": "m"})])
    assert (d.input, d.output) == ("event ask", "event answer")
    ev = [
        SpanEventRecord("gen_ai.content.prompt", 1, {"gen_ai.prompt": "p"}),
        SpanEventRecord("gen_ai.content.completion", 2, {"gen_ai.completion": "c"}),
    ]
    d = derive_trace([span("1", events=ev)])
    assert (d.input, d.output) == ("p", "c")


def test_langsmith_session_and_kinds() -> None:
    d = derive_trace(
        [
            span(
                "1",
                name="my_chain",
                **{
                    "langsmith__span__kind": "chain",
                    "langsmith__trace__name": "my_chain",
                    "langsmith__metadata__thread_id": "th-1",
                },
            ),
            span(
                "2", parent="1", **{"langsmith__span__kind": "tool", "gen_ai__prompt": '{"x": 1}'}
            ),
        ]
    )
    assert d.session_id == "th-1"
    assert d.agent_name == "my_chain"
    assert [s.kind for s in d.spans] == ["INTERNAL", "TOOL"]
    assert d.framework == "langchain"


def test_orphans_and_status() -> None:
    d = derive_trace([span("2", parent="9"), span("3", parent="2", start=1_500_000_000)])
    assert d.root_span_id == "2" and d.has_root is False and "root_span" in d.lacked
    d = derive_trace(
        [
            span("1"),
            span("2", parent="1", status="ERROR", **{"gen_ai__operation__name": "invoke_agent"}),
        ]
    )
    assert d.status == "error"
    d = derive_trace(
        [span("1"), span("2", parent="1", status="ERROR", **{"gen_ai__tool__name": "t"})]
    )
    assert d.status == "ok"
    assert d.tool_calls is not None and d.tool_calls[0].error == "error"


def test_kwargs_capture_reads_as_kwargs() -> None:
    d = derive_trace(
        [
            span(
                "1",
                **{
                    "openinference__span__kind": "TOOL",
                    "tool__name": "t",
                    "input__value": '{"args": [], "kwargs": {"a": 1}}',
                    "input__mime_type": "application/json",
                },
            )
        ]
    )
    assert d.tool_calls is not None and d.tool_calls[0].input == {"a": 1}


def test_no_tool_spans_means_no_tool_calls() -> None:
    assert derive_trace([span("1")]).tool_calls is None


def _one_argument_run(bare: str, requested: dict[str, Any], call_id: str = "c1") -> Any:
    """A LangChain-style run: the model asks for a call, the tool span keeps
    only the bare value of its one argument (OpenInference ``input.value``)."""
    model = span(
        "m",
        parent="r",
        **{
            "openinference__span__kind": "LLM",
            "llm__model_name": "m",
            "llm__output_messages__0__message__role": "assistant",
            "llm__output_messages__0__message__tool_calls__0__tool_call__id": call_id,
            "llm__output_messages__0__message__tool_calls__0__tool_call__function__name": "calc",
            "llm__output_messages__0__message__tool_calls__0__tool_call__function__arguments": (
                json.dumps(requested)
            ),
        },
    )
    tool = span(
        "t",
        parent="r",
        start=3_000_000_000,
        end=4_000_000_000,
        **{"openinference__span__kind": "TOOL", "tool__name": "calc", "input__value": bare},
    )
    [call] = derive_trace([span("r", name="graph"), model, tool]).tool_calls or ()
    return call.input


def test_a_bare_argument_takes_its_name_from_the_models_request() -> None:
    assert _one_argument_run("23 * 7", {"expression": "23 * 7"}) == {"expression": "23 * 7"}
    assert _one_argument_run("5", {"n": 5}) == {"n": 5}
    assert _one_argument_run("True", {"flag": True}) == {"flag": True}


def test_a_bare_value_the_request_does_not_match_stays_as_recorded() -> None:
    assert _one_argument_run("23 * 7", {"expression": "2 + 2"}) == "23 * 7"
    assert _one_argument_run("23 * 7", {"a": "23 * 7", "b": "x"}) == "23 * 7"
    assert _one_argument_run("a, b", {"items": ["a", "b"]}) == "a, b"
