"""Reading stored spans together with their shared resource.

A span row references its serialized OTLP ``Resource`` by hash
(``spans.resource_hash`` → ``span_resources``). Every reader selects spans
through ``span_select`` so it sees the resource bytes as ``otlp_resource``,
the way ``expand_stored_span`` wants them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, cast

from sqlalchemy import Connection, Select, Table, and_, delete, exists, select

from storage.models import SpanResource, SpanRow

spans = cast(Table, SpanRow.__table__)
span_resources = cast(Table, SpanResource.__table__)


def resource_hash(raw: bytes) -> str:
    """The key of a serialized resource: 128 bits of BLAKE2b, in hex."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def span_select(*columns: Any) -> Select[tuple[object, ...]]:
    """``SELECT spans.*, span_resources.otlp_resource`` (NULL for JSON spans),
    or only the given ``spans`` columns and the resource bytes."""
    joined = spans.outerjoin(
        span_resources,
        and_(
            span_resources.c.tenant_id == spans.c.tenant_id,
            span_resources.c.resource_hash == spans.c.resource_hash,
        ),
    )
    return select(*(columns or (spans,)), span_resources.c.otlp_resource).select_from(joined)


def drop_unreferenced_resources(conn: Connection, tenant_id: str, hashes: Iterable[str]) -> None:
    """Delete the given resources that no stored span references any more."""
    for h in sorted(set(hashes)):
        in_use = exists().where(and_(spans.c.tenant_id == tenant_id, spans.c.resource_hash == h))
        conn.execute(
            delete(span_resources).where(
                and_(
                    span_resources.c.tenant_id == tenant_id,
                    span_resources.c.resource_hash == h,
                    ~in_use,
                )
            )
        )
