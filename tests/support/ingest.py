"""Storing OTLP bodies and readying their traces, as the receiver and the
assembler do, for storage-level tests."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from service.ingest import decode_otlp_protobuf, jobs_for_batch
from storage import assembly
from storage.writer import run_transaction


def ingest(engine: Engine, body: bytes, *, at: datetime | None = None, tenant: str = "t") -> None:
    """Store one OTLP/protobuf body through the writer, received ``at`` (now if None)."""
    job = jobs_for_batch(decode_otlp_protobuf(body), tenant, "otlp", len(body))
    if at is not None:
        job = replace(job, received_at=at)
    _, failures = run_transaction(engine, [job])
    assert failures == 0


def sweep(conn: Any, now: datetime, limit: int = 500) -> int:
    """Ready what is due at ``now`` (grace 2 s, idle 30 s, judged by default,
    two revisions) and queue its jobs; returns how many traces became ready."""
    return assembly.ready_due(
        conn,
        now=now,
        grace=timedelta(seconds=2),
        idle=timedelta(seconds=30),
        default_evaluate=True,
        max_revision=2,
        limit=limit,
    )
