"""Runs, baselines, datasets, cases, drift and comparisons over REST."""

from __future__ import annotations

from fastapi.testclient import TestClient

GOOD = "The invoice total is 42 euros, due on the first of December, payable by transfer."


def seed(client: TestClient) -> None:
    for run in ("before", "after"):
        for i in range(12):
            bad = run == "after" and i < 8
            body = {
                "output": "" if bad else GOOD,
                "input": "What is the invoice total?",
                "run": run,
                "case_key": f"case-{i}",
            }
            assert client.post("/api/v1/evaluate", json=body).status_code == 201


def test_compare_runs_paired_and_baseline(client: TestClient) -> None:
    seed(client)
    result = client.post("/api/v1/compare", json={"before": "before", "after": "after"}).json()
    assert result["comparable"] is True
    assert result["paired"]["pairs"] == 12 and result["paired"]["b"] == 8
    assert result["call"] == "worse"
    missing = client.post("/api/v1/compare", json={"after": "after"})
    assert missing.status_code == 400 and "baseline" in missing.json()["error"]["message"]
    assert client.patch("/api/v1/runs/before", json={"baseline": True}).json()["baseline"] is True
    pinned = client.post("/api/v1/compare", json={"after": "after"}).json()
    assert pinned["before"]["run_id"] == "before"
    assert client.patch("/api/v1/runs/nope", json={"baseline": True}).status_code == 404
    listed = client.get("/api/v1/runs").json()
    assert {r["runId"] for r in listed["runs"]} == {"before", "after"}
    one = client.get("/api/v1/runs/after").json()
    assert one["evaluated"] == 12 and one["passed"] == 4 and len(one["evaluations"]) == 12


def test_datasets_restrict_comparisons(client: TestClient) -> None:
    seed(client)
    made = client.post(
        "/api/v1/datasets", json={"label": "core", "case_keys": ["case-8", "case-9", "case-10"]}
    )
    assert made.status_code == 201 and made.json()["version"] == 1 and made.json()["cases"] == 3
    again = client.post("/api/v1/datasets", json={"label": "core", "from_run": "before"}).json()
    assert again["version"] == 2 and again["cases"] == 12
    assert [d["version"] for d in client.get("/api/v1/datasets").json()["datasets"]] == [2, 1]
    restricted = client.post(
        "/api/v1/compare", json={"before": "before", "after": "after", "dataset": made.json()["id"]}
    ).json()
    assert restricted["paired"]["pairs"] == 3 and restricted["paired"]["b"] == 0
    unknown = client.post(
        "/api/v1/compare", json={"before": "before", "after": "after", "dataset": "x"}
    )
    assert unknown.status_code == 400
    both = client.post("/api/v1/datasets", json={"label": "x", "from_run": "a", "case_keys": ["k"]})
    assert both.status_code == 400


def test_cases_reliability_and_drift(client: TestClient) -> None:
    seed(client)
    case = client.get("/api/v1/cases/case-0").json()
    assert case["attempts"] == 2 and case["passed"] == 1 and case["flaky"] is True
    assert case["runs"] == ["after", "before"]
    assert client.get("/api/v1/cases/none").status_code == 404
    flaky = client.get("/api/v1/reliability").json()
    assert flaky["cases"] == 12 and len(flaky["flaky_cases"]) == 8
    drift = client.get("/api/v1/eval-stats/drift", params={"period": "7d"}).json()
    assert drift["current"]["evaluated"] == 24 and drift["prior"]["evaluated"] == 0
    assert drift["enoughEvidence"] is False and drift["difference"] is None
    assert client.get("/api/v1/eval-stats/drift", params={"period": "5m"}).status_code == 400
