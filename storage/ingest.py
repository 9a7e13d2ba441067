"""Write jobs for complete traces (native API, MCP log_trace, CLI ingest)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from sqlalchemy import Connection

from storage import search
from storage import traces as trace_store
from storage.writer import WriteJob


@dataclass
class NativeTraceWrite(WriteJob):
    """One complete trace with its spans; written as-is, never deduplicated."""

    row: dict[str, Any]
    span_rows: list[dict[str, Any]]
    index: bool = True
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
            [s for j in natives for s in j.span_rows],
            index=False,
        )
        search.index_rows(conn, indexed)
        return [j.row["trace_id"] for j in natives]
