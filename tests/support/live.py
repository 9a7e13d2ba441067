"""Run a real ``iris serve`` process for end-to-end tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LiveServer:
    process: subprocess.Popen[bytes]
    http_port: int
    grpc_port: int
    home: Path
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)


def _wait_healthy(server: LiveServer, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"iris serve exited: {server.log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{server.url}/api/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"iris serve not healthy: {server.log.read_text()[-3000:]}")


@contextmanager
def live_server(home: Path, db_url: str, **env: str) -> Iterator[LiveServer]:
    http_port, grpc_port = free_port(), free_port()
    home.mkdir(parents=True, exist_ok=True)
    log = home / "server.log"
    environ = {
        **os.environ,
        "IRIS_HOME": str(home),
        "IRIS_DB_URL": db_url,
        "IRIS_DASHBOARD_PORT": str(http_port),
        "IRIS_OTLP_GRPC_PORT": str(grpc_port),
        **env,
    }
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service", "serve"], env=environ, stdout=out, stderr=out
        )
    server = LiveServer(process, http_port, grpc_port, home, log)
    try:
        _wait_healthy(server)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
