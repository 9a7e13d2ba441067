"""POST /api/v1/evaluate, evaluate-on-ingest, and the evaluations API."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from service.worker import drain


def test_evaluate_stores_one_evaluation(client: TestClient) -> None:
    r = client.post(
        "/api/v1/evaluate",
        json={"output": "Call me at john.doe@gmail.com", "input": "How do I reach you?"},
    )
    assert r.status_code == 201
    body = r.json()
    assert body["id"].startswith("eval_")
    assert body["passed"] is False and "no_pii" in body["critical_failures"]
    assert body["note"]  # eval_type omitted -> the default bundle set is named
    pii = next(x for x in body["rule_results"] if x["rule"] == "no_pii")
    evidence = pii["evidence"][0]
    text = "Call me at john.doe@gmail.com"
    assert text[evidence["start"] : evidence["end"]] == "john.doe@gmail.com"
    stored = client.get(f"/api/v1/evaluations/{body['id']}").json()
    assert stored["verdict"] == body["verdict"]


def test_unknown_trace_is_refused_first(client: TestClient) -> None:
    r = client.post("/api/v1/evaluate", json={"output": "x", "trace_id": "ab" * 16})
    assert r.status_code == 404 and r.json()["error"]["code"] == "IRIS_UNKNOWN_TRACE"
    assert client.get("/api/v1/evaluations").json()["total"] == 0


def test_linked_trace_lends_its_tool_calls(client: TestClient) -> None:
    trace_id = client.post(
        "/api/v1/traces",
        json={
            "agent_name": "a",
            "input": "Fetch the report",
            "output": "Here is the report.",
            "tool_calls": [{"tool_name": "fetch", "input": {"id": 1}, "error": "HTTP 500"}],
        },
    ).json()["trace_id"]
    body = client.post(
        "/api/v1/evaluate", json={"output": "Here is the report.", "trace_id": trace_id}
    ).json()
    assert body["trace_id"] == trace_id
    silent = next(x for x in body["rule_results"] if x["rule"] == "no_silent_tool_failure")
    assert silent["verdict"] == "fail"
    detail = client.get(f"/api/v1/traces/{trace_id}").json()
    assert detail["evals"][0]["id"] == body["id"]
    assert detail["trace"]["score"] == body["score"]


def test_strict_inputs(client: TestClient) -> None:
    r = client.post(
        "/api/v1/evaluate",
        json={
            "output": "x",
            "custom_rules": [{"name": "a", "type": "min_length", "config": {}, "oops": 1}],
        },
    )
    assert r.status_code == 400
    assert r.json()["error"]["details"][0]["field"] == "custom_rules[0].oops"
    eleven = [
        {"name": f"r{i}", "type": "min_length", "config": {"min_length": 1}} for i in range(11)
    ]
    assert (
        client.post("/api/v1/evaluate", json={"output": "x", "custom_rules": eleven}).status_code
        == 400
    )


def test_ingest_queues_and_workers_judge(make_client: Callable[..., TestClient]) -> None:
    client = make_client(evaluate_on_ingest=True)
    trace_id = client.post(
        "/api/v1/traces",
        json={"agent_name": "bot", "input": "hi", "output": "My SSN is 078-05-1120."},
    ).json()["trace_id"]
    assert client.get(f"/api/v1/traces/{trace_id}").json()["evals"] == []
    state = client.app.state.iris  # type: ignore[attr-defined]
    stats = drain(state.engine, state.settings)
    assert stats.evaluated == 1
    detail = client.get(f"/api/v1/traces/{trace_id}").json()
    assert detail["evals"][0]["verdict"]["state"] == "fail"
    listing = client.get(
        "/api/v1/evaluations", params={"agent_name": "bot", "state": "fail"}
    ).json()
    assert listing["total"] == 1
    assert client.get("/api/v1/evaluations", params={"rule_failed": "no_pii"}).json()["total"] == 1
    assert (
        client.get("/api/v1/evaluations", params={"rule_failed": "no_stub_output"}).json()["total"]
        == 0
    )
    assert client.get("/api/v1/evaluations", params={"trace_id": trace_id}).json()["total"] == 1
    assert client.get("/api/v1/evaluations", params={"state": "maybe"}).status_code == 400
    # Deleting the trace erases the evaluation's text but keeps the verdict.
    client.delete(f"/api/v1/traces/{trace_id}")
    erased = client.get("/api/v1/evaluations", params={"trace_id": trace_id}).json()["results"][0]
    assert erased["output_text"] is None and erased["erased_at"]
    assert erased["verdict"]["state"] == "fail"
    assert all(r["message"] == "" for r in erased["rule_results"])


def test_metrics_exposition(client: TestClient) -> None:
    client.post("/api/v1/traces", json={"agent_name": "a"})
    text = client.get("/metrics").text
    assert "# TYPE iris_queue_jobs gauge" in text
    assert 'iris_http_requests_total{route="/api/v1/traces",status="201"} 1' in text
    assert "iris_commits_total" in text and "iris_commit_seconds_count" in text


def test_health_and_metrics_report_the_queue(make_client: Callable[..., TestClient]) -> None:
    client = make_client(evaluate_on_ingest=True)
    client.post("/api/v1/traces", json={"agent_name": "bot", "input": "hi", "output": "ok"})
    queue = client.get("/api/v1/health").json()["queue"]
    assert {k: queue[k] for k in ("pending", "running", "failed", "backlogged")} == {
        "pending": 1,
        "running": 0,
        "failed": 0,
        "backlogged": False,
    }
    assert queue["oldest_pending_age_s"] >= 0.0
    assert 'iris_queue_jobs{state="pending"} 1' in client.get("/metrics").text

    state = client.app.state.iris  # type: ignore[attr-defined]
    assert drain(state.engine, state.settings).evaluated == 1
    queue = client.get("/api/v1/health").json()["queue"]
    assert (queue["pending"], queue["oldest_pending_age_s"]) == (0, 0.0)
    assert "done" not in queue  # finished jobs are history, not queue depth
    text = client.get("/metrics").text
    assert 'iris_queue_jobs{state="pending"} 0' in text
    assert 'state="done"' not in text
