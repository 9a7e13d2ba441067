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

from tests.support.live import LiveServer

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
