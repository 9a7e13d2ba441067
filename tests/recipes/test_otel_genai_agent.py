"""recipes/otel_genai_agent.py: spans written by hand to the OpenTelemetry
GenAI conventions, exported over OTLP/HTTP to a live server, become a judged
Iris trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recipes.support import judged_traces, rule, run_recipe
from tests.support.live import live_server

pytestmark = pytest.mark.slow


def test_a_run_with_two_tools_is_stored_whole_and_judged(tmp_path: Path, db_url: str) -> None:
    question = "What's the weather in Paris, and what is 23 * 7?"
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answer = run_recipe(server, "otel_genai_agent", question, "--conversation", "c-1")
        [got] = judged_traces(server, 1)
    trace = got["trace"]
    assert (
        answer["output"] == "In Paris it is currently 18.5°C and partly cloudy. The result is 161."
    )
    assert trace["agent_name"] == "weather_assistant"
    assert trace["input"] == question
    assert trace["output"] == answer["output"]
    assert trace["session_id"] == "c-1"
    calls = trace["tool_calls"]
    assert [(c["tool_name"], c["input"], c["call_id"]) for c in calls] == [
        ("get_weather", {"city": "Paris"}, "call_w0"),
        ("calculator", {"expression": "23 * 7"}, "call_c0"),
    ]
    assert trace["token_usage"] == {
        "prompt_tokens": 283,
        "completion_tokens": 65,
        "total_tokens": 348,
    }
    [evaluation] = got["evals"]
    assert evaluation["verdict"]["state"] == "pass"
    # the run declared its tools (gen_ai.tool.definitions): arguments are checked
    arguments = rule(evaluation, "valid_tool_arguments")
    assert arguments["verdict"] == "pass", arguments


def test_a_failed_tool_is_recorded_with_its_error(tmp_path: Path, db_url: str) -> None:
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answer = run_recipe(server, "otel_genai_agent", "What's the weather like in Atlantis?")
        [got] = judged_traces(server, 1)
    [call] = got["trace"]["tool_calls"]
    assert call["tool_name"] == "get_weather"
    assert "Unknown city: 'Atlantis'" in call["error"]
    assert "Unknown city: 'Atlantis'" in answer["output"]
    silent = rule(got["evals"][0], "no_silent_tool_failure")
    assert silent["verdict"] == "pass", silent  # the answer says the look-up failed
