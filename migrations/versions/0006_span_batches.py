"""spans stored in batches: one row per trace per write instead of one per span

SQLite spends ~20 µs inserting a span row whatever its size (most of it the
row's entry in the random-order primary key index), so the standard ingest
load paid that four times per trace. ``span_batches`` holds the spans one
write brings to one trace (``storage.models.SpanBatchRow``): protobuf spans
as a serialized OTLP ``ResourceSpans`` without its resource (which stays in
``span_resources``), JSON spans as a list of objects.

Upgrade moves every stored span into a batch of its own (keys: how many
spans of its trace came before it, in arrival order); downgrade splits
batches back into span rows. Both are exact for what the old rows held (the
old rows kept only the scope's name, so that is what a moved batch's scope
carries).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 23:30:00
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from opentelemetry.proto.common.v1.common_pb2 import InstrumentationScope
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
from sqlalchemy.dialects import postgresql

from receivers.otlp.wire import write_varint

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

_JSON = sa.JSON(none_as_null=True).with_variant(
    postgresql.JSONB(astext_type=sa.Text(), none_as_null=True), "postgresql"
)
_PAGE = 1000

# OTLP enum numbers to the names the span rows stored (as the receivers map them).
_KINDS = {0: "UNSPECIFIED", 1: "INTERNAL", 2: "SERVER", 3: "CLIENT", 4: "PRODUCER", 5: "CONSUMER"}
_CODES = {0: "UNSET", 1: "OK", 2: "ERROR"}

_SPAN_COLUMNS = (
    "span_id",
    "parent_span_id",
    "name",
    "kind",
    "iris_kind",
    "status_code",
    "status_message",
    "start_unix_nano",
    "end_unix_nano",
    "attributes",
    "events",
    "resource",
    "scope_name",
)


def _spans_table(meta: sa.MetaData) -> sa.Table:
    """The ``spans`` table as revision 0005 left it."""
    return sa.Table(
        "spans",
        meta,
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("span_id", sa.String(length=16), nullable=False),
        sa.Column("parent_span_id", sa.String(length=16), nullable=True),
        sa.Column("name", sa.String(length=512), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("iris_kind", sa.String(length=16), nullable=False),
        sa.Column("status_code", sa.String(length=8), nullable=False),
        sa.Column("status_message", sa.Text(), nullable=True),
        sa.Column("start_unix_nano", sa.BigInteger(), nullable=False),
        sa.Column("end_unix_nano", sa.BigInteger(), nullable=False),
        sa.Column("attributes", _JSON, nullable=True),
        sa.Column("events", _JSON, nullable=True),
        sa.Column("resource", _JSON, nullable=True),
        sa.Column("scope_name", sa.String(length=256), nullable=True),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.Column("otlp_span", sa.LargeBinary(), nullable=True),
        sa.Column("resource_hash", sa.String(length=32), nullable=True),
        sa.PrimaryKeyConstraint("tenant_id", "trace_id", "span_id", name="pk_spans"),
    )


def _batches_table(meta: sa.MetaData) -> sa.Table:
    return sa.Table(
        "span_batches",
        meta,
        sa.Column("tenant_id", sa.String(length=64), nullable=False),
        sa.Column("trace_id", sa.String(length=32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("span_count", sa.Integer(), nullable=False),
        sa.Column("span_ids", sa.Text(), nullable=False),
        sa.Column("iris_kinds", sa.Text(), nullable=True),
        sa.Column("received_at", sa.DateTime(), nullable=False),
        sa.Column("resource_hash", sa.String(length=32), nullable=True),
        sa.Column("otlp_spans", sa.LargeBinary(), nullable=True),
        sa.Column("spans_json", _JSON, nullable=True),
        sa.PrimaryKeyConstraint("tenant_id", "trace_id", "seq", name="pk_span_batches"),
    )


def _use_lz4(table: str, columns: tuple[str, ...]) -> None:
    """As revision 0005 did for the other tables: lz4 where the server has it."""
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    if int(conn.execute(sa.text("SHOW server_version_num")).scalar_one()) < 140000:
        return
    methods = conn.execute(
        sa.text("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
    ).scalar_one_or_none()
    if methods is None or "lz4" not in list(methods):
        return
    for column in columns:
        op.execute(sa.text(f'ALTER TABLE "{table}" ALTER COLUMN "{column}" SET COMPRESSION lz4'))


def _resource_spans(scope_name: str | None, span: bytes) -> bytes:
    """A ``ResourceSpans`` (no resource) holding one ``ScopeSpans`` with ``span``."""
    message = ScopeSpans()
    if scope_name:
        message.scope.CopyFrom(InstrumentationScope(name=scope_name))
    # The span's bytes go in as they are: field 2 after the scope.
    scope_spans = message.SerializeToString() + b"\x12" + write_varint(len(span)) + span
    return b"\x12" + write_varint(len(scope_spans)) + scope_spans


def upgrade() -> None:
    conn = op.get_bind()
    meta = sa.MetaData()
    spans = _spans_table(meta)
    batches = _batches_table(meta)
    batches.create(conn)
    op.create_index(
        "ix_span_batches_tenant_resource", "span_batches", ["tenant_id", "resource_hash"]
    )
    _use_lz4("span_batches", ("otlp_spans", "spans_json"))
    order = (spans.c.tenant_id, spans.c.trace_id, spans.c.received_at, spans.c.span_id)
    result = conn.execute(sa.select(spans).order_by(*order).execution_options(stream_results=True))
    current: tuple[str, str] | None = None
    seq = 0
    rows: list[dict[str, Any]] = []
    for span in result.mappings():
        key = (span["tenant_id"], span["trace_id"])
        if key != current:
            current, seq = key, 0
        rows.append(_batch_of(span, seq))
        seq += 1
        if len(rows) >= _PAGE:
            conn.execute(batches.insert(), rows)
            rows = []
    if rows:
        conn.execute(batches.insert(), rows)
    op.drop_index("ix_spans_tenant_resource", table_name="spans")
    op.drop_table("spans")


def _batch_of(span: Any, seq: int) -> dict[str, Any]:
    protobuf = span["otlp_span"] is not None
    return {
        "tenant_id": span["tenant_id"],
        "trace_id": span["trace_id"],
        "seq": seq,
        "span_count": 1,
        "span_ids": span["span_id"],
        "iris_kinds": span["iris_kind"] if protobuf else None,
        "received_at": span["received_at"],
        "resource_hash": span["resource_hash"],
        "otlp_spans": _resource_spans(span["scope_name"], bytes(span["otlp_span"]))
        if protobuf
        else None,
        "spans_json": None if protobuf else [{k: span[k] for k in _SPAN_COLUMNS}],
    }


def downgrade() -> None:
    conn = op.get_bind()
    meta = sa.MetaData()
    spans = _spans_table(meta)
    batches = _batches_table(meta)
    spans.create(conn)
    op.create_index("ix_spans_tenant_resource", "spans", ["tenant_id", "resource_hash"])
    result = conn.execute(sa.select(batches).execution_options(stream_results=True))
    rows: list[dict[str, Any]] = []
    for batch in result.mappings():
        rows.extend(_rows_of(batch))
        if len(rows) >= _PAGE:
            conn.execute(spans.insert(), rows)
            rows = []
    if rows:
        conn.execute(spans.insert(), rows)
    op.drop_index("ix_span_batches_tenant_resource", table_name="span_batches")
    op.drop_table("span_batches")


def _rows_of(batch: Any) -> list[dict[str, Any]]:
    common = {
        "tenant_id": batch["tenant_id"],
        "trace_id": batch["trace_id"],
        "received_at": batch["received_at"],
        "resource_hash": batch["resource_hash"],
    }
    if batch["otlp_spans"] is None:
        return [
            {**common, **{k: obj.get(k) for k in _SPAN_COLUMNS}, "otlp_span": None}
            for obj in batch["spans_json"] or ()
        ]
    message = ResourceSpans.FromString(bytes(batch["otlp_spans"]))
    kinds = iter((batch["iris_kinds"] or "").split())
    out = []
    for scope_spans in message.scope_spans:
        scope_name = scope_spans.scope.name or None
        for s in scope_spans.spans:
            out.append(
                {
                    **common,
                    "span_id": s.span_id.hex(),
                    "parent_span_id": s.parent_span_id.hex() or None,
                    "name": s.name[:512],
                    "kind": _KINDS.get(s.kind, "UNSPECIFIED"),
                    "iris_kind": next(kinds, "SPAN"),
                    "status_code": _CODES.get(s.status.code, "UNSET"),
                    "status_message": s.status.message or None,
                    "start_unix_nano": s.start_time_unix_nano,
                    "end_unix_nano": s.end_time_unix_nano,
                    "attributes": None,
                    "events": None,
                    "resource": None,
                    "scope_name": scope_name,
                    "otlp_span": s.SerializeToString(),
                }
            )
    return out
