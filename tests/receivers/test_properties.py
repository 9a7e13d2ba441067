"""Hypothesis properties: JSON attribute round-trips, garbage handling, decompression bounds."""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import math
import zlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from receivers.messages import maybe_json
from receivers.otlp.compression import decompress
from receivers.otlp.decode import decode_traces_json, decode_traces_protobuf
from receivers.otlp.errors import BodyTooLarge, OtlpDecodeError

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
scalars = st.one_of(
    st.text(max_size=30),
    st.booleans(),
    INT64,
    st.floats(allow_nan=False, allow_infinity=True),
    st.binary(max_size=16),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=8), inner, max_size=4),
    ),
    max_leaves=12,
)


def to_json_any(v: Any) -> dict[str, Any]:
    """Encode a Python value the way an OTLP/JSON exporter would."""
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v if math.isfinite(v) else ("Infinity" if v > 0 else "-Infinity")}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, bytes):
        return {"bytesValue": base64.b64encode(v).decode()}
    if isinstance(v, list):
        return {"arrayValue": {"values": [to_json_any(x) for x in v]}}
    return {"kvlistValue": {"values": [{"key": k, "value": to_json_any(x)} for k, x in v.items()]}}


def expected(v: Any) -> Any:
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return v.hex()
    if isinstance(v, list):
        return [expected(x) for x in v]
    if isinstance(v, dict):
        return {k: expected(x) for k, x in v.items()}
    return v


@given(st.dictionaries(st.text(max_size=12), values, max_size=6))
@settings(max_examples=150, deadline=None)
def test_json_attribute_values_round_trip(attrs: dict[str, Any]) -> None:
    body = json.dumps(
        {
            "resourceSpans": [
                {
                    "scopeSpans": [
                        {
                            "spans": [
                                {
                                    "traceId": "0af7651916cd43dd8448eb211c80319c",
                                    "spanId": "b7ad6b7169203331",
                                    "name": "n",
                                    "attributes": [
                                        {"key": k, "value": to_json_any(v)}
                                        for k, v in attrs.items()
                                    ],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()
    (span,) = decode_traces_json(body).spans
    assert span.attributes == expected(attrs)


json_garbage = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "resourceSpans",
                    "scopeSpans",
                    "spans",
                    "traceId",
                    "spanId",
                    "attributes",
                    "key",
                    "value",
                    "stringValue",
                    "intValue",
                    "arrayValue",
                    "values",
                    "kind",
                    "status",
                    "code",
                    "events",
                    "resource",
                    "name",
                    "kvlistValue",
                    "bytesValue",
                    "x",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=20,
)


@given(json_garbage)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_json_garbage_only_raises_decode_error(doc: Any) -> None:
    try:
        body = json.dumps(doc).encode()
    except ValueError:
        return
    with contextlib.suppress(OtlpDecodeError):
        decode_traces_json(body)


@given(st.binary(max_size=200))
@settings(max_examples=300, deadline=None)
def test_random_bytes_only_raise_decode_error(raw: bytes) -> None:
    for decode in (decode_traces_json, decode_traces_protobuf):
        with contextlib.suppress(OtlpDecodeError):
            decode(raw)


def test_deeply_nested_json_is_a_decode_error() -> None:
    deep = b"[" * 100_000 + b"]" * 100_000
    with contextlib.suppress(OtlpDecodeError):
        decode_traces_json(deep)


@given(
    st.binary(max_size=4096),
    st.integers(min_value=0, max_value=5000),
    st.sampled_from(["gzip", "deflate", "deflate-raw", None]),
)
@settings(max_examples=200, deadline=None)
def test_decompression_never_exceeds_cap(payload: bytes, cap: int, enc: str | None) -> None:
    if enc == "gzip":
        body = gzip.compress(payload)
    elif enc == "deflate":
        body = zlib.compress(payload)
    elif enc == "deflate-raw":
        c = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        body = c.compress(payload) + c.flush()
    else:
        body = payload
    header = "deflate" if enc == "deflate-raw" else enc
    try:
        out = decompress(body, header, cap)
    except BodyTooLarge:
        assert len(payload) > cap
        return
    assert out == payload and len(out) <= cap


@given(st.binary(min_size=1, max_size=300))
@settings(max_examples=200, deadline=None)
def test_corrupt_compressed_data_is_a_decode_error(junk: bytes) -> None:
    for enc in ("gzip", "deflate"):
        with contextlib.suppress(OtlpDecodeError, BodyTooLarge):
            decompress(junk, enc, 10_000)


def _maybe_json_reference(value: Any) -> Any:
    """``maybe_json`` as first written: strip both ends, then look."""
    if isinstance(value, str):
        s = value.lstrip()
        if s[:1] in ("{", "[") and value.rstrip()[-1:] in ("}", "]"):
            try:
                return json.loads(value)
            except (ValueError, RecursionError):
                return value
    return value


_json_ish = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda pre, body, post: pre + body + post,
        st.text(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000x"), max_size=3),
        values.map(lambda v: json.dumps(v, default=repr)),
        st.text(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000x}]"), max_size=3),
    ),
)


@given(_json_ish)
def test_maybe_json_equals_its_reference(text: str) -> None:
    got, want = maybe_json(text), _maybe_json_reference(text)
    assert json.dumps(got, default=repr) == json.dumps(want, default=repr)
