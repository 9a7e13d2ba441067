"""Evaluation rows: reading them back in the shape evaluate_output returned."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import Connection, Table, and_, select

from storage.codec import iso
from storage.models import Evaluation

evaluations = cast(Table, Evaluation.__table__)


def evaluation_to_api(row: Any) -> dict[str, Any]:
    """SPEC §5.2 output shape, derived on read: only what the row supports."""
    out: dict[str, Any] = {
        "id": row.id,
        "trace_id": row.trace_id,
        "eval_type": row.eval_type,
        "kind": row.kind,
        "score": row.score,
        "passed": row.passed,
        "verdict": row.verdict,
        "coverage": row.coverage,
        "provenance": row.provenance,
        "rule_results": row.rule_results or [],
        "suggestions": row.suggestions or [],
        "rules_evaluated": row.rules_evaluated,
        "rules_skipped": row.rules_skipped,
        "insufficient_data": row.insufficient_data,
        "critical_failures": row.critical_failures or [],
        "critical_skipped": row.critical_skipped or [],
        "categories": row.categories,
        "output_text": row.output_text,
        "agent_name": row.agent_name,
        "run": row.run,
        "case_key": row.case_key,
        "session_id": row.session_id,
        "created_at": iso(row.created_at),
    }
    if row.note:
        out["note"] = row.note
    if row.interpretations:
        out["interpretations"] = row.interpretations
    if row.erased_at is not None:
        out["erased_at"] = iso(row.erased_at)
    return out


def evaluations_for_trace(conn: Connection, tenant_id: str, trace_id: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        select(evaluations)
        .where(and_(evaluations.c.tenant_id == tenant_id, evaluations.c.trace_id == trace_id))
        .order_by(evaluations.c.created_at.desc(), evaluations.c.id)
    )
    return [evaluation_to_api(r) for r in rows]
