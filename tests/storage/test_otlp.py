"""The OTLP write job's driver-level look-up of stored traces."""

from __future__ import annotations

import random

from sqlalchemy import Engine, and_, select

from service.ingest import decode_otlp_protobuf, jobs_for_batch
from storage.otlp import existing_trace_ids, traces
from storage.writer import run_transaction
from tests.support.otlp_bodies import agent_request


def _core_existing(engine: Engine, tenant_id: str, ids: list[str]) -> dict[str, int]:
    """The Core query the driver-level look-up replaces."""
    with engine.connect() as conn:
        return {
            row.trace_id: row.arrival_us
            for row in conn.execute(
                select(traces.c.trace_id, traces.c.arrival_us).where(
                    and_(traces.c.tenant_id == tenant_id, traces.c.trace_id.in_(ids))
                )
            )
        }


def test_existing_trace_ids_equals_the_core_query(engine: Engine) -> None:
    body, _ = agent_request(random.Random(7), 12)
    job = jobs_for_batch(decode_otlp_protobuf(body), "t", "otlp", len(body))
    (stored,), failures = run_transaction(engine, [job])
    assert failures == 0 and len(stored) == 12
    rng = random.Random(11)
    for _ in range(30):
        # stored ids (some twice) among unknown ones, up to past one 500-id chunk
        picks = [rng.choice(stored) for _ in range(rng.randrange(0, 20))]
        unknown = [f"{rng.getrandbits(128):032x}" for _ in range(rng.choice([0, 3, 499, 700]))]
        ids = picks + unknown
        rng.shuffle(ids)
        with engine.connect() as conn:
            got = existing_trace_ids(conn, "t", ids)
            other_tenant = existing_trace_ids(conn, "u", ids)
        assert got == _core_existing(engine, "t", ids)
        assert set(got) == set(picks) and all(key > 0 for key in got.values())
        assert other_tenant == {}
