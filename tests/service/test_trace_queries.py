"""Every get_traces filter, sort and refusal, with data that tells them apart."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from storage.engine import make_engine
from storage.models import Trace
from storage.scoreband import latest_verdict

SEED: list[dict[str, Any]] = [
    {
        "agent_name": "alpha",
        "framework": "crewai",
        "timestamp": "2026-11-01T00:00:00Z",
        "latency_ms": 300,
        "cost_usd": 0.03,
        "run": "r1",
        "session_id": "s1",
        "case_key": "k1",
        "input": "translate the invoice to French",
        "output": "Voici la facture",
    },
    {
        "agent_name": "alpha",
        "framework": "langgraph",
        "timestamp": "2026-11-02T12:00:00Z",
        "latency_ms": 100,
        "cost_usd": 0.01,
        "run": "r1",
        "session_id": "s2",
        "case_key": "k2",
        "input": "weather in Paris",
        "output": "It is sunny in Paris",
    },
    {
        "agent_name": "alpha-2",
        "framework": "langgraph",
        "timestamp": "2026-11-02T23:59:59Z",
        "latency_ms": 200,
        "run": "r2",
        "session_id": "s1",
        "case_key": "k1",
        "input": "refund order",
        "output": "Refund issued",
        "tool_calls": [{"tool_name": "refund", "input": {"reason": "damaged parcel"}}],
    },
    {
        "agent_name": "beta",
        "framework": "crewai",
        "timestamp": "2026-11-03T00:00:00Z",
        "cost_usd": 0.02,
        "run": "r2",
        "input": "status",
        "output": "ok",
        "metadata": {"team": "payments-zebra"},
    },
]
SCORES = {"alpha/crewai": 0.2, "alpha/langgraph": 0.9, "alpha-2/langgraph": 0.5}


@pytest.fixture
def seeded(client: TestClient, db_url: str) -> Iterator[tuple[TestClient, dict[str, str]]]:
    ids: dict[str, str] = {}
    for body in SEED:
        r = client.post("/api/v1/traces", json=body)
        assert r.status_code == 201
        ids[f"{body['agent_name']}/{body['framework']}"] = r.json()["trace_id"]
    engine = make_engine(db_url)
    with engine.begin() as conn:
        for key, score in SCORES.items():
            conn.execute(
                update(Trace)
                .where(Trace.trace_id == ids[key])
                .values(latest_verdict(f"eval_{key}", score))
            )
    engine.dispose()
    yield client, ids


def names(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [f"{t['agent_name']}/{t['framework']}" for t in response.json()["traces"]]


def query(client: TestClient, **params: Any) -> Any:
    return client.get("/api/v1/traces", params=params)


def test_default_is_newest_first(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client)) == [
        "beta/crewai",
        "alpha-2/langgraph",
        "alpha/langgraph",
        "alpha/crewai",
    ]


def test_agent_and_framework_are_exact_match(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client, agent_name="alpha")) == ["alpha/langgraph", "alpha/crewai"]
    assert names(query(client, agent_name="alph")) == []
    assert names(query(client, agent_name="alpha*")) == []
    assert names(query(client, framework="crewai")) == ["beta/crewai", "alpha/crewai"]
    assert names(query(client, agent_name="alpha", framework="crewai")) == ["alpha/crewai"]


def test_since_until_are_inclusive(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client, since="2026-11-02T12:00:00Z")) == [
        "beta/crewai",
        "alpha-2/langgraph",
        "alpha/langgraph",
    ]
    assert names(query(client, until="2026-11-02T12:00:00Z")) == ["alpha/langgraph", "alpha/crewai"]
    # A bare date: since = start of that day, until = end of that day.
    assert names(query(client, since="2026-11-02", until="2026-11-02")) == [
        "alpha-2/langgraph",
        "alpha/langgraph",
    ]
    # Offsets are honoured: 13:00+01:00 is 12:00Z.
    assert names(query(client, until="2026-11-02T13:00:00+01:00")) == [
        "alpha/langgraph",
        "alpha/crewai",
    ]


def test_score_range_uses_latest_evaluation_and_excludes_unscored(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client, min_score=0.5)) == ["alpha-2/langgraph", "alpha/langgraph"]
    assert names(query(client, max_score=0.5)) == ["alpha-2/langgraph", "alpha/crewai"]
    assert names(query(client, min_score=0.3, max_score=0.6)) == ["alpha-2/langgraph"]
    assert names(query(client, min_score=0.5, max_score=0.5)) == ["alpha-2/langgraph"]


def test_exact_run_session_case_filters(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client, run="r2")) == ["beta/crewai", "alpha-2/langgraph"]
    assert names(query(client, session="s1")) == ["alpha-2/langgraph", "alpha/crewai"]
    assert names(query(client, case_key="k1", run="r1")) == ["alpha/crewai"]


def test_sorting(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client, sort_by="latency_ms", sort_order="asc")) == [
        "alpha/langgraph",
        "alpha-2/langgraph",
        "alpha/crewai",
        "beta/crewai",
    ]
    assert names(query(client, sort_by="latency_ms", sort_order="desc")) == [
        "alpha/crewai",
        "alpha-2/langgraph",
        "alpha/langgraph",
        "beta/crewai",
    ]
    assert names(query(client, sort_by="cost_usd", sort_order="desc")) == [
        "alpha/crewai",
        "beta/crewai",
        "alpha/langgraph",
        "alpha-2/langgraph",
    ]
    assert names(query(client, sort_by="timestamp", sort_order="asc")) == [
        "alpha/crewai",
        "alpha/langgraph",
        "alpha-2/langgraph",
        "beta/crewai",
    ]


def test_pagination_total_is_across_pages(seeded: Any) -> None:
    client, _ = seeded
    first = query(client, limit=3, offset=0).json()
    second = query(client, limit=3, offset=3).json()
    assert first["total"] == second["total"] == 4
    assert len(first["traces"]) == 3 and len(second["traces"]) == 1
    assert first["limit"] == 3 and second["offset"] == 3
    beyond = query(client, limit=3, offset=10).json()
    assert beyond["traces"] == [] and beyond["total"] == 4
    filtered = query(client, agent_name="alpha", limit=1).json()
    assert filtered["total"] == 2 and len(filtered["traces"]) == 1


def test_full_text_search_over_every_field(seeded: Any) -> None:
    client, _ = seeded
    assert names(query(client, q="Paris")) == ["alpha/langgraph"]  # input + output
    assert names(query(client, q="facture")) == ["alpha/crewai"]  # output
    assert names(query(client, q="damaged")) == ["alpha-2/langgraph"]  # tool-call input value
    assert names(query(client, q="zebra")) == ["beta/crewai"]  # metadata value
    assert names(query(client, q="paris sunny")) == ["alpha/langgraph"]  # all words
    assert names(query(client, q="paris zebra")) == []
    assert names(query(client, q="facture", framework="langgraph")) == []  # combined with filters
    hit = query(client, q="Paris").json()
    assert hit["total"] == 1
    marks = {h["field"]: h["snippet"] for h in hit["traces"][0]["highlights"]}
    assert "<mark>Paris</mark>" in marks["output"]


def test_search_ranks_better_matches_first(client: TestClient) -> None:
    for text in (
        "refund refund refund policy",
        "one refund mention in a long unrelated sentence here",
    ):
        assert (
            client.post("/api/v1/traces", json={"agent_name": "a", "output": text}).status_code
            == 201
        )
    ranked = query(client, q="refund").json()["traces"]
    assert ranked[0]["output"].startswith("refund refund")


def test_search_query_cannot_inject_fts_syntax(seeded: Any) -> None:
    client, _ = seeded
    for q in ['"', "NEAR(", "a OR", "*", "paris)", "-", "col:paris"]:
        assert query(client, q=q).status_code == 200


@pytest.mark.parametrize(
    ("params", "fields", "quoted"),
    [
        (
            {"since": "2026-11-05", "until": "2026-11-01"},
            {"since", "until"},
            ["2026-11-05", "2026-11-01"],
        ),
        ({"min_score": 0.8, "max_score": 0.2}, {"min_score", "max_score"}, ["0.8", "0.2"]),
        ({"since": "last tuesday"}, {"since"}, ["last tuesday"]),
        ({"until": "2026-13-45"}, {"until"}, ["2026-13-45"]),
        ({"until": "1700000000"}, {"until"}, ["1700000000"]),
        ({"min_score": 1.5}, {"min_score"}, []),
        ({"max_score": -0.1}, {"max_score"}, []),
        ({"limit": 0}, {"limit"}, []),
        ({"limit": 1001}, {"limit"}, []),
        ({"offset": -1}, {"offset"}, []),
        ({"sort_by": "agent_name"}, {"sort_by"}, []),
        ({"sort_order": "up"}, {"sort_order"}, []),
        ({"agent": "alpha"}, {"agent"}, []),
    ],
)
def test_refusals_name_the_bounds(
    client: TestClient, params: dict[str, Any], fields: set[str], quoted: list[str]
) -> None:
    response = query(client, **params)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "IRIS_INVALID_ARGUMENT"
    assert {d["field"] for d in error["details"]} == fields
    for value in quoted:
        assert value in error["message"]


def test_limit_bounds_accepted(seeded: Any) -> None:
    client, _ = seeded
    assert query(client, limit=1).json()["limit"] == 1
    assert query(client, limit=1000).json()["limit"] == 1000


def test_include_summary(seeded: Any) -> None:
    client, _ = seeded
    body = query(client, include_summary="true").json()
    assert set(body["summary"]) >= {
        "total_traces",
        "avg_latency_ms",
        "total_cost_usd",
        "error_rate",
        "eval_pass_rate",
        "traces_per_hour",
        "top_agents",
    }


def test_search_without_the_index_scans_within_a_budget(
    make_client: Any,
) -> None:
    client = make_client(search_index="off")
    for body in SEED:
        assert client.post("/api/v1/traces", json=body).status_code == 201
    hit = query(client, q="Paris").json()
    assert [t["agent_name"] for t in hit["traces"]] == ["alpha"]
    assert hit["search"] == {"complete": True, "scanned": 4, "budget_ms": 1000}
    assert names(query(client, q="zebra")) == ["beta/crewai"]
    assert names(query(client, q="damaged")) == ["alpha-2/langgraph"]
    assert names(query(client, q="paris zebra")) == []
