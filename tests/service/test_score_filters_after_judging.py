"""A trace the worker judged is found by the score filters at its verdict's
score and not beside it (the filters read ``score_band``, which the worker
sets with the score)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from service.assembler import sweep_once
from service.worker import drain
from tests.support.fixtures import scenarios

HEADERS = {"content-type": "application/x-protobuf"}


def test_a_judged_trace_is_listed_by_its_score(make_client: Callable[..., TestClient]) -> None:
    client = make_client(evaluate_on_ingest=True, assembly_grace_ms=0)
    state = client.app.state.iris  # type: ignore[attr-defined]
    for scenario_id in ("pydantic_ai/tools_ok", "langgraph/tools_ok"):
        scenario = next(s for s in scenarios() if s.id == scenario_id)
        response = client.post("/v1/traces", content=scenario.bodies("pb")[0], headers=HEADERS)
        assert response.status_code == 200
    sweep_once(state.engine, state.settings)
    drain(state.engine, state.settings)

    listed = client.get("/api/v1/traces").json()["traces"]
    assert len(listed) == 2
    for trace in listed:
        score = trace["score"]
        assert isinstance(score, float), trace

        def ids(**params: float) -> set[str]:
            page = client.get("/api/v1/traces", params=params).json()
            return {t["trace_id"] for t in page["traces"]}

        assert trace["trace_id"] in ids(min_score=score, max_score=score)
        assert trace["trace_id"] in ids(min_score=score)
        assert trace["trace_id"] in ids(max_score=score)
        if score < 1.0:
            assert trace["trace_id"] not in ids(min_score=min(1.0, score + 1e-9))
        if score > 0.0:
            assert trace["trace_id"] not in ids(max_score=max(0.0, score - 1e-9))
