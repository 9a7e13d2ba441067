"""recipes/openai_agents_agent.py: an OpenAI Agents SDK agent traced by the
OpenInference instrumentor, exported over OTLP/HTTP to a live server,
becomes a judged Iris trace, run plainly or streamed."""

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

pytest.importorskip("agents", reason="the recipes extra: pip install -e '.[recipes]'")


def test_a_run_and_a_streamed_run_are_stored_alike_and_judged(tmp_path: Path, db_url: str) -> None:
    runs = run_and_judge(
        tmp_path, db_url, "openai_agents_agent", (PARIS_QUESTION,), (PARIS_QUESTION, "--stream")
    )
    for answer, got in runs:
        trace = assert_paris_run(answer, got)
        assert trace["framework"] == "openai-agents"


def test_a_failed_tool_is_recorded_with_its_error(tmp_path: Path, db_url: str) -> None:
    [(answer, got)] = run_and_judge(tmp_path, db_url, "openai_agents_agent", (ATLANTIS_QUESTION,))
    assert_failed_lookup(answer, got)
