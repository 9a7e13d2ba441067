"""API key enforcement, and a database that is down answering 503."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings


def test_api_key_required_when_configured(make_client: Callable[..., TestClient]) -> None:
    client = make_client(api_key="k3y")
    assert client.get("/api/v1/health").status_code == 200  # always open
    missing = client.get("/api/v1/traces")
    assert missing.status_code == 401 and missing.json()["error"]["code"] == "IRIS_UNAUTHORIZED"
    wrong = client.get("/api/v1/traces", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    ok = client.post(
        "/api/v1/traces", json={"agent_name": "a"}, headers={"Authorization": "Bearer k3y"}
    )
    assert ok.status_code == 201
    assert ok.headers["x-content-type-options"] == "nosniff"


def test_database_down_is_503_with_retry_after(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, db_url="postgresql://iris@127.0.0.1:1/none")
    with TestClient(create_app(settings, migrate_on_start=False)) as client:
        for response in (
            client.post("/api/v1/traces", json={"agent_name": "a"}),
            client.get("/api/v1/traces"),
            client.get("/api/v1/health"),
        ):
            assert response.status_code == 503, response.text
            assert response.headers["retry-after"] == "1"
            assert "Traceback" not in response.text
        assert client.get("/api/v1/traces").json()["error"]["code"] == "IRIS_STORAGE_ERROR"
