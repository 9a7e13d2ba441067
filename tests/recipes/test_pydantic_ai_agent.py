"""recipes/pydantic_ai_agent.py: Pydantic AI's own instrumentation, exported
over OTLP/HTTP to a live server, becomes a judged Iris trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recipes.support import judged_traces, rule, run_recipe
from tests.support.live import live_server

pytestmark = pytest.mark.slow

pytest.importorskip("pydantic_ai", reason="the recipes extra: pip install -e '.[recipes]'")


def test_a_run_with_two_tools_is_stored_whole_and_judged(tmp_path: Path, db_url: str) -> None:
    question = "What's the weather in Paris, and what is 23 * 7?"
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answer = run_recipe(server, "pydantic_ai_agent", question, "--conversation", "conv-42")
        [got] = judged_traces(server, 1)
    trace = got["trace"]
    assert (
        answer["output"] == "In Paris it is currently 18.5°C and partly cloudy. The result is 161."
    )
    assert trace["agent_name"] == "weather_assistant"
    assert trace["framework"] == "pydantic-ai"
    assert trace["input"] == question
    assert trace["output"] == answer["output"]  # the final answer, not the message history
    assert trace["session_id"] == "conv-42"
    calls = trace["tool_calls"]
    assert [c["tool_name"] for c in calls] == ["get_weather", "calculator"]
    assert calls[0]["input"] == {"city": "Paris"}
    assert calls[0]["output"]["temperature_c"] == 18.5
    assert calls[1]["input"] == {"expression": "23 * 7"}
    assert not any(c.get("error") for c in calls)
    # two model calls of the scripted model: 112 + 171 in, 36 + 29 out
    assert trace["token_usage"] == {
        "prompt_tokens": 283,
        "completion_tokens": 65,
        "total_tokens": 348,
    }
    [evaluation] = got["evals"]
    assert evaluation["verdict"]["state"] == "pass"
    # Pydantic AI exports the tools' schemas, so the arguments are checked against them
    assert rule(evaluation, "valid_tool_arguments")["verdict"] == "pass"
    assert rule(evaluation, "tool_choice")["verdict"] == "pass"


def test_a_failed_tool_is_recorded_and_an_answer_that_admits_it_passes(
    tmp_path: Path, db_url: str
) -> None:
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answer = run_recipe(server, "pydantic_ai_agent", "What's the weather like in Atlantis?")
        [got] = judged_traces(server, 1)
    trace = got["trace"]
    [call] = trace["tool_calls"]
    assert call["tool_name"] == "get_weather"
    assert "Unknown city: 'Atlantis'" in call["error"]
    assert "Unknown city: 'Atlantis'" in answer["output"]
    [evaluation] = got["evals"]
    silent = rule(evaluation, "no_silent_tool_failure")
    assert silent["verdict"] == "pass", silent  # the answer says the look-up failed
