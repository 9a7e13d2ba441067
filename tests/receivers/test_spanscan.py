"""The C span scanner gives exactly the records of the upb path, on any input.

``scanned_records`` (C, the ingest path) must agree with
``lean_records_from_message`` (the parsed message read through upb) on
every fixture, on generated requests with every id, kind, status and
attribute shape, and on non-canonical encodings (repeated fields, unknown
fields, wrong wire types); and the scanner must refuse malformed bytes with
``ValueError``, never read past them.
"""

from __future__ import annotations

import dataclasses
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span

from receivers.otlp import decode
from receivers.otlp.decode import (
    INGEST_ATTRIBUTE_KEYS,
    DecodedBatch,
    decode_traces_protobuf_lean,
    expand_stored_span,
    expand_stored_span_upb,
    lean_records_from_message,
    parse_trace_request,
    scanned_records,
)
from receivers.spans import SpanEventRecord
from tests.receivers.fixtures_support import FIXTURES, needs_fixtures, trace_pb_fixtures

spanscan = pytest.importorskip("receivers.otlp._spanscan")


def test_the_scanner_is_built_and_used() -> None:
    """CI machines have a compiler: the ingest path must run the C scanner there."""
    assert decode._spanscan is spanscan


def _assert_same(body: bytes) -> DecodedBatch:
    req = parse_trace_request(body)
    expected = lean_records_from_message(req)
    got = scanned_records(body, req)
    assert got is not None
    assert got.spans == expected.spans
    assert got.rejected_spans == expected.rejected_spans
    assert got.rejection_reasons == expected.rejection_reasons
    assert got.otlp is not None and expected.otlp is not None
    assert len(got.otlp) == len(expected.otlp)
    for (span_got, resource_got, scope_got), (span_exp, resource_exp, scope_exp) in zip(
        got.otlp, expected.otlp, strict=True
    ):
        assert resource_got == resource_exp
        assert scope_got == scope_exp
        assert Span.FromString(span_got) == Span.FromString(span_exp)
    return got


@needs_fixtures
@pytest.mark.parametrize("rel", trace_pb_fixtures())
def test_every_fixture_scans_to_the_upb_records(rel: str) -> None:
    assert _assert_same((FIXTURES / rel).read_bytes()).spans


# -- generated requests -------------------------------------------------------

KEYS = [*sorted(INGEST_ATTRIBUTE_KEYS), "gen_ai.request.model", "other", ""]
texts = st.text(max_size=12)


def _scalar_values() -> st.SearchStrategy[AnyValue]:
    return st.one_of(
        st.just(AnyValue()),
        texts.map(lambda v: AnyValue(string_value=v)),
        st.booleans().map(lambda v: AnyValue(bool_value=v)),
        st.integers(-(2**63), 2**63 - 1).map(lambda v: AnyValue(int_value=v)),
        st.floats(allow_nan=False).map(lambda v: AnyValue(double_value=v)),
        st.binary(max_size=6).map(lambda v: AnyValue(bytes_value=v)),
    )


def _values() -> st.SearchStrategy[AnyValue]:
    def nest(inner: st.SearchStrategy[AnyValue]) -> st.SearchStrategy[AnyValue]:
        array = st.lists(inner, max_size=3).map(
            lambda vs: AnyValue(array_value={"values": list(vs)})
        )
        kvlist = st.lists(st.tuples(texts, inner), max_size=3).map(
            lambda kvs: AnyValue(
                kvlist_value={"values": [KeyValue(key=k, value=v) for k, v in kvs]}
            )
        )
        return st.one_of(array, kvlist)

    return st.recursive(_scalar_values(), nest, max_leaves=5)


ids = st.one_of(
    st.binary(min_size=16, max_size=16),
    st.just(b"\x00" * 16),
    st.binary(max_size=20),
)
short_ids = st.one_of(
    st.binary(min_size=8, max_size=8), st.just(b"\x00" * 8), st.just(b""), st.binary(max_size=10)
)


@st.composite
def spans(draw: st.DrawFn) -> Span:
    span = Span(
        trace_id=draw(ids),
        span_id=draw(short_ids),
        parent_span_id=draw(short_ids),
        name=draw(texts),
        kind=draw(st.integers(-3, 8)),
        start_time_unix_nano=draw(st.integers(0, 2**64 - 1)),
        end_time_unix_nano=draw(st.integers(0, 2**64 - 1)),
    )
    span.status.code = draw(st.integers(-1, 4))
    span.status.message = draw(texts)
    for key, value in draw(st.lists(st.tuples(st.sampled_from(KEYS), _values()), max_size=6)):
        kv = span.attributes.add(key=key)
        if draw(st.booleans()):
            kv.value.CopyFrom(value)
    return span


@st.composite
def requests(draw: st.DrawFn) -> ExportTraceServiceRequest:
    req = ExportTraceServiceRequest()
    for _ in range(draw(st.integers(0, 2))):
        rs = ResourceSpans()
        rs.resource.attributes.add(key="service.name").value.string_value = draw(texts)
        for _ in range(draw(st.integers(0, 2))):
            ss = ScopeSpans()
            ss.scope.name = draw(texts)
            ss.spans.extend(draw(st.lists(spans(), max_size=3)))
            rs.scope_spans.append(ss)
        req.resource_spans.append(rs)
    return req


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_generated_requests_scan_to_the_upb_records(req: ExportTraceServiceRequest) -> None:
    _assert_same(req.SerializeToString())


# -- non-canonical encodings ---------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    tag = _varint(number << 3 | wire)
    if wire == 2:
        return tag + _varint(len(payload)) + payload
    return tag + payload


def _request_of(span_bytes: bytes) -> bytes:
    scope_spans = _field(2, 2, span_bytes)
    resource_spans = _field(2, 2, scope_spans)
    return _field(1, 2, resource_spans)


TRACE = bytes(range(1, 17))
SPAN = bytes(range(1, 9))
BASE = _field(1, 2, TRACE) + _field(2, 2, SPAN) + _field(5, 2, b"chat")

# each piece is appended to a valid span and must be read as protobuf reads it
ODD_PIECES = {
    "repeated name: last wins": _field(5, 2, b"second"),
    "repeated trace id: last wins": _field(1, 2, bytes(range(2, 18))),
    "status twice: merged": _field(15, 2, _field(3, 0, b"\x02"))
    + _field(15, 2, _field(2, 2, b"late")),
    "kind with the wrong wire type: unknown": _field(6, 2, b"x"),
    "start time as varint: unknown": _field(7, 0, b"\x05"),
    "unknown varint, fixed32, fixed64 and group": _field(99, 0, b"\x01")
    + _field(98, 5, b"abcd")
    + _field(97, 1, struct.pack("<q", -1))
    + _varint(96 << 3 | 3)
    + _field(1, 0, b"\x01")
    + _varint(96 << 3 | 4),
    "negative kind (ten-byte varint)": _field(6, 0, _varint(2**64 - 1)),
    "attribute whose value oneof changes": _field(
        9,
        2,
        _field(1, 2, b"gen_ai.operation.name")
        + _field(2, 2, _field(1, 2, b"chat") + _field(3, 0, b"\x07")),
    ),
    "attribute with a double": _field(
        9,
        2,
        _field(1, 2, b"gen_ai.operation.name") + _field(2, 2, _field(4, 1, struct.pack("<d", 2.5))),
    ),
    "attribute without a value": _field(9, 2, _field(1, 2, b"iris.finalize")),
    "attribute key twice": _field(
        9, 2, _field(1, 2, b"other") + _field(1, 2, b"gen_ai.operation.name")
    ),
}


@pytest.mark.parametrize("piece", list(ODD_PIECES.values()), ids=list(ODD_PIECES))
def test_non_canonical_spans_scan_as_protobuf_parses_them(piece: bytes) -> None:
    body = _request_of(BASE + piece)
    assert _assert_same(body).spans


def test_a_repeated_attribute_value_merges_as_protobuf_merges_it() -> None:
    kv = _field(1, 2, b"gen_ai.operation.name")
    kv += _field(2, 2, _field(1, 2, b"chat")) + _field(2, 2, _field(3, 0, b"\x01"))
    body = _request_of(BASE + _field(9, 2, kv))
    assert _assert_same(body).spans[0].attributes == {"gen_ai.operation.name": 1}


# -- malformed bytes -----------------------------------------------------------

VALID = _request_of(
    BASE + _field(9, 2, _field(1, 2, b"gen_ai.operation.name") + _field(2, 2, _field(1, 2, b"x")))
)


@pytest.mark.parametrize("cut", range(1, len(VALID)))
def test_truncated_bodies_are_refused_not_overread(cut: int) -> None:
    # the outer length prefix covers the whole body, so every cut runs past it
    with pytest.raises(ValueError, match="OTLP span scan"):
        spanscan.scan(VALID[:cut], tuple(INGEST_ATTRIBUTE_KEYS))


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash_the_scanner(body: bytes) -> None:
    try:
        out = spanscan.scan(body, tuple(INGEST_ATTRIBUTE_KEYS))
    except (ValueError, UnicodeDecodeError):
        return
    assert isinstance(out, list)


# -- expand: stored spans back into attributes and events --------------------


def _assert_expands_alike(span_bytes: bytes) -> None:
    got_attrs, got_events = spanscan.expand(span_bytes)
    want_attrs, want_events, _ = expand_stored_span_upb(span_bytes, None)
    assert got_attrs == want_attrs
    assert list(got_attrs) == list(want_attrs)  # first position of a repeated key
    assert [SpanEventRecord(*e) for e in got_events] == want_events
    assert expand_stored_span(span_bytes, None) == (want_attrs, want_events, {})


@needs_fixtures
@pytest.mark.parametrize("rel", trace_pb_fixtures())
def test_every_fixture_span_expands_as_upb_converts_it(rel: str) -> None:
    batch = decode_traces_protobuf_lean((FIXTURES / rel).read_bytes())
    assert batch.otlp
    for span_bytes, _, _ in batch.otlp:
        _assert_expands_alike(span_bytes)


@st.composite
def spans_with_events(draw: st.DrawFn) -> Span:
    span = draw(spans())
    for _ in range(draw(st.integers(0, 2))):
        event = span.events.add(name=draw(texts), time_unix_nano=draw(st.integers(0, 2**64 - 1)))
        for key, value in draw(st.lists(st.tuples(texts, _values()), max_size=3)):
            event.attributes.add(key=key).value.CopyFrom(value)
    for key, value in draw(st.lists(st.tuples(texts, _values()), max_size=4)):
        span.attributes.add(key=key).value.CopyFrom(value)
    return span


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spans_with_events())
def test_generated_spans_expand_as_upb_converts_them(span: Span) -> None:
    _assert_expands_alike(span.SerializeToString())


def _kv(key: bytes, *values: bytes) -> bytes:
    return _field(1, 2, key) + b"".join(_field(2, 2, v) for v in values)


STRING = _field(1, 2, b"s")
ARRAY_A = _field(5, 2, _field(1, 2, _field(3, 0, b"\x01")))
ARRAY_B = _field(5, 2, _field(1, 2, _field(1, 2, b"b")))
KVLIST = _field(6, 2, _field(1, 2, _kv(b"k", _field(4, 1, struct.pack("<d", 1.5)))))
ODD_VALUES = {
    "array twice: merged": ARRAY_A + ARRAY_B,
    "array, string, array: the oneof starts over": ARRAY_A + STRING + ARRAY_B,
    "array, unknown field, array: still merged": ARRAY_A + _field(50, 0, b"\x01") + ARRAY_B,
    "kvlist twice: merged": KVLIST + KVLIST,
    "string then kvlist": STRING + KVLIST,
    "bytes that are not UTF-8": _field(7, 2, b"\xff\xfe"),
    "bytes that are UTF-8": _field(7, 2, "é".encode()),
    "bool as a large varint": _field(2, 0, _varint(2**40)),
    "nothing set": b"",
}


@pytest.mark.parametrize("value", list(ODD_VALUES.values()), ids=list(ODD_VALUES))
def test_non_canonical_values_expand_as_protobuf_parses_them(value: bytes) -> None:
    span = BASE + _field(9, 2, _kv(b"a", value))
    _assert_expands_alike(span)


def test_a_repeated_key_value_value_is_merged_as_protobuf_merges_it() -> None:
    span = BASE + _field(9, 2, _kv(b"a", ARRAY_A, STRING + ARRAY_B))
    _assert_expands_alike(span)
    span = BASE + _field(9, 2, _kv(b"a", ARRAY_A, ARRAY_B))
    assert spanscan.expand(span)[0] == {"a": [1, "b"]}


def test_deep_nesting_is_refused_and_read_through_upb() -> None:
    value = _field(1, 2, b"leaf")
    for _ in range(150):
        value = _field(5, 2, _field(1, 2, value))
    span = BASE + _field(9, 2, _kv(b"deep", value))
    with pytest.raises(ValueError, match="nested too deep"):
        spanscan.expand(span)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash_expand(body: bytes) -> None:
    try:
        attrs, events = spanscan.expand(body)
    except ValueError:
        return
    assert isinstance(attrs, dict) and isinstance(events, list)


def test_ingest_attributes_of_every_shape_are_converted_as_upb_converts_them() -> None:
    for value in ODD_VALUES.values():
        body = _request_of(BASE + _field(9, 2, _kv(b"gen_ai.operation.name", value)))
        _assert_same(body)


def _stored_form(rs: ResourceSpans) -> bytes:
    """A ResourceSpans as Iris stores it: without its resource, scope first."""
    stored = ResourceSpans()
    stored.scope_spans.extend(rs.scope_spans)
    return stored.SerializeToString()


@needs_fixtures
@pytest.mark.parametrize("rel", trace_pb_fixtures())
@pytest.mark.parametrize("scanner", ["c", "fallback"])
def test_stored_spans_read_back_as_the_lean_decoder_reads_them(
    rel: str, scanner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (FIXTURES / rel).read_bytes()
    req = ExportTraceServiceRequest.FromString(body)
    if scanner == "fallback":
        monkeypatch.setattr(decode, "_spanscan", None)
    for rs in req.resource_spans:
        one = ExportTraceServiceRequest()
        one.resource_spans.add().CopyFrom(rs)
        expected = decode.decode_traces_protobuf_lean(one.SerializeToString())
        got = decode.read_resource_spans(_stored_form(rs))
        assert [r for r, _ in got] == [dataclasses.replace(r, resource={}) for r in expected.spans]
        assert [b for _, b in got] == [o[0] for o in expected.otlp or ()]


@needs_fixtures
@pytest.mark.parametrize("rel", trace_pb_fixtures())
def test_stored_spans_read_without_ingest_attributes(rel: str) -> None:
    """``ingest_attributes=False`` gives the same records and bytes, with the
    attributes left empty (the worker expands each span's own)."""
    req = ExportTraceServiceRequest.FromString((FIXTURES / rel).read_bytes())
    for rs in req.resource_spans:
        full = decode.read_resource_spans(_stored_form(rs))
        lean = decode.read_resource_spans(_stored_form(rs), ingest_attributes=False)
        assert [r.attributes for r, _ in lean] == [{} for _ in full]
        assert [(dataclasses.replace(r, attributes={}), b) for r, b in full] == lean


# -- scan_stored: a stored batch read whole, for the worker --------------------


def _read_in_two_steps(stored: bytes, resource: dict[str, object]) -> list[object]:
    """The reference ``read_stored_spans`` must equal: each stored span found,
    then its attributes and events converted by upb."""
    records = []
    for r, span_bytes in decode.read_resource_spans(stored, ingest_attributes=False):
        attributes, events, _ = expand_stored_span_upb(span_bytes, None)
        records.append(
            dataclasses.replace(r, attributes=attributes, events=events, resource=resource)
        )
    return records


def _assert_reads_whole(stored: bytes) -> None:
    resource = {"service.name": "svc"}
    want = _read_in_two_steps(stored, resource)
    got = decode.read_stored_spans(stored, resource)
    assert got == want
    assert [list(r.attributes) for r in got] == [list(r.attributes) for r in want]
    assert all(r.resource is resource for r in got)


@needs_fixtures
@pytest.mark.parametrize("rel", trace_pb_fixtures())
@pytest.mark.parametrize("scanner", ["c", "fallback"])
def test_stored_batches_read_whole_as_found_then_expanded(
    rel: str, scanner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if scanner == "fallback":
        monkeypatch.setattr(decode, "_spanscan", None)
    req = ExportTraceServiceRequest.FromString((FIXTURES / rel).read_bytes())
    for rs in req.resource_spans:
        _assert_reads_whole(_stored_form(rs))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(spans_with_events(), max_size=3), max_size=2))
def test_generated_batches_read_whole_as_found_then_expanded(scopes: list[list[Span]]) -> None:
    stored = ResourceSpans()
    for i, spans_of_scope in enumerate(scopes):
        ss = stored.scope_spans.add()
        ss.scope.name = f"scope{i}"
        ss.spans.extend(spans_of_scope)
    _assert_reads_whole(stored.SerializeToString())


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_crash_scan_stored(body: bytes) -> None:
    try:
        scopes = spanscan.scan_stored(body)
    except ValueError:
        return
    assert isinstance(scopes, list)
