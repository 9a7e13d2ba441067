"""recipes/langgraph_agent.py: a LangGraph agent loop traced by OpenInference's
LangChain instrumentation, exported over OTLP/HTTP to a live server, becomes
a judged Iris trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recipes.support import judged_traces, rule, run_recipe
from tests.support.live import live_server

pytestmark = pytest.mark.slow

pytest.importorskip("langgraph", reason="the recipes extra: pip install -e '.[recipes]'")


def test_a_run_with_two_tools_is_stored_whole_and_judged(tmp_path: Path, db_url: str) -> None:
    question = "What's the weather in Paris, and what is 23 * 7?"
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answer = run_recipe(server, "langgraph_agent", question, "--thread", "thread-7")
        [got] = judged_traces(server, 1)
    trace = got["trace"]
    assert (
        answer["output"] == "In Paris it is currently 18.5°C and partly cloudy. The result is 161."
    )
    assert trace["agent_name"] == "weather_assistant"  # the compiled graph's name
    assert trace["framework"] == "langgraph"
    assert trace["input"] == question
    assert trace["output"] == answer["output"]  # not the thread the root's output holds
    assert trace["session_id"] == "thread-7"
    calls = trace["tool_calls"]
    assert [c["tool_name"] for c in calls] == ["get_weather", "calculator"]
    # the tool spans keep only "Paris" and "23 * 7"; the model's requests name them
    assert [c["input"] for c in calls] == [{"city": "Paris"}, {"expression": "23 * 7"}]
    assert calls[0]["output"]["temperature_c"] == 18.5
    assert not any(c.get("error") for c in calls)
    assert trace["token_usage"] == {
        "prompt_tokens": 283,
        "completion_tokens": 65,
        "total_tokens": 348,
    }
    [evaluation] = got["evals"]
    assert evaluation["verdict"]["state"] == "pass"
    assert rule(evaluation, "no_silent_tool_failure")["verdict"] == "pass"


def test_two_turns_of_one_thread_are_two_traces_of_one_session(tmp_path: Path, db_url: str) -> None:
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        run_recipe(server, "langgraph_agent", "What's the weather in Tokyo?", "--thread", "t-2")
        run_recipe(server, "langgraph_agent", "And what is 24 * 9 / 5 + 32?", "--thread", "t-2")
        first, second = judged_traces(server, 2)
    assert first["trace"]["session_id"] == second["trace"]["session_id"] == "t-2"
    assert first["trace"]["input"] == "What's the weather in Tokyo?"
    # the second turn's ask and answer, not the first turn's carried in the thread
    assert second["trace"]["input"] == "And what is 24 * 9 / 5 + 32?"
    assert second["trace"]["output"] == "The result is 75.2."
    assert [c["tool_name"] for c in second["trace"]["tool_calls"]] == ["calculator"]


def test_a_failed_tool_is_recorded_with_its_error(tmp_path: Path, db_url: str) -> None:
    with live_server(tmp_path, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answer = run_recipe(server, "langgraph_agent", "What's the weather like in Atlantis?")
        [got] = judged_traces(server, 1)
    [call] = got["trace"]["tool_calls"]
    assert call["tool_name"] == "get_weather"
    assert "Unknown city: 'Atlantis'" in call["error"]
    assert "Unknown city: 'Atlantis'" in answer["output"]
    silent = rule(got["evals"][0], "no_silent_tool_failure")
    assert silent["verdict"] == "pass", silent  # the answer says the look-up failed
