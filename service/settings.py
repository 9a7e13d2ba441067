"""The one settings object: every ``IRIS_*`` variable lives here.

CLI flags override environment variables by being passed as constructor
arguments (pydantic-settings gives init kwargs precedence over the
environment), so there is exactly one place that decides a value.
"""

from __future__ import annotations

import ipaddress
import os
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    """True when ``host`` only accepts connections from this machine."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    """Iris configuration (SPEC §16.2), read from ``IRIS_*`` variables."""

    model_config = SettingsConfigDict(
        env_prefix="IRIS_", extra="ignore", frozen=True, populate_by_name=True
    )

    home: Path = Field(default_factory=lambda: Path.home() / ".iris")
    db_path: Path | None = None
    db_url: str | None = None
    tenant: str = "local"

    dashboard_host: str = "127.0.0.1"
    dashboard_port: int = Field(default=6920, ge=1, le=65535)
    log_level: Literal["debug", "info", "warn", "warning", "error"] = "info"

    api_key: str | None = None
    api_key_file: Path | None = None
    allow_unauthenticated: bool = False

    # MCP Streamable HTTP transport (`iris mcp --transport http`).
    mcp_host: str = Field(default="127.0.0.1", validation_alias="IRIS_HOST")
    mcp_port: int = Field(default=3000, ge=1, le=65535, validation_alias="IRIS_PORT")

    otlp_grpc: bool = True
    otlp_grpc_port: int = Field(default=4317, ge=0, le=65535)
    otlp_max_body_bytes: int = Field(default=20 * 1024 * 1024, ge=1024)
    max_body_bytes: int = Field(default=1024 * 1024, ge=1024)

    assembly_grace_ms: int = Field(default=2000, ge=0)
    assembly_idle_ms: int = Field(default=30000, ge=0)

    # Group-commit writer and admission control (DESIGN decisions 1-2).
    commit_max_spans: int = Field(default=5000, ge=1)
    # 0: commit as soon as the writer is free; requests that arrive while a
    # commit runs still coalesce into the next one (measured faster than waiting).
    commit_max_delay_ms: float = Field(default=0.0, ge=0)
    admission_max_spans: int = Field(default=200_000, ge=1)
    admission_max_bytes: int = Field(default=256 * 1024 * 1024, ge=1024)
    # Run the writer's transactions in a child process of `iris serve`, so the
    # database work and the HTTP/gRPC work (decode, row building) use two cores.
    writer_process: bool = False

    search_index: Literal["on", "off"] = "on"
    search_budget_ms: int = Field(default=1000, ge=1)

    workers: int | None = Field(default=None, ge=0)
    evaluate_on_ingest: bool = True
    # A trace re-opened by late spans is judged again at most this many times.
    max_reevaluations: int = Field(default=3, ge=0)
    job_lease_s: float = Field(default=60.0, gt=0)
    # Jobs a worker claims, judges and stores at once. A store's commit costs
    # per batch (FTS5 writes a segment each commit and merges them level by
    # level; the claim's and store's statements): 128 measured 3.7 % fewer
    # instructions a trace than 64 in bench/worker_instr.py, and FTS5 alone
    # 397k -> 346k a document in bench/fts_merge.py.
    job_batch: int = Field(default=128, ge=1)
    queue_warn_pending: int = Field(default=10_000, ge=1)

    @field_validator("log_level", mode="before")
    @classmethod
    def _lower_level(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @cached_property
    def database_url(self) -> str:
        """SQLAlchemy URL: ``IRIS_DB_URL`` if set, else SQLite under ``IRIS_HOME``."""
        if self.db_url:
            return self.db_url
        return f"sqlite:///{self.sqlite_path}"

    @property
    def sqlite_path(self) -> Path:
        return self.db_path if self.db_path is not None else self.home / "iris.db"

    @property
    def effective_api_key(self) -> str | None:
        """The API key from ``IRIS_API_KEY`` or, failing that, ``IRIS_API_KEY_FILE``."""
        if self.api_key:
            return self.api_key
        if self.api_key_file is not None:
            key = self.api_key_file.read_text(encoding="utf-8").strip()
            return key or None
        return None

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers is not None else (os.cpu_count() or 1)

    def ensure_home(self) -> None:
        """Create ``IRIS_HOME`` (and the SQLite directory) with private permissions."""
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.db_url:
            self.sqlite_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
