"""How spans are stored: batches of one trace's spans, and reading them back.

A write stores the spans it brings to one trace as one ``span_batches`` row
(``storage.models.SpanBatchRow``) per resource, instead of a row per span:
SQLite's cost is per row, not per byte. Protobuf spans keep their wire bytes
(a serialized ``ResourceSpans`` without its resource: each scope, then its
spans), with the serialized ``Resource`` stored once per content in
``span_resources``; spans from JSON doors are a list of objects. Every
reader gets one dict per span from ``expand``, with the keys a span had
when it was a row of its own (see ``SPAN_KEYS``), so
``service.derivation.record_from_row`` and ``codec.span_to_api`` read both
forms the same way.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any, cast

from sqlalchemy import (
    Connection,
    String,
    Table,
    TextualSelect,
    and_,
    bindparam,
    delete,
    exists,
    select,
    text,
)

from receivers.otlp.wire import read_varint, write_varint
from storage.assembly import as_dicts
from storage.models import SpanBatchRow, SpanResource

span_batches = cast(Table, SpanBatchRow.__table__)
span_resources = cast(Table, SpanResource.__table__)

_IN_CHUNK = 500
# ``spans_of``'s order, as a C-level key (a lambda per span cost more).
_TRACE_THEN_SPAN = itemgetter("trace_id", "span_id")
_SPAN_ID = itemgetter("span_id")

# The keys of one span as readers see it (``expand``). ``attributes``,
# ``events`` and ``resource`` are None for protobuf spans, whose content is
# in ``otlp_span`` and ``otlp_resource`` (``receivers.otlp.decode.expand_stored_span``).
SPAN_KEYS = (
    "trace_id",
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
    "otlp_span",
    "otlp_resource",
)
# What a JSON-form span object holds (the rest comes from its batch).
JSON_SPAN_KEYS = tuple(k for k in SPAN_KEYS if k not in ("trace_id", "otlp_span", "otlp_resource"))


def resource_hash(raw: bytes) -> str:
    """The key of a serialized resource: 128 bits of BLAKE2b, in hex."""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


@dataclass
class SpanPiece:
    """Spans one request brings to one trace under one resource.

    Exactly one form is set: ``otlp_spans`` (protobuf: the batch's bytes as
    stored, a serialized ``ResourceSpans`` without its resource, built by
    ``OtlpPieceBuilder``) or ``json_spans`` (objects with ``JSON_SPAN_KEYS``).
    ``span_ids`` and ``iris_kinds`` run parallel to the spans, in order.
    The receiving process packs the bytes, so the writer (a process of its
    own with ``IRIS_WRITER_PROCESS``) receives them ready to insert."""

    span_ids: list[str]
    iris_kinds: list[str]
    resource_hash: str | None = None
    otlp_spans: bytes | None = None
    json_spans: list[dict[str, Any]] | None = None

    def __reduce__(self) -> tuple[type[SpanPiece], tuple[Any, ...]]:
        # Pickled as the constructor's arguments (to the writer process): a
        # third cheaper to load than the default's instance dict.
        return (
            SpanPiece,
            (self.span_ids, self.iris_kinds, self.resource_hash, self.otlp_spans, self.json_spans),
        )

    def keep(self, wanted: Sequence[int]) -> SpanPiece:
        """The same piece with only the spans at ``wanted`` (for idempotency:
        the rare write that repeats some stored spans of a trace)."""
        otlp = None
        if self.otlp_spans is not None:
            chosen = set(wanted)
            runs = []
            at = 0
            for scope, spans in unpack_resource_spans(self.otlp_spans):
                run = [raw for k, raw in enumerate(spans, at) if k in chosen]
                at += len(spans)
                if run:
                    runs.append((scope, run))
            otlp = pack_resource_spans(runs)
        return SpanPiece(
            [self.span_ids[i] for i in wanted],
            [self.iris_kinds[i] for i in wanted],
            self.resource_hash,
            otlp,
            None if self.json_spans is None else [self.json_spans[i] for i in wanted],
        )


class OtlpPieceBuilder:
    """Collects a trace's protobuf spans of one resource, scope by scope."""

    __slots__ = ("iris_kinds", "resource_hash", "runs", "span_ids")

    def __init__(self, resource_hash: str | None):
        self.resource_hash = resource_hash
        self.span_ids: list[str] = []
        self.iris_kinds: list[str] = []
        self.runs: list[tuple[bytes, list[bytes]]] = []

    def add(self, span_id: str, iris_kind: str, scope: bytes, span: bytes) -> None:
        """Append a span (its scope's run continues, or a new one starts)."""
        runs = self.runs
        if runs and runs[-1][0] == scope:
            runs[-1][1].append(span)
        else:
            runs.append((scope, [span]))
        self.span_ids.append(span_id)
        self.iris_kinds.append(iris_kind)

    def piece(self) -> SpanPiece:
        return SpanPiece(
            self.span_ids,
            self.iris_kinds,
            self.resource_hash,
            otlp_spans=pack_resource_spans(self.runs),
        )


# Length prefixes of the sizes most spans have, made once.
_SHORT = 4096
_LENGTHS = tuple(write_varint(n) for n in range(_SHORT))


def _length(n: int) -> bytes:
    return _LENGTHS[n] if n < _SHORT else write_varint(n)


def pack_scope_spans(scope: bytes, spans: Iterable[bytes]) -> bytes:
    """A serialized OTLP ``ScopeSpans``: field 1 the scope, field 2 each span."""
    return b"".join(_scope_spans_parts(scope, spans)[0])


def _scope_spans_parts(scope: bytes, spans: Iterable[bytes]) -> tuple[list[bytes], int]:
    """``pack_scope_spans`` as the parts to join, and their total size."""
    parts = [b"\x0a", _length(len(scope)), scope] if scope else []
    lengths, short = _LENGTHS, _SHORT
    for span in spans:
        n = len(span)
        parts += (b"\x12", lengths[n] if n < short else write_varint(n), span)
    return parts, sum(map(len, parts))


def pack_resource_spans(scopes: Iterable[tuple[bytes, Iterable[bytes]]]) -> bytes:
    """A serialized OTLP ``ResourceSpans`` without its resource: field 2 each
    ``ScopeSpans`` (the resource is stored apart, in ``span_resources``).

    Built as one join of every tag, length and span (each ``ScopeSpans``'s
    size is summed, not measured on bytes joined for it): a trace's spans are
    copied once. Joining each level on its own copied them three times and
    cost ~4 µs a span."""
    out: list[bytes] = []
    for scope, spans in scopes:
        parts, size = _scope_spans_parts(scope, spans)
        out += (b"\x12", _length(size))
        out += parts
    return b"".join(out)


def _fields(buf: bytes) -> Iterator[tuple[int, bytes]]:
    """(field number, bytes) of each length-delimited field of ``buf``, which
    holds nothing else (the packing above writes only those)."""
    i, end = 0, len(buf)
    while i < end:
        key, i = read_varint(buf, i, end)
        size, i = read_varint(buf, i, end)
        if key & 7 != 2 or i + size > end:
            raise ValueError("not a packed span batch")
        yield key >> 3, buf[i : i + size]
        i += size


def unpack_resource_spans(packed: bytes) -> list[tuple[bytes, list[bytes]]]:
    """``pack_resource_spans`` undone: (scope bytes, each span's bytes) per
    ``ScopeSpans``, every span exactly the bytes that went in."""
    runs = []
    for number, scope_spans in _fields(packed):
        if number != 2:
            continue
        scope, spans = b"", []
        for inner, value in _fields(scope_spans):
            if inner == 1:
                scope = value
            elif inner == 2:
                spans.append(value)
        runs.append((scope, spans))
    return runs


# The columns of a ``span_batches`` row, in the order ``batch_values`` gives.
BATCH_COLUMNS: tuple[str, ...] = (
    "tenant_id",
    "arrival_us",
    "trace_id",
    "seq",
    "span_count",
    "span_ids",
    "iris_kinds",
    "received_at",
    "resource_hash",
    "otlp_spans",
    "spans_json",
)


def batch_values(
    tenant_id: str, arrival_us: int, trace_id: str, seq: int, piece: SpanPiece, received_at: Any
) -> tuple[Any, ...]:
    """The ``span_batches`` row of one piece, in ``BATCH_COLUMNS`` order
    (``spans_json`` as objects; ``received_at`` as given). ``arrival_us`` is
    the trace's (``traces.arrival_us``), not this batch's."""
    protobuf = piece.otlp_spans is not None
    return (
        tenant_id,
        arrival_us,
        trace_id,
        seq,
        len(piece.span_ids),
        " ".join(piece.span_ids),
        " ".join(piece.iris_kinds) if protobuf else None,
        received_at,
        piece.resource_hash,
        piece.otlp_spans,
        piece.json_spans,
    )


def batch_row(
    tenant_id: str, arrival_us: int, trace_id: str, seq: int, piece: SpanPiece, received_at: Any
) -> dict[str, Any]:
    """The ``span_batches`` row of one piece, as a mapping."""
    values = batch_values(tenant_id, arrival_us, trace_id, seq, piece, received_at)
    return dict(zip(BATCH_COLUMNS, values, strict=True))


def json_piece(spans: Sequence[dict[str, Any]]) -> SpanPiece:
    """A JSON-form piece from span objects with ``JSON_SPAN_KEYS``."""
    return SpanPiece(
        [s["span_id"] for s in spans],
        [s["iris_kind"] for s in spans],
        json_spans=list(spans),
    )


# ---------------------------------------------------------------------------
# reading


# A trace's batches are found through its ``traces`` row: their key starts
# with the trace's arrival (``storage.arrival``), which only that row holds.
# SQLite plans without statistics (Iris runs no ANALYZE), and without them its
# planner preferred reading every batch of the tenant, then looking up each
# one's trace, to looking up 128 traces by key: a worker's read grew with the
# table. A CROSS JOIN keeps the order as written there (traces first);
# PostgreSQL plans by the statistics it keeps, and rejects CROSS JOIN … ON.
_JOIN = {"sqlite": "CROSS JOIN"}
_BATCHES_OF_TRACES = """
SELECT b.trace_id, {columns}
FROM traces AS t {join} span_batches AS b
  ON b.tenant_id = t.tenant_id AND b.arrival_us = t.arrival_us AND b.trace_id = t.trace_id{more}
WHERE t.tenant_id = :tenant_id AND t.trace_id IN :trace_ids"""
_WITH_RESOURCE = """
LEFT JOIN span_resources AS r ON r.tenant_id = b.tenant_id AND r.resource_hash = b.resource_hash"""


@lru_cache(maxsize=8)
def _batches_sql(dialect: str, *, spans: bool) -> TextualSelect:
    """What readers take of the batches of the traces in ``:trace_ids``:
    with ``spans``, their spans and resource bytes as ``otlp_resource``
    (NULL for JSON batches); otherwise their span ids. Never a batch's
    arrival time: parsing SQLite's datetime text costs more than the rest of
    a row, and no reader shows it."""
    columns = (
        (span_batches.c.iris_kinds, span_batches.c.otlp_spans, span_batches.c.spans_json)
        if spans
        else (span_batches.c.span_ids,)
    )
    sql = _BATCHES_OF_TRACES.format(
        columns=", ".join(f"b.{c.name}" for c in columns) + (", r.otlp_resource" if spans else ""),
        join=_JOIN.get(dialect, "JOIN"),
        more=_WITH_RESOURCE if spans else "",
    )
    typed = (span_batches.c.trace_id, *columns)
    if spans:
        typed = (*typed, span_resources.c.otlp_resource)
    keys = (
        bindparam("tenant_id", type_=String()),
        bindparam("trace_ids", expanding=True, type_=String()),
    )
    return text(sql).bindparams(*keys).columns(*typed)


def _expand_protobuf(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    # The receivers read the spans back (``read_resource_spans``), so a stored
    # span has the ids, names, kinds, times and status it had on arrival.
    from receivers.otlp.decode import read_resource_spans

    resource = row["otlp_resource"]
    resource_bytes = bytes(resource) if resource is not None else None
    out = []
    for (r, span_bytes), iris_kind in zip(
        read_resource_spans(bytes(row["otlp_spans"])), row["iris_kinds"].split(), strict=True
    ):
        out.append(
            {
                "trace_id": r.trace_id,
                "span_id": r.span_id,
                "parent_span_id": r.parent_span_id,
                "name": r.name,
                "kind": r.kind,
                "iris_kind": iris_kind,
                "status_code": r.status_code,
                "status_message": r.status_message,
                "start_unix_nano": r.start_unix_nano,
                "end_unix_nano": r.end_unix_nano,
                "attributes": None,
                "events": None,
                "resource": None,
                "scope_name": r.scope_name,
                "otlp_span": span_bytes,
                "otlp_resource": resource_bytes,
            }
        )
    return out


def expand(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One dict per stored span (``SPAN_KEYS``) from batch rows selected
    through ``_batches_sql``, in the rows' order and each batch's order."""
    out: list[dict[str, Any]] = []
    for row in rows:
        if row["otlp_spans"] is not None:
            out.extend(_expand_protobuf(row))
            continue
        trace_id = row["trace_id"]
        for obj in row["spans_json"] or ():
            span = {k: obj.get(k) for k in JSON_SPAN_KEYS}
            span["trace_id"] = trace_id
            span["otlp_span"] = None
            span["otlp_resource"] = None
            out.append(span)
    return out


def _batch_rows(
    conn: Connection, tenant_id: str, trace_ids: Sequence[str]
) -> Iterator[dict[str, Any]]:
    """The stored batch rows of several traces (chunked IN lists), in the
    order the database gives them, as dicts (``_batches_sql``'s columns)."""
    ids = list(trace_ids)
    for i in range(0, len(ids), _IN_CHUNK):
        chunk = ids[i : i + _IN_CHUNK]
        result = conn.execute(
            _batches_sql(conn.dialect.name, spans=True),
            {"tenant_id": tenant_id, "trace_ids": chunk},
        )
        yield from as_dicts(result)


def spans_of(conn: Connection, tenant_id: str, trace_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The spans of several traces (chunked IN lists), ordered by trace and
    span id, each a dict of ``SPAN_KEYS``."""
    out = expand(_batch_rows(conn, tenant_id, trace_ids))
    out.sort(key=_TRACE_THEN_SPAN)
    return out


def batches_of(
    conn: Connection, tenant_id: str, trace_ids: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """Each trace's stored batch rows, unexpanded, for a reader that turns
    them into something else than ``expand``'s dicts (the worker makes span
    records of them, ``service.derivation.records_of_batches``). Expanded
    with ``sorted_spans``, a trace's rows give what ``spans_of`` gives."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in _batch_rows(conn, tenant_id, trace_ids):
        out.setdefault(row["trace_id"], []).append(row)
    return out


def sorted_spans(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``expand`` of one trace's batch rows (``batches_of``), ordered by span
    id: ``spans_of``'s spans of that trace."""
    out = expand(rows)
    out.sort(key=_SPAN_ID)
    return out


def stored_span_ids(
    conn: Connection, tenant_id: str, trace_ids: Sequence[str]
) -> dict[str, list[str]]:
    """The span ids stored for each of ``trace_ids`` that has any."""
    out: dict[str, list[str]] = {}
    ids = list(trace_ids)
    for i in range(0, len(ids), _IN_CHUNK):
        chunk = ids[i : i + _IN_CHUNK]
        for trace_id, span_ids in conn.execute(
            _batches_sql(conn.dialect.name, spans=False),
            {"tenant_id": tenant_id, "trace_ids": chunk},
        ):
            out.setdefault(trace_id, []).extend(span_ids.split())
    return out


def delete_spans(conn: Connection, tenant_id: str, trace_id: str, arrival_us: int) -> int:
    """Delete a trace's spans and the resources nothing references any more;
    returns how many spans there were. ``arrival_us`` is the trace's."""
    of_trace = and_(
        span_batches.c.tenant_id == tenant_id,
        span_batches.c.arrival_us == arrival_us,
        span_batches.c.trace_id == trace_id,
    )
    found = conn.execute(
        select(span_batches.c.resource_hash, span_batches.c.span_count).where(of_trace)
    ).all()
    conn.execute(delete(span_batches).where(of_trace))
    drop_unreferenced_resources(conn, tenant_id, [h for h, _ in found if h is not None])
    return sum(int(n) for _, n in found)


def drop_unreferenced_resources(conn: Connection, tenant_id: str, hashes: Iterable[str]) -> None:
    """Delete the given resources that no stored span batch references any more."""
    for h in sorted(set(hashes)):
        in_use = exists().where(
            and_(span_batches.c.tenant_id == tenant_id, span_batches.c.resource_hash == h)
        )
        conn.execute(
            delete(span_resources).where(
                and_(
                    span_resources.c.tenant_id == tenant_id,
                    span_resources.c.resource_hash == h,
                    ~in_use,
                )
            )
        )
