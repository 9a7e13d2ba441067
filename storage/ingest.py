"""Write jobs for complete traces (native API, MCP log_trace, CLI ingest)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from sqlalchemy import Connection

from storage import search
from storage import traces as trace_store
from storage.assembly import enqueue_jobs, job_row
from storage.evaluations import store_evaluation
from storage.writer import WriteJob


@dataclass
class NativeTraceWrite(WriteJob):
    """One complete trace with its spans; written as-is, never deduplicated."""

    row: dict[str, Any]
    span_rows: list[dict[str, Any]]
    index: bool = True
    # Queue the trace for the worker pool (evaluation on ingest).
    enqueue: bool = False
    # A synchronous evaluation to store with the trace, in the same transaction.
    evaluation: dict[str, Any] | None = None
    spans: int = 0
    nbytes: int = 0
    kind: ClassVar[str] = "native"

    def __post_init__(self) -> None:
        self.spans = max(1, len(self.span_rows))

    @classmethod
    def apply_group(cls, conn: Connection, jobs: Sequence[WriteJob]) -> list[Any]:
        natives = [j for j in jobs if isinstance(j, NativeTraceWrite)]
        indexed = [j.row for j in natives if j.index]
        trace_store.insert_traces(
            conn,
            [j.row for j in natives],
            [j.span_rows for j in natives],
            index=False,
        )
        search.index_rows(conn, indexed)
        enqueue_jobs(
            conn,
            [
                job_row(
                    j.row["tenant_id"],
                    j.row["trace_id"],
                    1,
                    None,
                    arrival_us=j.row["arrival_us"],
                    now=j.row["created_at"],
                )
                for j in natives
                if j.enqueue
            ],
        )
        results = []
        for job in natives:
            row = job.row
            evaluation_id = None
            if job.evaluation is not None:
                evaluation_id = store_evaluation(
                    conn,
                    tenant_id=row["tenant_id"],
                    result=job.evaluation,
                    now=row["created_at"],
                    trace_id=row["trace_id"],
                    trace_arrival_us=row["arrival_us"],
                    trace_revision=1,
                    agent_name=row["agent_name"],
                    output_text=row.get("output"),
                    run=row.get("run"),
                    case_key=row.get("case_key"),
                    session_id=row.get("session_id"),
                )
            results.append((row["trace_id"], evaluation_id))
        return results
