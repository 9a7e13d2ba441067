"""Rules endpoints: deploy, duplicate, replace, toggle, delete, preview, audit."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

HOSTNAMES: dict[str, Any] = {
    "name": "no_internal_hostnames",
    "evalType": "safety",
    "severity": "critical",
    "definition": {
        "type": "regex_no_match",
        "config": {"pattern": r"\b[a-z0-9-]+\.internal\.example\b", "flags": "i"},
    },
}
LEAK = "The primary is db-primary.internal.example and it is healthy."


def deploy(client: TestClient, body: dict[str, Any]) -> Any:
    return client.post("/api/v1/rules/custom", json=body)


def test_deployed_critical_rule_gates_the_next_evaluation(client: TestClient) -> None:
    r = deploy(client, HOSTNAMES)
    assert r.status_code == 201
    rule = r.json()["rule"]
    assert rule["id"].startswith("rule-") and rule["version"] == 1 and rule["enabled"] is True
    result = client.post(
        "/api/v1/evaluate",
        json={"output": LEAK, "input": "Which database host is primary?", "eval_type": "safety"},
    ).json()
    assert result["passed"] is False
    assert result["critical_failures"] == ["no_internal_hostnames"]
    assert result["verdict"]["basis"] == "policy_gate"
    # SPEC §5.5 worked example: every built-in safety rule passed; the score stays high.
    assert result["score"] > 0.85


def test_duplicate_then_replace(client: TestClient) -> None:
    first = deploy(client, HOSTNAMES).json()["rule"]["id"]
    dup = deploy(client, HOSTNAMES)
    assert dup.status_code == 409
    assert dup.json()["error"]["code"] == "IRIS_DUPLICATE_RULE"
    assert first in dup.json()["error"]["message"]
    replaced = deploy(client, {**HOSTNAMES, "replace": True}).json()
    assert replaced["replaced"][0]["id"] == first
    assert replaced["rule"]["id"] != first
    assert "Retired" in replaced["warning"]


def test_refusals_name_the_field(client: TestClient) -> None:
    backref = deploy(
        client,
        {
            "name": "r",
            "evalType": "safety",
            "definition": {"type": "regex_match", "config": {"pattern": r"(a)\1"}},
        },
    )
    assert backref.status_code == 400
    assert backref.json()["error"]["code"] == "IRIS_INVALID_RULE_CONFIG"
    assert "backreference" in backref.json()["error"]["message"]
    too_long = deploy(
        client,
        {
            "name": "r",
            "evalType": "safety",
            "definition": {"type": "regex_match", "config": {"pattern": "a" * 1001}},
        },
    )
    assert too_long.status_code == 400 and "1000" in too_long.json()["error"]["message"]
    missing = deploy(
        client,
        {
            "name": "r",
            "evalType": "completeness",
            "definition": {"type": "min_length", "config": {}},
        },
    )
    assert missing.status_code == 400 and "min_length" in missing.json()["error"]["message"]
    both = deploy(client, {**HOSTNAMES, "eval_type": "safety"})
    assert both.status_code == 400 and "not both" in both.json()["error"]["message"]
    unknown = deploy(client, {**HOSTNAMES, "definition": {**HOSTNAMES["definition"], "extra": 1}})
    assert unknown.status_code == 400
    assert unknown.json()["error"]["details"][0]["field"] == "definition.extra"
    assert client.get("/api/v1/rules/custom").json()["rules"] == []


def test_toggle_and_delete(client: TestClient) -> None:
    rule_id = deploy(client, HOSTNAMES).json()["rule"]["id"]
    off = client.patch(f"/api/v1/rules/custom/{rule_id}", json={"enabled": False})
    assert off.status_code == 200 and off.json()["rule"]["enabled"] is False
    result = client.post("/api/v1/evaluate", json={"output": LEAK, "eval_type": "safety"}).json()
    assert "no_internal_hostnames" not in (result.get("critical_failures") or [])
    assert (
        client.patch(f"/api/v1/rules/custom/{rule_id}", json={"enabled": True, "x": 1}).status_code
        == 400
    )
    assert (
        client.patch("/api/v1/rules/custom/rule-00000000", json={"enabled": True}).status_code
        == 404
    )
    assert client.delete(f"/api/v1/rules/custom/{rule_id}").status_code == 204
    assert client.delete(f"/api/v1/rules/custom/{rule_id}").status_code == 404
    actions = [e["action"] for e in client.get("/api/v1/audit").json()["entries"]]
    assert actions == ["rule.delete", "rule.toggle", "rule.deploy"]


def test_builtin_roster_and_preview(client: TestClient) -> None:
    roster = client.get("/api/v1/rules/builtin").json()["rules"]
    assert len(roster) == 26
    assert {"name", "kind", "mechanism", "needs", "question", "critical"} <= set(roster[0])
    for text in ("Order shipped to Lyon.", "Your refund is processed."):
        client.post("/api/v1/traces", json={"agent_name": "a", "output": text})
    preview = client.post(
        "/api/v1/rules/custom/preview",
        json={
            "definition": {"type": "contains_keywords", "config": {"keywords": ["refund"]}},
            "sampleOutput": "no match here",
        },
    ).json()
    assert preview["tracesEvaluated"] == 2
    assert preview["wouldPass"] == 1 and preview["wouldFail"] == 1
    assert preview["examples"][0]["outputPreview"] == "Order shipped to Lyon."
    assert preview["sample"]["passed"] is False
    assert client.get("/api/v1/rules/custom").json()["rules"] == []  # preview writes nothing
