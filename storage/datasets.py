"""Datasets: versioned sets of case keys that comparisons can be restricted to."""

from __future__ import annotations

import os
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, and_, func, select

from storage.codec import iso
from storage.models import Dataset, Evaluation, Trace

datasets = cast(Table, Dataset.__table__)
evaluations = cast(Table, Evaluation.__table__)
traces = cast(Table, Trace.__table__)


def to_api(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "label": row.label,
        "version": row.version,
        "cases": len(row.case_keys or []),
        "caseKeys": list(row.case_keys or []),
        "sourceRun": row.source_run,
        "createdAt": iso(row.created_at),
    }


def run_case_keys(conn: Connection, tenant_id: str, run: str) -> list[str]:
    """The distinct case keys a run's traces and evaluations carry."""
    keys = {
        k
        for (k,) in conn.execute(
            select(evaluations.c.case_key).where(
                and_(
                    evaluations.c.tenant_id == tenant_id,
                    evaluations.c.run == run,
                    evaluations.c.case_key.is_not(None),
                )
            )
        )
    }
    keys |= {
        k
        for (k,) in conn.execute(
            select(traces.c.case_key).where(
                and_(
                    traces.c.tenant_id == tenant_id,
                    traces.c.run == run,
                    traces.c.case_key.is_not(None),
                )
            )
        )
    }
    return sorted(keys)


def create(
    conn: Connection,
    tenant_id: str,
    label: str,
    case_keys: list[str],
    *,
    now: datetime,
    source_run: str | None,
) -> Any:
    latest = conn.execute(
        select(func.max(datasets.c.version)).where(
            and_(datasets.c.tenant_id == tenant_id, datasets.c.label == label)
        )
    ).scalar()
    dataset_id = "ds_" + os.urandom(8).hex()
    conn.execute(
        datasets.insert().values(
            id=dataset_id,
            tenant_id=tenant_id,
            label=label,
            version=int(latest or 0) + 1,
            case_keys=sorted(set(case_keys)),
            source_run=source_run,
            created_at=now,
        )
    )
    return conn.execute(select(datasets).where(datasets.c.id == dataset_id)).one()


def all_datasets(conn: Connection, tenant_id: str) -> list[Any]:
    return list(
        conn.execute(
            select(datasets)
            .where(datasets.c.tenant_id == tenant_id)
            .order_by(datasets.c.label, datasets.c.version.desc())
        )
    )


def find(conn: Connection, tenant_id: str, ref: str) -> Any | None:
    """A dataset by id, or by label (its newest version)."""
    by_id = conn.execute(
        select(datasets).where(and_(datasets.c.tenant_id == tenant_id, datasets.c.id == ref))
    ).first()
    if by_id is not None:
        return by_id
    return conn.execute(
        select(datasets)
        .where(and_(datasets.c.tenant_id == tenant_id, datasets.c.label == ref))
        .order_by(datasets.c.version.desc())
        .limit(1)
    ).first()
