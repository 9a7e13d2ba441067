"""Every captured fixture, decoded (protobuf and JSON) and derived, checked field by field.

Expected values are literals taken from /work/shared/fixtures/README.md (the
scenarios table and the per-framework "where each field lives" tables), not
from this code's output. Where the README only fixes a rule (e.g. "fixed
token usage per call, the same across frameworks"), the literal is that
cross-framework constant and the comment says so.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from receivers.mapping import DerivedTrace, derive_trace, group_by_trace
from tests.receivers.fixtures_support import all_scenarios, load_spans, needs_fixtures

pytestmark = needs_fixtures

ANY = object()  # "not asserted": the README does not fix this value

Q_PARIS = "What's the weather in Paris right now, and what is 23 * 7?"
A_PARIS = "In Paris it is currently 18.5°C and partly cloudy. And 23 × 7 = 161."
Q_ATLANTIS = "What's the weather like in Atlantis?"
A_ATLANTIS_START = "I couldn't get the weather for Atlantis"
Q_TOKYO = "What's the weather in Tokyo?"
Q_FAHRENHEIT = "Convert that temperature to Fahrenheit."
A_FAHRENHEIT = "24°C is 75.2°F."
PARIS_WEATHER = {
    "city": "Paris",
    "temperature_c": 18.5,
    "condition": "partly cloudy",
    "humidity": 0.62,
}
PARIS_ARGS = {"city": "Paris", "units": "celsius"}
ATLANTIS_ARGS = {"city": "Atlantis", "units": "celsius"}
MUL_ARGS = {"expression": "23 * 7"}
TIMEOUT = "weather backend timed out after 5.0s (upstream 504)"
UNKNOWN_CITY = "Unknown city: 'Atlantis'"
REDACTED = "Error running tool (non-fatal)"  # OpenAI Agents SDK redacts handled errors
# Fixed per-call usage of the fake model (README: identical across frameworks):
# tools_ok 112/36 + 171/29; tool_error 96/14 + 150/27; tool_exception one call 112/36;
# multi_turn turn 1 = 2 calls, turn 2 = 2 calls with the longer history.
TOK_TOOLS_OK = (283, 65, 348)
TOK_TOOL_ERROR = (246, 41, 287)
TOK_TOOL_EXCEPTION = (112, 36, 148)
TOK_TURN1 = (235, 29, 264)
TOK_TURN2 = (410, 29, 439)


@dataclass
class Tool:
    name: str
    args: Any = ANY
    result: Any = ANY
    error: Any = None  # None = must not be an error; str = substring of the error; ANY
    call_id: Any = ANY


@dataclass
class Expect:
    agent: str = "weather_assistant"
    framework: str = ANY  # type: ignore[assignment]
    input: Any = ANY
    output: Any = ANY
    output_startswith: str | None = None
    tools: list[Tool] | None = None
    tokens: Any = ANY
    model: Any = ANY
    session: Any = ANY  # exact, or prefix when it ends with "*"
    status: str = "ok"
    spans: int | None = None
    lacked_contains: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Scenario:
    traces: list[Expect]
    total_spans: int
    error_spans: int


def paris_tools(
    calc_args: Any = MUL_ARGS,
    ids: bool = True,
    results: bool = True,
    weather_args: Any = PARIS_ARGS,
) -> list[Tool]:
    return [
        Tool(
            "get_weather",
            weather_args,
            PARIS_WEATHER if results else None,
            None,
            "call_w_par" if ids else ANY,
        ),
        Tool(
            "calculator", calc_args, "161" if results else None, None, "call_c_mul" if ids else ANY
        ),
    ]


def _fw(name: str, model: Any, session: Any, **kw: Any) -> dict[str, Any]:
    return {"framework": name, "model": model, "session": session, **kw}


PYD = {"framework": "pydantic-ai", "model": "fake-gpt-4o-mini"}
LG = {"framework": "langgraph", "model": "fake-gpt-4o-mini"}
OA = {"framework": "openai-agents", "model": "fake-gpt-4o-mini", "session": None}
OA_CC = {"framework": "openai-agents", "model": "gpt-4o-mini", "session": None}
V2 = {"framework": "openai", "model": "gpt-4o-mini"}
CREW = {"framework": "crewai", "model": None, "session": None, "agent": "weather_crew"}


def tools_ok(
    base: dict[str, Any], spans: int, session: Any, calc_args: Any = MUL_ARGS, ids: bool = True
) -> Scenario:
    return Scenario(
        [
            Expect(
                input=Q_PARIS,
                output=A_PARIS,
                tools=paris_tools(calc_args, ids=ids),
                tokens=TOK_TOOLS_OK,
                spans=spans,
                **{"session": session, **base},
            )
        ],
        spans,
        0,
    )


def tool_error(
    base: dict[str, Any], spans: int, session: Any, err: str, result: Any = ANY
) -> Scenario:
    return Scenario(
        [
            Expect(
                input=Q_ATLANTIS,
                output_startswith=A_ATLANTIS_START,
                tools=[Tool("get_weather", ATLANTIS_ARGS, result, err, ANY)],
                tokens=TOK_TOOL_ERROR,
                spans=spans,
                **{"session": session, **base},
            )
        ],
        spans,
        1,
    )


def tool_exception(
    base: dict[str, Any], spans: int, session: Any, calc: Tool, error_spans: int
) -> Scenario:
    return Scenario(
        [
            Expect(
                input=Q_PARIS,
                output=None,
                status="error",
                tools=[Tool("get_weather", PARIS_ARGS, None, TIMEOUT, "call_w_par"), calc],
                tokens=TOK_TOOL_EXCEPTION,
                spans=spans,
                lacked_contains=("output",),
                **{"session": session, **base},
            )
        ],
        spans,
        error_spans,
    )


def multi_turn(
    base: dict[str, Any],
    spans: tuple[int, int],
    session: Any,
    calc_args: Any = None,
) -> Scenario:
    if calc_args is None:
        calc_args = {"expression": "24 * 9 / 5 + 32"}
    return Scenario(
        [
            Expect(
                input=Q_TOKYO,
                output=ANY,
                spans=spans[0],
                tokens=TOK_TURN1,
                tools=[
                    Tool(
                        "get_weather",
                        {"city": "Tokyo", "units": "celsius"},
                        {
                            "city": "Tokyo",
                            "temperature_c": 24.0,
                            "condition": "sunny",
                            "humidity": 0.55,
                        },
                        None,
                        "call_w_tky",
                    )
                ],
                extra={"output_contains": ("Tokyo", "24")},
                **{"session": session, **base},
            ),
            Expect(
                input=Q_FAHRENHEIT,
                output=A_FAHRENHEIT,
                spans=spans[1],
                tokens=TOK_TURN2,
                tools=[Tool("calculator", calc_args, "75.2", None, "call_c_f")],
                **{"session": session, **base},
            ),
        ],
        sum(spans),
        0,
    )


EXPECTED: dict[tuple[str, str], Scenario] = {
    # --- pydantic_ai (v5): gen_ai.* + pydantic extras; handled errors via exception events
    ("pydantic_ai", "tools_ok"): tools_ok(PYD, 5, "conv-pyd-*"),
    ("pydantic_ai", "tools_ok_grpc"): tools_ok(PYD, 5, "conv-pyd-*"),
    ("pydantic_ai", "tool_error"): tool_error(PYD, 4, "conv-pyd-*", "Atlantis", UNKNOWN_CITY),
    ("pydantic_ai", "tool_exception"): tool_exception(
        PYD, 4, "conv-pyd-*", Tool("calculator", MUL_ARGS, None, "CancelledError"), 3
    ),
    ("pydantic_ai", "tool_retry"): Scenario(
        [
            Expect(
                output=ANY,
                tokens=ANY,
                spans=6,
                session="conv-pyd-*",
                tools=[
                    Tool("calculator", ANY, ANY, "Invalid expression"),
                    Tool("calculator", ANY, "38.75", None),
                ],
                extra={"output_contains": ("$38.75",)},
                **PYD,
            )
        ],
        6,
        1,
    ),
    ("pydantic_ai", "multi_turn"): multi_turn(PYD, (4, 4), "conv-pyd-*"),
    # --- pydantic_ai_v2: "agent run" / "running tool", tool_arguments / tool_response
    ("pydantic_ai_v2", "tools_ok"): tools_ok(PYD, 5, "conv-pyd-*"),
    ("pydantic_ai_v2", "tool_error"): tool_error(PYD, 4, "conv-pyd-*", "Atlantis", UNKNOWN_CITY),
    ("pydantic_ai_v2", "tool_exception"): tool_exception(
        PYD, 4, "conv-pyd-*", Tool("calculator", MUL_ARGS, None, "CancelledError"), 3
    ),
    ("pydantic_ai_v2", "tool_retry"): Scenario(
        [
            Expect(
                output=ANY,
                spans=6,
                session="conv-pyd-*",
                tools=[
                    Tool("calculator", ANY, ANY, "Invalid expression"),
                    Tool("calculator", ANY, "38.75", None),
                ],
                extra={"output_contains": ("$38.75",)},
                **PYD,
            )
        ],
        6,
        1,
    ),
    ("pydantic_ai_v2", "multi_turn"): multi_turn(PYD, (4, 4), "conv-pyd-*"),
    # --- langgraph (OpenInference langchain): agent = root span name; session.id
    # (a tool of one argument keeps only its value on its span, "23 * 7"; the model's
    # request with the same call id names it)
    ("langgraph", "tools_ok"): tools_ok(LG, 10, "thread-lg-*"),
    ("langgraph", "tool_error"): tool_error(LG, 9, "thread-lg-*", "Atlantis", result=ANY),
    ("langgraph", "tool_exception"): tool_exception(
        LG, 7, "thread-lg-*", Tool("calculator", MUL_ARGS, "161", None, "call_c_mul"), 3
    ),
    ("langgraph", "multi_turn"): multi_turn(LG, (9, 9), "thread-lg-*"),
    # --- crewai (OpenInference, wrapper mode): no LLM spans, no model, tokens in root JSON
    # (call ids and the error text the model saw come from the task span's messages)
    ("crewai", "tools_ok"): Scenario(
        [
            Expect(
                input=Q_PARIS,
                output=A_PARIS,
                tools=paris_tools(),
                tokens=TOK_TOOLS_OK,
                spans=4,
                lacked_contains=("model",),
                **CREW,
            )
        ],
        4,
        0,
    ),
    ("crewai", "tool_error"): Scenario(
        [
            Expect(
                input=Q_ATLANTIS,
                output_startswith=A_ATLANTIS_START,
                spans=3,
                tools=[
                    Tool(
                        "get_weather",
                        ATLANTIS_ARGS,
                        "Error executing tool: " + UNKNOWN_CITY,
                        UNKNOWN_CITY,
                        "call_w_atl",
                    )
                ],
                **CREW,
            )
        ],
        3,
        1,
    ),
    ("crewai", "multi_step"): Scenario(
        [
            Expect(
                output=A_FAHRENHEIT,
                spans=5,
                extra={"crew_root_tokens": True},
                tools=[
                    Tool("get_weather", {"city": "Tokyo", "units": "celsius"}),
                    Tool("calculator", ANY, "75.2", None),
                ],
                **CREW,
            )
        ],
        5,
        0,
    ),
    # --- openai_agents (OpenInference): content only on LLM spans; call ids recovered
    ("openai_agents", "tools_ok"): tools_ok(OA, 9, None),
    ("openai_agents", "tool_error"): tool_error(
        OA, 8, None, REDACTED, "An error occurred while running the tool. Please try again."
    ),
    ("openai_agents", "tool_exception"): tool_exception(
        OA, 7, None, Tool("calculator", MUL_ARGS, ANY, None), 2
    ),
    ("openai_agents", "multi_turn"): multi_turn(OA, (8, 8), None),
    ("openai_agents_chatcmpl", "tools_ok"): tools_ok(OA_CC, 9, None),
    ("openai_agents_chatcmpl", "tool_error"): tool_error(
        OA_CC, 8, None, REDACTED, "An error occurred while running the tool. Please try again."
    ),
    # --- openai_agents_otel_genai: agent name only on invoke_agent; placeholders elsewhere
    ("openai_agents_otel_genai", "tools_ok"): tools_ok(OA, 9, None),
    ("openai_agents_otel_genai", "tool_error"): tool_error(OA, 8, None, REDACTED),
    ("openai_agents_otel_genai", "tool_exception"): tool_exception(
        OA, 7, None, Tool("calculator", MUL_ARGS, ANY, None), 2
    ),
    ("openai_agents_otel_genai", "multi_turn"): multi_turn(OA, (8, 8), None),
    # --- openai_v2 (official GenAI semconv via util-genai)
    ("openai_v2", "tools_ok"): tools_ok(V2, 5, "conv-v2-*"),
    ("openai_v2", "stream_with_usage"): tools_ok(V2, 5, "conv-v2-*"),
    ("openai_v2", "stream_no_usage"): Scenario(
        [
            Expect(
                input=Q_PARIS,
                output=A_PARIS,
                tools=paris_tools(),
                tokens=None,
                spans=5,
                session="conv-v2-*",
                lacked_contains=("token_usage",),
                **V2,
            )
        ],
        5,
        0,
    ),
    ("openai_v2", "tool_error"): tool_error(V2, 4, "conv-v2-*", "UnknownCityError", None),
    ("openai_v2", "multi_turn"): multi_turn(V2, (4, 4), "conv-v2-*"),
    ("openai_v2_no_content", "tools_ok"): Scenario(
        [
            Expect(
                input=None,
                output=None,
                tools=paris_tools(calc_args=None, results=False, weather_args=None),
                tokens=TOK_TOOLS_OK,
                spans=5,
                session="conv-v2-*",
                lacked_contains=("input", "output"),
                **V2,
            )
        ],
        5,
        0,
    ),
    # event_only: chat content from log records; tool args/results captured nowhere on the
    # tool spans, so arguments come from the model's tool_call parts (matched by call id).
    ("openai_v2_event_only", "tools_ok"): Scenario(
        [
            Expect(
                input=Q_PARIS,
                output=A_PARIS,
                tools=paris_tools(results=False),
                tokens=TOK_TOOLS_OK,
                spans=5,
                session="conv-v2-*",
                **V2,
            )
        ],
        5,
        0,
    ),
}


def _derive(directory: str, scenario: str, fmt: str) -> list[DerivedTrace]:
    spans = load_spans(directory, scenario, fmt)
    traces = [derive_trace(group) for group in group_by_trace(spans).values()]
    return sorted(traces, key=lambda t: t.timestamp or "")


def test_every_fixture_has_expectations() -> None:
    assert sorted(EXPECTED) == all_scenarios()


def _check_tool(actual: Any, want: Tool, where: str) -> None:
    assert actual.tool_name == want.name, where
    if want.args is not ANY:
        assert actual.input == want.args, where
    if want.result is not ANY:
        if isinstance(want.result, str):
            assert str(actual.output) == want.result or want.result in str(actual.output), where
        else:
            assert actual.output == want.result, where
    if want.error is None:
        assert actual.error is None, f"{where}: unexpected error {actual.error!r}"
    elif want.error is not ANY:
        assert actual.error and want.error in actual.error, f"{where}: {actual.error!r}"
    if want.call_id is not ANY:
        assert actual.call_id == want.call_id, where
    assert actual.latency_ms is not None and actual.latency_ms >= 0, where
    assert actual.started_at and actual.started_at.endswith("Z"), where


@pytest.mark.parametrize("fmt", ["pb", "json"])
@pytest.mark.parametrize(("directory", "scenario"), sorted(EXPECTED))
def test_fixture_derives_as_documented(directory: str, scenario: str, fmt: str) -> None:
    spec = EXPECTED[(directory, scenario)]
    traces = _derive(directory, scenario, fmt)
    assert len(traces) == len(spec.traces), "trace count"
    assert sum(len(t.spans) for t in traces) == spec.total_spans, "span count"
    assert sum(1 for t in traces for s in t.spans if s.status_code == "ERROR") == spec.error_spans
    for i, (got, want) in enumerate(zip(traces, spec.traces, strict=True)):
        where = f"{directory}/{scenario}.{fmt} trace {i}"
        assert got.agent_name == want.agent, where
        if want.framework is not ANY:
            assert got.framework == want.framework, where
        if want.input is not ANY:
            assert got.input == want.input, where
        if want.output is not ANY:
            assert got.output == want.output, where
        if want.output_startswith:
            assert got.output and got.output.startswith(want.output_startswith), where
        for needle in want.extra.get("output_contains", ()):
            assert got.output and needle in got.output, where
        if want.model is not ANY:
            assert got.metadata.get("model") == want.model, where
        if want.session is not ANY:
            if isinstance(want.session, str) and want.session.endswith("*"):
                assert got.session_id and got.session_id.startswith(want.session[:-1]), where
            else:
                assert got.session_id == want.session, where
        if want.tokens is None:
            assert got.token_usage is None, where
        elif want.tokens is not ANY:
            tu = got.token_usage
            assert tu is not None, where
            assert (tu.prompt_tokens, tu.completion_tokens, tu.total_tokens) == want.tokens, where
        assert got.status == want.status, where
        if want.spans is not None:
            assert len(got.spans) == want.spans, where
        for item in want.lacked_contains:
            assert item in got.lacked, where
        if want.tools is not None:
            assert got.tool_calls is not None, where
            assert [c.tool_name for c in got.tool_calls] == [t.name for t in want.tools], where
            for j, (call, tool) in enumerate(zip(got.tool_calls, want.tools, strict=True)):
                _check_tool(call, tool, f"{where} tool {j}")
        # Always true for these captures.
        assert got.has_root and got.root_span_id is not None, where
        assert got.timestamp and got.timestamp.endswith("Z"), where
        assert got.latency_ms is not None and got.latency_ms > 0, where
        assert got.input is None or "helpful assistant" not in got.input, where
        assert got.cost_usd is None and got.cost_source is None, where
        assert got.finalize_requested is False and got.evaluate is None, where


def test_crewai_multi_step_tokens_come_from_root_crew_output() -> None:
    """CrewAI's only token figures are the crew totals inside the root output JSON."""
    import json

    spans = load_spans("crewai", "multi_step", "pb")
    root = next(s for s in spans if s.parent_span_id is None)
    usage = json.loads(root.attributes["output.value"])["token_usage"]
    tu = derive_trace(spans).token_usage
    assert tu is not None
    assert (tu.prompt_tokens, tu.completion_tokens, tu.total_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
        usage["total_tokens"],
    )


def test_tools_catalogue_from_definitions_and_openinference_schemas() -> None:
    pyd = derive_trace(load_spans("pydantic_ai", "tools_ok", "pb"))
    assert pyd.tools is not None
    names = {t.name for t in pyd.tools}
    assert names == {"get_weather", "calculator"}
    weather = next(t for t in pyd.tools if t.name == "get_weather")
    assert weather.input_schema and weather.input_schema["required"] == ["city"]
    lg = derive_trace(load_spans("langgraph", "tools_ok", "pb"))
    assert lg.tools is not None and {t.name for t in lg.tools} == {"get_weather", "calculator"}
    calc = next(t for t in lg.tools if t.name == "calculator")
    assert calc.input_schema and "expression" in calc.input_schema["properties"]


def test_spans_carry_iris_kinds() -> None:
    d = derive_trace(load_spans("openai_v2", "tools_ok", "pb"))
    kinds = {s.name: s.kind for s in d.spans}
    assert kinds["chat gpt-4o-mini"] == "LLM"
    assert kinds["execute_tool get_weather"] == "TOOL"
    assert kinds["invoke_agent weather_assistant"] == "INTERNAL"
    lg = derive_trace(load_spans("langgraph", "tools_ok", "pb"))
    lg_kinds = {s.name: s.kind for s in lg.spans}
    assert lg_kinds["ScriptedChatModel"] == "LLM"
    assert lg_kinds["get_weather"] == "TOOL"
    assert lg_kinds["tools_condition"] == "INTERNAL"


MULTI_PART = [(d, s) for (d, s) in sorted(EXPECTED) if "multi" in s]


def _comparable(t: DerivedTrace) -> tuple[Any, ...]:
    return (
        t.agent_name,
        t.framework,
        t.input,
        t.output,
        t.tool_calls,
        t.latency_ms,
        t.token_usage,
        t.cost_usd,
        t.metadata,
        t.spans,
        t.tools,
        t.session_id,
        t.timestamp,
        t.root_span_id,
        t.has_root,
        t.status,
        t.lacked,
    )


@pytest.mark.parametrize(("directory", "scenario"), MULTI_PART)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_shuffled_parts_and_spans_derive_the_same(directory: str, scenario: str, seed: int) -> None:
    baseline = {t.trace_id: _comparable(t) for t in _derive(directory, scenario, "pb")}
    spans = load_spans(directory, scenario, "pb")
    rng = random.Random(seed)
    rng.shuffle(spans)
    shuffled = {
        tid: _comparable(derive_trace(group)) for tid, group in group_by_trace(spans).items()
    }
    assert shuffled == baseline


@pytest.mark.parametrize(("directory", "scenario"), MULTI_PART)
def test_partial_trace_without_root_has_provisional_root(directory: str, scenario: str) -> None:
    """Before the last request arrives the root is absent: an orphan stands in for it."""
    from receivers.otlp.decode import decode_traces_protobuf
    from tests.receivers.fixtures_support import scenario_parts

    first = decode_traces_protobuf(scenario_parts(directory, scenario, "pb")[0].read_bytes())
    for group in group_by_trace(first.spans).values():
        d = derive_trace(group)
        assert d.root_span_id is not None
        if not any(s.parent_span_id is None for s in group):
            assert d.has_root is False
            assert "root_span" in d.lacked
