"""recipes/otel_genai_agent.py: spans written by hand to the OpenTelemetry
GenAI conventions, exported over OTLP/HTTP to a live server, become a judged
Iris trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.recipes.support import (
    ATLANTIS_QUESTION,
    PARIS_QUESTION,
    assert_failed_lookup,
    assert_paris_run,
    rule,
    run_and_judge,
)

pytestmark = pytest.mark.slow


def test_a_run_with_two_tools_is_stored_whole_and_judged(tmp_path: Path, db_url: str) -> None:
    [(answer, got)] = run_and_judge(
        tmp_path, db_url, "otel_genai_agent", (PARIS_QUESTION, "--conversation", "c-1")
    )
    trace = assert_paris_run(answer, got)
    assert trace["session_id"] == "c-1"  # gen_ai.conversation.id
    assert [c["call_id"] for c in trace["tool_calls"]] == ["call_w0", "call_c0"]
    # the run declared its tools (gen_ai.tool.definitions): arguments are checked
    arguments = rule(got["evals"][0], "valid_tool_arguments")
    assert arguments["verdict"] == "pass", arguments


def test_a_failed_tool_is_recorded_with_its_error(tmp_path: Path, db_url: str) -> None:
    [(answer, got)] = run_and_judge(tmp_path, db_url, "otel_genai_agent", (ATLANTIS_QUESTION,))
    assert_failed_lookup(answer, got)
