"""Run a recipe as its user would, against a live ``iris serve``, and read
back what Iris made of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.live import LiveServer, live_server

ROOT = Path(__file__).resolve().parents[2]


def run_recipe(server: LiveServer, module: str, *args: str) -> dict[str, Any]:
    """``python -m recipes.<module> args…`` with the exporter pointed at the
    server; returns what the recipe printed (its agent's answer)."""
    env = {
        **os.environ,
        "OTEL_EXPORTER_OTLP_ENDPOINT": server.url,
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-m", f"recipes.{module}", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def judged_traces(server: LiveServer, count: int, timeout: float = 60) -> list[dict[str, Any]]:
    """Wait until the server holds ``count`` traces, each with a stored
    verdict; returns them, oldest first, as ``GET /api/v1/traces/{id}``
    answers (``trace``, ``spans``, ``evals``)."""
    deadline = time.monotonic() + timeout
    traces: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        listed = httpx.get(
            f"{server.url}/api/v1/traces",
            params={"sort_by": "timestamp", "sort_order": "asc"},
            timeout=10,
        )
        listed.raise_for_status()
        traces = listed.json()["traces"]
        if len(traces) >= count and all(t["score"] is not None for t in traces):
            return [
                httpx.get(f"{server.url}/api/v1/traces/{t['trace_id']}", timeout=10).json()
                for t in traces
            ]
        time.sleep(0.2)
    raise AssertionError(f"expected {count} judged traces, found: {traces}")


def rule(evaluation: dict[str, Any], name: str) -> dict[str, Any]:
    """One rule's result in a stored evaluation."""
    return next(r for r in evaluation["rule_results"] if r["rule"] == name)


PARIS_QUESTION = "What's the weather in Paris, and what is 23 * 7?"
PARIS_ANSWER = "In Paris it is currently 18.5°C and partly cloudy. The result is 161."
ATLANTIS_QUESTION = "What's the weather like in Atlantis?"


def run_and_judge(
    home: Path, db_url: str, module: str, *runs: tuple[str, ...]
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Each run of the recipe (its arguments) against one live server, then
    every run's (printed answer, judged trace), in order."""
    with live_server(home, db_url, IRIS_ASSEMBLY_GRACE_MS="300") as server:
        answers = [run_recipe(server, module, *args) for args in runs]
        traces = judged_traces(server, len(runs))
    return list(zip(answers, traces, strict=True))


def assert_paris_run(answer: dict[str, Any], got: dict[str, Any]) -> dict[str, Any]:
    """What every recipe's two-tool run must become; returns the trace."""
    trace = got["trace"]
    assert answer["output"] == PARIS_ANSWER
    assert trace["agent_name"] == "weather_assistant"
    assert trace["input"] == PARIS_QUESTION
    assert trace["output"] == PARIS_ANSWER  # the final answer, not the message history
    calls = trace["tool_calls"]
    assert [c["tool_name"] for c in calls] == ["get_weather", "calculator"]
    assert [c["input"] for c in calls] == [{"city": "Paris"}, {"expression": "23 * 7"}]
    assert calls[0]["output"]["temperature_c"] == 18.5
    assert not any(c.get("error") for c in calls)
    # two calls of the scripted model: 112 + 171 tokens in, 36 + 29 out
    assert trace["token_usage"] == {
        "prompt_tokens": 283,
        "completion_tokens": 65,
        "total_tokens": 348,
    }
    [evaluation] = got["evals"]
    assert evaluation["verdict"]["state"] == "pass", evaluation["verdict"]
    return dict(trace)


def assert_failed_lookup(answer: dict[str, Any], got: dict[str, Any]) -> None:
    """The unknown city: the call is stored with its error, and the answer,
    which says the look-up failed, is not a silent tool failure."""
    [call] = got["trace"]["tool_calls"]
    assert call["tool_name"] == "get_weather"
    assert "Unknown city: 'Atlantis'" in call["error"]
    assert "Unknown city: 'Atlantis'" in answer["output"]
    silent = rule(got["evals"][0], "no_silent_tool_failure")
    assert silent["verdict"] == "pass", silent
