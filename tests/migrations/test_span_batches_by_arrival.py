"""Migration 0013 keys span batches by their trace's arrival, and back."""

from __future__ import annotations

import random
from datetime import datetime

from sqlalchemy import Engine, inspect, select, text

from storage import migrate
from storage.arrival import arrival_key
from storage.otlp import traces
from storage.spans import span_batches, spans_of
from tests.migrations.revisions import move_to
from tests.support.ingest import ingest
from tests.support.otlp_bodies import agent_request


def _key(engine: Engine) -> list[str]:
    return inspect(engine).get_pk_constraint("span_batches")["constrained_columns"]


def _batches(engine: Engine) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        return [
            tuple(r)
            for r in conn.execute(
                text("SELECT tenant_id, trace_id, seq, span_ids FROM span_batches")
            ).all()
        ]


def test_upgrade_keys_batches_by_their_traces_arrival_and_downgrade_restores_the_key(
    engine: Engine,
) -> None:
    for seed in (1, 2):
        ingest(engine, agent_request(random.Random(seed), 15)[0])
    with engine.connect() as conn:
        ids = sorted(conn.execute(select(traces.c.trace_id)).scalars())
        before = spans_of(conn, "t", ids)
    batches = sorted(_batches(engine))
    assert len(ids) == 30 and len(before) == 90

    move_to(engine, "0012", down=True)
    assert _key(engine) == ["tenant_id", "trace_id", "seq"]
    assert "arrival_us" not in {c["name"] for c in inspect(engine).get_columns("traces")}
    assert sorted(_batches(engine)) == batches

    move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert _key(engine) == ["tenant_id", "arrival_us", "trace_id", "seq"]
    assert sorted(_batches(engine)) == batches
    with engine.connect() as conn:
        created: dict[str, datetime] = {
            r.trace_id: r.created_at
            for r in conn.execute(select(traces.c.trace_id, traces.c.created_at))
        }
        keys = {
            r.trace_id: r.arrival_us
            for r in conn.execute(select(traces.c.trace_id, traces.c.arrival_us))
        }
        batch_keys = conn.execute(select(span_batches.c.trace_id, span_batches.c.arrival_us)).all()
        after = spans_of(conn, "t", ids)
    # the migration computes in SQL what ingest computes in Python
    assert keys == {t: arrival_key(at) for t, at in created.items()}
    assert all(key == keys[t] for t, key in batch_keys)
    assert after == before
