"""SPEC §21.5 acceptance scenarios that concern the query, deletion, rule and
evaluation tools, through the REST twins of the MCP tools (same functions)."""

from __future__ import annotations

from fastapi.testclient import TestClient


def test_scenario_3_crossed_ranges_are_refused_naming_both(client: TestClient) -> None:
    scores = client.get("/api/v1/traces", params={"min_score": 0.9, "max_score": 0.1})
    assert scores.status_code == 400
    assert "0.9" in scores.json()["error"]["message"] and "0.1" in scores.json()["error"]["message"]
    dates = client.get("/api/v1/traces", params={"since": "2026-11-30", "until": "2026-11-01"})
    assert dates.status_code == 400
    assert {d["field"] for d in dates.json()["error"]["details"]} == {"since", "until"}


def test_scenario_4_delete_trace(client: TestClient) -> None:
    unknown = "f" * 32
    assert client.delete(f"/api/v1/traces/{unknown}").json() == {
        "deleted": False,
        "trace_id": unknown,
    }
    output = "Reach me at jane.roe@gmail.com"
    trace_id = client.post(
        "/api/v1/traces",
        json={"agent_name": "a", "output": output, "spans": [{"name": "s"}], "evaluate": True},
    ).json()["trace_id"]
    before = client.get(f"/api/v1/traces/{trace_id}").json()["evals"][0]
    pii_before = next(r for r in before["rule_results"] if r["rule"] == "no_pii")
    assert client.delete(f"/api/v1/traces/{trace_id}").json()["deleted"] is True
    after = client.get("/api/v1/evaluations", params={"trace_id": trace_id}).json()["results"][0]
    assert after["verdict"] == before["verdict"] and after["erased_at"]
    assert after["output_text"] is None
    pii_after = next(r for r in after["rule_results"] if r["rule"] == "no_pii")
    assert pii_after["message"] == ""
    spans_before = [(e["start"], e["end"]) for e in pii_before["evidence"] if "start" in e]
    assert spans_before == [(12, 30)]
    assert [(e["start"], e["end"]) for e in pii_after["evidence"] if "start" in e] == spans_before
    assert all("matched" not in e and "text" not in e for e in pii_after["evidence"])
    assert client.get(f"/api/v1/traces/{trace_id}").status_code == 404


def test_scenario_5_delete_rule_twice_audits_once(client: TestClient) -> None:
    rule = client.post(
        "/api/v1/rules/custom",
        json={
            "name": "short",
            "evalType": "completeness",
            "definition": {"type": "min_length", "config": {"min_length": 5}},
        },
    ).json()["rule"]
    assert client.delete(f"/api/v1/rules/custom/{rule['id']}").status_code == 204
    assert client.delete(f"/api/v1/rules/custom/{rule['id']}").status_code == 404
    actions = [e["action"] for e in client.get("/api/v1/audit").json()["entries"]]
    assert actions.count("rule.delete") == 1


def test_scenario_6_unknown_trace_stores_nothing(client: TestClient) -> None:
    r = client.post("/api/v1/evaluate", json={"output": "x", "trace_id": "0" * 31 + "1"})
    assert r.json()["error"]["code"] == "IRIS_UNKNOWN_TRACE"
    assert client.get("/api/v1/evaluations").json()["total"] == 0


def test_scenario_7_default_bundle_and_cost_row_without_cost(client: TestClient) -> None:
    body = client.post(
        "/api/v1/evaluate",
        json={"output": "The capital of France is Paris.", "input": "Capital of France?"},
    ).json()
    assert body["eval_type"] == "all" and body["note"]
    cost = body["categories"]["cost"]
    assert cost["passed"] is None and cost["score"] is None and cost["insufficient_data"] is True


def test_scenario_12_repeats_do_not_inflate_certainty(client: TestClient) -> None:
    good = (
        "The refund was issued today to the original card, "
        "and the confirmation email is on its way."
    )
    for case in range(5):
        for _ in range(10):
            body = {
                "output": good,
                "input": "Was my refund issued?",
                "run": "rep",
                "case_key": f"c{case}",
            }
            assert client.post("/api/v1/evaluate", json=body).json()["passed"] is True
    result = client.get("/api/v1/reliability", params={"run": "rep"}).json()
    assert result["cases"] == 5 and result["attempts"] == 50
    overall, pooled = result["overall"], result["pooled"]
    assert overall["rate"] == 1.0 and overall["hi"] == 1.0
    assert abs(overall["lo"] - 0.025 ** (1 / 5)) < 1e-4  # Clopper-Pearson on 5 of 5: [0.478, 1]
    assert pooled["lo"] > overall["lo"] and pooled["narrower"] is True


def test_scenario_13_runs_that_measured_different_things(client: TestClient) -> None:
    from sqlalchemy import update

    from storage.models import Evaluation

    for run in ("old", "new"):
        for case in range(4):
            body = {
                "output": "All four invoices were paid in full.",
                "input": "Were they paid?",
                "run": run,
                "case_key": f"k{case}",
            }
            client.post("/api/v1/evaluate", json=body)
    state = client.app.state.iris  # type: ignore[attr-defined]
    # The new run was judged under another configuration. Read first, then
    # write in a transaction of its own: on SQLite a transaction that reads
    # and then writes cannot take the write lock once the service's writer
    # (its sweeps) has committed since the read, and fails at once ("database
    # is locked") instead of waiting.
    with state.engine.connect() as conn:
        rows = conn.execute(Evaluation.__table__.select().where(Evaluation.run == "new")).all()
    with state.engine.begin() as conn:
        for row in rows:
            provenance = {**row.provenance, "configHash": "f" * 64}
            conn.execute(
                update(Evaluation).where(Evaluation.id == row.id).values(provenance=provenance)
            )
    refused = client.post("/api/v1/compare", json={"before": "old", "after": "new"}).json()
    assert refused["comparable"] is False
    assert any("config" in reason.lower() for reason in refused["incomparable_because"])
    forced = client.post(
        "/api/v1/compare", json={"before": "old", "after": "new", "force": True}
    ).json()
    assert forced["forced"] is True and forced["incomparable_because"]
    assert forced["paired"]["pairs"] == 4
