"""recipes/langgraph_agent.py: a LangGraph agent loop traced by OpenInference's
LangChain instrumentation, exported over OTLP/HTTP to a live server, becomes
a judged Iris trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recipes.support import (
    ATLANTIS_QUESTION,
    PARIS_QUESTION,
    assert_failed_lookup,
    assert_paris_run,
    run_and_judge,
)

pytestmark = pytest.mark.slow

pytest.importorskip("langgraph", reason="the recipes extra: pip install -e '.[recipes]'")


def test_a_run_with_two_tools_is_stored_whole_and_judged(tmp_path: Path, db_url: str) -> None:
    [(answer, got)] = run_and_judge(
        tmp_path, db_url, "langgraph_agent", (PARIS_QUESTION, "--thread", "thread-7")
    )
    # Also: the root's output holds the whole thread, yet the output is the answer;
    # the tool spans keep only "Paris" and "23 * 7", yet the inputs are named.
    trace = assert_paris_run(answer, got)
    assert trace["framework"] == "langgraph"
    assert trace["session_id"] == "thread-7"  # the run's thread_id


def test_two_turns_of_one_thread_are_two_traces_of_one_session(tmp_path: Path, db_url: str) -> None:
    (_, first), (_, second) = run_and_judge(
        tmp_path,
        db_url,
        "langgraph_agent",
        ("What's the weather in Tokyo?", "--thread", "t-2"),
        ("And what is 24 * 9 / 5 + 32?", "--thread", "t-2"),
    )
    assert first["trace"]["session_id"] == second["trace"]["session_id"] == "t-2"
    assert first["trace"]["input"] == "What's the weather in Tokyo?"
    # the second turn's ask and answer, not the first turn's carried in the thread
    assert second["trace"]["input"] == "And what is 24 * 9 / 5 + 32?"
    assert second["trace"]["output"] == "The result is 75.2."
    assert [c["tool_name"] for c in second["trace"]["tool_calls"]] == ["calculator"]


def test_a_failed_tool_is_recorded_with_its_error(tmp_path: Path, db_url: str) -> None:
    [(answer, got)] = run_and_judge(tmp_path, db_url, "langgraph_agent", (ATLANTIS_QUESTION,))
    assert_failed_lookup(answer, got)
