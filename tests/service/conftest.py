from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.settings import Settings


@pytest.fixture
def make_client(tmp_path: Path, db_url: str) -> Iterator[Callable[..., TestClient]]:
    clients: list[TestClient] = []

    def make(**overrides: Any) -> TestClient:
        overrides.setdefault("workers", 0)  # tests drain the queue in-process
        overrides.setdefault("otlp_grpc_port", 0)
        settings = Settings(home=tmp_path / "home", db_url=db_url, **overrides)
        client = TestClient(create_app(settings, migrate_on_start=False))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client: Callable[..., TestClient]) -> TestClient:
    return make_client()
