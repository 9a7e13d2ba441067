"""Resources are stored once per content and leave with the last span using them."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from sqlalchemy import Engine, func, select

from service.ingest import decode_otlp_protobuf, jobs_for_batch
from storage import codec
from storage.otlp import SpanBatchWrite
from storage.spans import span_resources
from storage.traces import delete_trace, get_spans
from tests.support.otlp_bodies import agent_request


def _request(rng: random.Random, traces: int, service: str) -> tuple[bytes, list[str]]:
    body, ids = agent_request(rng, traces)
    req = ExportTraceServiceRequest.FromString(body)
    req.resource_spans[0].resource.attributes[0].value.string_value = service
    return req.SerializeToString(), sorted({t for t, _ in ids})


def _ingest(engine: Engine, *bodies: bytes) -> None:
    jobs = [jobs_for_batch(decode_otlp_protobuf(b), "t", "otlp", len(b)) for b in bodies]
    with engine.begin() as conn:
        SpanBatchWrite.apply_group(conn, jobs)


def _resources(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(span_resources)).scalar_one())


def test_one_row_per_resource_and_deleted_with_its_last_span(engine: Engine) -> None:
    rng = random.Random(5)
    alpha, alpha_ids = _request(rng, 1, "alpha")
    beta, beta_ids = _request(rng, 2, "beta")
    _ingest(engine, alpha, beta)
    _ingest(engine, beta)  # a re-sent request changes nothing
    assert _resources(engine) == 2

    with engine.connect() as conn:
        for trace_ids, service in ((alpha_ids, "alpha"), (beta_ids, "beta")):
            for trace_id in trace_ids:
                spans = [codec.span_to_api(r) for r in get_spans(conn, "t", trace_id)]
                assert len(spans) == 3
                assert {s["resource"]["service.name"] for s in spans} == {service}

    now = datetime.now(UTC)
    with engine.begin() as conn:
        assert delete_trace(conn, "t", alpha_ids[0], now=now)
    assert _resources(engine) == 1
    with engine.begin() as conn:
        assert delete_trace(conn, "t", beta_ids[0], now=now)
    assert _resources(engine) == 1  # still used by the other beta trace
    with engine.begin() as conn:
        assert delete_trace(conn, "t", beta_ids[1], now=now)
    assert _resources(engine) == 0
