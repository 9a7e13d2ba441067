"""Native ingest and the trace query API, end to end through HTTP."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

FULL_TRACE: dict[str, Any] = {
    "agent_name": "support-bot",
    "framework": "langgraph",
    "input": "Where is my order 1234?",
    "output": "Your order 1234 ships tomorrow from Lyon.",
    "tool_calls": [
        {
            "tool_name": "lookup_order",
            "input": {"order_id": "1234"},
            "output": {"status": "packed", "warehouse": "Lyon"},
            "latency_ms": 12.5,
            "cost_usd": 0.0001,
            "started_at": "2026-11-30T10:00:00.100Z",
        },
        {"tool_name": "notify", "input": "sms", "error": "gateway timeout"},
    ],
    "latency_ms": 830.0,
    "token_usage": {"prompt_tokens": 120, "completion_tokens": 40, "total_tokens": 160},
    "cost_usd": 0.0042,
    "metadata": {"customer_tier": "gold", "region": "eu"},
    "spans": [
        {
            "span_id": "a1b2c3d4e5f60718",
            "name": "lookup_order",
            "kind": "TOOL",
            "status_code": "OK",
            "start_time": "2026-11-30T10:00:00.100Z",
            "end_time": "2026-11-30T10:00:00.112Z",
            "attributes": {"gen_ai.tool.name": "lookup_order"},
            "events": [{"name": "retry", "timestamp": "2026-11-30T10:00:00.105Z"}],
        },
        {"name": "final", "kind": "LLM", "status_code": "ERROR", "status_message": "boom"},
    ],
    "timestamp": "2026-11-30T10:00:00Z",
    "tools": [
        {"name": "lookup_order", "description": "find an order", "inputSchema": {"type": "object"}}
    ],
    "run": "nightly-1",
    "case_key": "order-status",
    "session_id": "sess-9",
}


def post(client: TestClient, body: dict[str, Any], **headers: str) -> str:
    response = client.post("/api/v1/traces", json=body, headers=headers)
    assert response.status_code == 201, response.text
    data = response.json()
    assert data["status"] == "stored"
    assert len(data["trace_id"]) == 32
    return str(data["trace_id"])


def test_every_field_round_trips(client: TestClient) -> None:
    trace_id = post(client, FULL_TRACE, traceparent="00-" + "ab" * 16 + "-" + "cd" * 8 + "-01")
    detail = client.get(f"/api/v1/traces/{trace_id}").json()
    trace = detail["trace"]
    for key in (
        "agent_name",
        "framework",
        "input",
        "output",
        "latency_ms",
        "cost_usd",
        "tools",
        "run",
        "case_key",
        "session_id",
        "token_usage",
    ):
        assert trace[key] == FULL_TRACE[key], key
    assert trace["tool_calls"] == FULL_TRACE["tool_calls"]
    assert trace["timestamp"] == "2026-11-30T10:00:00.000000Z"
    assert trace["metadata"]["customer_tier"] == "gold"
    context = trace["metadata"]["trace_context"]
    assert context["trace_id"] == "ab" * 16 and context["parent_span_id"] == "cd" * 8
    assert context["sampled"] is True
    assert trace["source"] == "http"
    spans = {s["name"]: s for s in detail["spans"]}
    assert spans["lookup_order"]["span_id"] == "a1b2c3d4e5f60718"
    assert spans["lookup_order"]["kind"] == "TOOL"
    assert spans["lookup_order"]["attributes"] == {"gen_ai.tool.name": "lookup_order"}
    assert spans["lookup_order"]["events"][0]["name"] == "retry"
    assert spans["lookup_order"]["end_time"] == "2026-11-30T10:00:00.112000Z"
    # A span without start_time inherits the trace's timestamp (SPEC §3.2).
    assert spans["final"]["start_time"] == "2026-11-30T10:00:00.000000Z"
    assert spans["final"]["status_message"] == "boom"
    assert len(spans["final"]["span_id"]) == 16
    listed = client.get("/api/v1/traces").json()
    assert listed["total"] == 1
    assert listed["traces"][0]["tool_calls"] == FULL_TRACE["tool_calls"]
    assert listed["traces"][0]["created_at"].endswith("Z")


def test_identical_payloads_are_two_traces(client: TestClient) -> None:
    first = post(client, {"agent_name": "a"})
    second = post(client, {"agent_name": "a"})
    assert first != second
    assert client.get("/api/v1/traces").json()["total"] == 2


def test_span_ids_alike_in_their_first_16_characters_are_both_kept(client: TestClient) -> None:
    # Stored ids are 16 characters: two longer ids that agree that far must
    # not become one span (the second gets a fresh id).
    spans = [{"name": f"s{i}", "span_id": "a" * 16 + f"-{i}"} for i in range(2)]
    r = client.post("/api/v1/traces", json={"agent_name": "a", "output": "x", "spans": spans})
    assert r.status_code == 201, r.text
    detail = client.get(f"/api/v1/traces/{r.json()['trace_id']}").json()
    ids = sorted(s["span_id"] for s in detail["spans"])
    assert len(ids) == 2 and len(set(ids)) == 2 and "a" * 16 in ids


def test_malformed_traceparent_is_ignored(client: TestClient) -> None:
    trace_id = post(
        client, {"agent_name": "a"}, traceparent="00-" + "0" * 32 + "-" + "cd" * 8 + "-01"
    )
    trace = client.get(f"/api/v1/traces/{trace_id}").json()["trace"]
    assert "trace_context" not in trace["metadata"]


@pytest.mark.parametrize(
    ("body", "field", "fragment"),
    [
        ({}, "agent_name", "Field required"),
        ({"agent_name": ""}, "agent_name", "at least 1"),
        ({"agent_name": "a", "colour": 1}, "colour", "valid keys: agent_name"),
        (
            {"agent_name": "a", "tool_calls": [{"tool_name": "t", "err": "x"}]},
            "tool_calls[0].err",
            "valid keys: cost_usd, error, input",
        ),
        (
            {"agent_name": "a", "spans": [{"name": "s", "kind": "WEIRD"}]},
            "spans[0].kind",
            "INTERNAL",
        ),
        ({"agent_name": "a", "timestamp": "yesterday"}, "timestamp", "Invalid isoformat"),
        ({"agent_name": "a", "trace_id": "ab" * 16}, "trace_id", "minted by the server"),
        ({"agent_name": "a", "latency_ms": -1}, "latency_ms", "greater than or equal to 0"),
        ({"agent_name": "a", "eval_type": "vibes"}, "eval_type", "completeness"),
    ],
)
def test_invalid_bodies_name_the_field(
    client: TestClient, body: dict[str, Any], field: str, fragment: str
) -> None:
    response = client.post("/api/v1/traces", json=body)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "IRIS_INVALID_ARGUMENT"
    assert error["recovery"]
    matching = [d for d in error["details"] if d["field"] == field]
    assert matching, error["details"]
    assert fragment in matching[0]["message"]
    assert client.get("/api/v1/traces").json()["total"] == 0


def test_non_json_and_wrong_type(client: TestClient) -> None:
    bad = client.post(
        "/api/v1/traces", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "IRIS_INVALID_ARGUMENT"
    wrong = client.post("/api/v1/traces", content=b"a=b", headers={"content-type": "text/plain"})
    assert wrong.status_code == 415
    array = client.post("/api/v1/traces", json=[{"agent_name": "a"}])
    assert array.status_code == 400
    assert array.json()["error"]["details"][0]["field"] == "(body)"


def test_body_over_one_megabyte_is_413(client: TestClient) -> None:
    body = {"agent_name": "a", "output": "x" * (1024 * 1024)}
    response = client.post("/api/v1/traces", json=body)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "IRIS_PAYLOAD_TOO_LARGE"
    assert client.get("/api/v1/traces").json()["total"] == 0


def test_evaluate_true_judges_before_storing(client: TestClient) -> None:
    response = client.post(
        "/api/v1/traces",
        json={
            "agent_name": "a",
            "input": "hi",
            "output": "Mail me: jo@gmail.com",
            "evaluate": True,
            "eval_type": "safety",
        },
    )
    assert response.status_code == 201
    body = response.json()
    evaluation = body["evaluation"]
    assert evaluation["trace_id"] == body["trace_id"] and evaluation["eval_type"] == "safety"
    assert evaluation["passed"] is False and "no_pii" in evaluation["critical_failures"]
    detail = client.get(f"/api/v1/traces/{body['trace_id']}").json()
    assert [e["id"] for e in detail["evals"]] == [evaluation["id"]]
    # evaluate: true with a body the engine refuses stores nothing
    bad = client.post(
        "/api/v1/traces", json={"agent_name": "a", "evaluate": True, "eval_type": "x"}
    )
    assert bad.status_code == 400
    assert client.get("/api/v1/traces").json()["total"] == 1


def test_get_unknown_and_malformed_ids(client: TestClient) -> None:
    missing = client.get("/api/v1/traces/" + "0" * 32)
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "IRIS_UNKNOWN_TRACE"
    bad = client.get("/api/v1/traces/XYZ")
    assert bad.status_code == 400
    assert bad.json()["error"]["details"][0]["field"] == "trace_id"


def test_delete_cascades_and_reports(client: TestClient) -> None:
    trace_id = post(client, FULL_TRACE)
    response = client.delete(f"/api/v1/traces/{trace_id}")
    assert response.json() == {"deleted": True, "trace_id": trace_id}
    assert client.get(f"/api/v1/traces/{trace_id}").status_code == 404
    assert client.get("/api/v1/traces", params={"q": "Lyon"}).json()["total"] == 0
    again = client.delete(f"/api/v1/traces/{trace_id}")
    assert again.status_code == 200 and again.json() == {"deleted": False, "trace_id": trace_id}


def test_health(client: TestClient) -> None:
    post(client, {"agent_name": "a"})
    body = client.get("/api/v1/health").json()
    assert body["status"] == "ok" and body["storage"] == "connected"
    assert body["trace_count"] == 1
    assert body["version"]


def test_unknown_route_uses_the_envelope(client: TestClient) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "IRIS_NOT_FOUND"
