"""recipes/pydantic_ai_agent.py: Pydantic AI's own instrumentation, exported
over OTLP/HTTP to a live server, becomes a judged Iris trace."""

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

pytest.importorskip("pydantic_ai", reason="the recipes extra: pip install -e '.[recipes]'")


def test_a_run_with_two_tools_is_stored_whole_and_judged(tmp_path: Path, db_url: str) -> None:
    [(answer, got)] = run_and_judge(
        tmp_path, db_url, "pydantic_ai_agent", (PARIS_QUESTION, "--conversation", "conv-42")
    )
    trace = assert_paris_run(answer, got)
    assert trace["framework"] == "pydantic-ai"
    assert trace["session_id"] == "conv-42"
    # Pydantic AI exports the tools' schemas: arguments are checked against them
    assert rule(got["evals"][0], "valid_tool_arguments")["verdict"] == "pass"
    assert rule(got["evals"][0], "tool_choice")["verdict"] == "pass"


def test_a_failed_tool_is_recorded_and_an_answer_that_admits_it_passes(
    tmp_path: Path, db_url: str
) -> None:
    [(answer, got)] = run_and_judge(tmp_path, db_url, "pydantic_ai_agent", (ATLANTIS_QUESTION,))
    assert_failed_lookup(answer, got)
