"""Span batches: one row per trace per write, spans idempotent, read back as they came."""

from __future__ import annotations

import dataclasses
import pickle
import random
from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span
from sqlalchemy import Engine, func, select

from receivers.otlp.decode import decode_traces_protobuf_lean
from service.derivation import record_from_row, records_of_batches
from service.ingest import decode_otlp_protobuf, jobs_for_batch
from storage.models import Trace
from storage.otlp import SpanBatchWrite, TraceDelta
from storage.spans import (
    OtlpPieceBuilder,
    SpanPiece,
    batches_of,
    pack_resource_spans,
    pack_scope_spans,
    sorted_spans,
    span_batches,
    span_resources,
    spans_of,
    unpack_resource_spans,
)
from tests.support.otlp_bodies import agent_request


def _ingest(engine: Engine, *bodies: bytes) -> None:
    jobs = [jobs_for_batch(decode_otlp_protobuf(b), "t", "otlp", len(b)) for b in bodies]
    with engine.begin() as conn:
        SpanBatchWrite.apply_group(conn, jobs)


def _batches(engine: Engine) -> list[tuple[str, int, int]]:
    with engine.connect() as conn:
        return [
            (r.trace_id, r.seq, r.span_count)
            for r in conn.execute(
                select(span_batches).order_by(span_batches.c.trace_id, span_batches.c.seq)
            )
        ]


def _span_count(engine: Engine, trace_id: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(select(Trace.span_count).where(Trace.trace_id == trace_id)).scalar_one()
        )


def test_one_batch_per_trace_per_request(engine: Engine) -> None:
    body, ids = agent_request(random.Random(1), 5)
    _ingest(engine, body)
    traces = sorted({t for t, _ in ids})
    per_trace = {t: sum(1 for x, _ in ids if x == t) for t in traces}
    assert _batches(engine) == [(t, 0, per_trace[t]) for t in traces]


def test_spans_read_back_exactly_as_the_receivers_decode_them(engine: Engine) -> None:
    body, ids = agent_request(random.Random(2), 3)
    _ingest(engine, body)
    decoded = decode_traces_protobuf_lean(body)
    assert decoded.otlp is not None
    with engine.connect() as conn:
        stored = spans_of(conn, "t", sorted({t for t, _ in ids}))
    assert len(stored) == len(decoded.spans)
    by_id = {s["span_id"]: s for s in stored}
    for record, (span_bytes, resource_bytes, _) in zip(decoded.spans, decoded.otlp, strict=True):
        got = by_id[record.span_id]
        assert got["otlp_span"] == span_bytes
        assert got["otlp_resource"] == resource_bytes
        back = record_from_row(got)
        assert (back.name, back.kind, back.parent_span_id, back.status_code) == (
            record.name,
            record.kind,
            record.parent_span_id,
            record.status_code,
        )
        assert (back.start_unix_nano, back.end_unix_nano, back.scope_name) == (
            record.start_unix_nano,
            record.end_unix_nano,
            record.scope_name,
        )


def test_a_resent_request_stores_nothing_twice(engine: Engine) -> None:
    body, ids = agent_request(random.Random(3), 4)
    _ingest(engine, body)
    before = _batches(engine)
    _ingest(engine, body)
    _ingest(engine, body, body)  # twice in one transaction as well
    assert _batches(engine) == before
    with engine.connect() as conn:
        stored = spans_of(conn, "t", sorted({t for t, _ in ids}))
    assert sorted((s["trace_id"], s["span_id"]) for s in stored) == sorted(ids)


def test_late_spans_make_a_new_batch_keyed_after_the_stored_ones(engine: Engine) -> None:
    body, _ = agent_request(random.Random(4), 1)
    req = ExportTraceServiceRequest.FromString(body)
    spans = req.resource_spans[0].scope_spans[0].spans
    trace_id = spans[0].trace_id.hex()
    first, late = ExportTraceServiceRequest(), ExportTraceServiceRequest()
    first.CopyFrom(req)
    late.CopyFrom(req)
    del first.resource_spans[0].scope_spans[0].spans[2:]
    # the late request repeats one stored span and brings the rest
    del late.resource_spans[0].scope_spans[0].spans[:1]
    _ingest(engine, first.SerializeToString())
    _ingest(engine, late.SerializeToString())
    assert _batches(engine) == [(trace_id, 0, 2), (trace_id, 2, len(spans) - 2)]
    assert _span_count(engine, trace_id) == len(spans)


def test_a_span_twice_in_one_request_is_stored_once(engine: Engine) -> None:
    body, _ = agent_request(random.Random(6), 1)
    req = ExportTraceServiceRequest.FromString(body)
    spans = req.resource_spans[0].scope_spans[0].spans
    spans.add().CopyFrom(spans[0])
    _ingest(engine, req.SerializeToString())
    trace_id = spans[0].trace_id.hex()
    assert _batches(engine) == [(trace_id, 0, len(spans) - 1)]
    assert _span_count(engine, trace_id) == len(spans) - 1


def test_each_resource_of_a_trace_is_a_batch_of_its_own_whatever_its_scopes(
    engine: Engine,
) -> None:
    body, _ = agent_request(random.Random(7), 1)
    req = ExportTraceServiceRequest.FromString(body)
    rs = req.resource_spans[0]
    second = req.resource_spans.add()
    second.CopyFrom(rs)
    second.resource.attributes.add(key="host.name", value=AnyValue(string_value="b"))
    other_scope = second.scope_spans.add()
    other_scope.scope.CopyFrom(InstrumentationScope(name="another", version="2"))
    moved = second.scope_spans[0].spans
    # the first resource keeps span 0; the second has span 1 in its first
    # scope and the rest in "another"
    keep = [Span.FromString(s.SerializeToString()) for s in moved]
    del rs.scope_spans[0].spans[1:]
    del moved[:]
    moved.add().CopyFrom(keep[1])
    for s in keep[2:]:
        other_scope.spans.add().CopyFrom(s)
    _ingest(engine, req.SerializeToString())
    trace_id = keep[0].trace_id.hex()
    assert _batches(engine) == [(trace_id, 0, 1), (trace_id, 1, len(keep) - 1)]
    with engine.connect() as conn:
        stored = {s["span_id"]: s for s in spans_of(conn, "t", [trace_id])}
        resources = conn.execute(select(func.count()).select_from(span_resources)).scalar_one()
    assert resources == 2
    assert stored[keep[-1].span_id.hex()]["scope_name"] == "another"
    assert (
        stored[keep[1].span_id.hex()]["scope_name"] == stored[keep[0].span_id.hex()]["scope_name"]
    )
    assert (
        stored[keep[0].span_id.hex()]["otlp_resource"]
        != (stored[keep[1].span_id.hex()]["otlp_resource"])
    )


_names = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    scope=st.one_of(st.none(), _names),
    spans=st.lists(
        st.tuples(_names, st.integers(0, 2**64 - 1), st.lists(_names, max_size=3)),
        max_size=6,
    ),
)
def test_packed_scope_spans_parse_as_the_same_message(
    scope: str | None, spans: list[tuple[str, int, list[str]]]
) -> None:
    messages = [
        Span(
            trace_id=b"\x01" * 16,
            span_id=(i + 1).to_bytes(8, "big"),
            name=name,
            start_time_unix_nano=start,
            attributes=[KeyValue(key=k, value=AnyValue(string_value=k)) for k in keys],
        )
        for i, (name, start, keys) in enumerate(spans)
    ]
    scope_bytes = b"" if scope is None else InstrumentationScope(name=scope).SerializeToString()
    packed = pack_scope_spans(scope_bytes, [m.SerializeToString() for m in messages])
    expected = ScopeSpans(spans=messages)
    if scope_bytes:  # an empty scope serializes to nothing, and is left out
        expected.scope.CopyFrom(InstrumentationScope(name=scope))
    assert ScopeSpans.FromString(packed) == expected


@settings(max_examples=60, deadline=None)
@given(
    runs=st.lists(st.tuples(_names, st.lists(_names, min_size=1, max_size=4)), max_size=4),
    data=st.data(),
)
def test_a_piece_keeps_the_chosen_spans_under_their_scopes(
    runs: list[tuple[str, list[str]]], data: st.DataObject
) -> None:
    builder = OtlpPieceBuilder("h")
    expected: list[tuple[str, str, str]] = []  # (scope name, span id, span name)
    n = 0
    for scope_name, names in runs:
        scope = InstrumentationScope(name=scope_name).SerializeToString()
        for name in names:
            n += 1
            span_id = n.to_bytes(8, "big")
            raw = Span(trace_id=b"\x01" * 16, span_id=span_id, name=name).SerializeToString()
            builder.add(span_id.hex(), "SPAN", scope, raw)
            expected.append((scope_name, span_id.hex(), name))
    wanted = sorted(data.draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=n)) if n else [])
    piece = builder.piece()
    assert piece.otlp_spans is not None
    assert pack_resource_spans(unpack_resource_spans(piece.otlp_spans)) == piece.otlp_spans
    kept = piece.keep(wanted)
    assert kept.otlp_spans is not None
    message = ResourceSpans.FromString(kept.otlp_spans)
    got = [(ss.scope.name, s.span_id.hex(), s.name) for ss in message.scope_spans for s in ss.spans]
    assert got == [expected[i] for i in wanted]
    assert kept.span_ids == [expected[i][1] for i in wanted]


@settings(max_examples=80, deadline=None)
@given(
    runs=st.lists(
        st.tuples(
            st.text(max_size=300),
            st.lists(st.tuples(st.text(max_size=20), st.integers(0, 6000)), max_size=4),
        ),
        max_size=3,
    )
)
def test_packed_batches_are_what_protobuf_serializes(
    runs: list[tuple[str, list[tuple[str, int]]]],
) -> None:
    # Lengths on both sides of one and two varint bytes, and of the short-length table.
    scopes = []
    expected = ResourceSpans()
    for scope_name, spans in runs:
        scope = InstrumentationScope(name=scope_name)
        messages = [Span(name=name, trace_state="x" * pad) for name, pad in spans]
        scopes.append((scope.SerializeToString(), [m.SerializeToString() for m in messages]))
        added = expected.scope_spans.add(spans=messages)
        if scope_name:
            added.scope.CopyFrom(scope)
    assert pack_resource_spans(scopes) == expected.SerializeToString()


def test_write_jobs_pickle_whole_for_the_writer_process() -> None:
    # Each class reduces to one argument per field, in order, so a field
    # added and left out of its __reduce__ fails here.
    piece = SpanPiece(["a", "b"], ["LLM", "TOOL"], "h", b"\x12\x00", [{"span_id": "a"}])
    delta = TraceDelta("t" * 32, [piece], True, "a", datetime(2026, 1, 2), True, True, "svc")
    for value in (piece, delta):
        names = [f.name for f in dataclasses.fields(value)]
        assert list(value.__reduce__()[1]) == [getattr(value, n) for n in names]
        assert pickle.loads(pickle.dumps(value)) == value
        assert vars(pickle.loads(pickle.dumps(value))) == vars(value)


def test_the_workers_batch_read_gives_what_the_span_dicts_give(engine: Engine) -> None:
    """``batches_of`` then ``sorted_spans`` / ``records_of_batches`` equal
    ``spans_of`` and ``record_from_row``, trace by trace, for traces whose
    spans came in several requests (several batches each)."""
    rng = random.Random(7)
    bodies = [agent_request(rng, 4) for _ in range(3)]
    for body, _ in bodies:  # each trace's even spans first, its odd ones late
        for half in (0, 1):
            req = ExportTraceServiceRequest.FromString(body)
            for rs in req.resource_spans:
                for ss in rs.scope_spans:
                    kept = [Span.FromString(x.SerializeToString()) for x in ss.spans][half::2]
                    del ss.spans[:]
                    ss.spans.extend(kept)
            _ingest(engine, req.SerializeToString())
    traces = sorted({t for _, ids in bodies for t, _ in ids})
    assert len(_batches(engine)) > len(traces)  # some trace has several batches
    with engine.connect() as conn:
        dicts = spans_of(conn, "t", traces)
        batches = batches_of(conn, "t", traces)
    assert sorted(batches) == traces
    for trace_id in traces:
        expected = [s for s in dicts if s["trace_id"] == trace_id]
        assert expected
        assert sorted_spans(batches[trace_id]) == expected
        assert records_of_batches(batches[trace_id]) == [record_from_row(s) for s in expected]
