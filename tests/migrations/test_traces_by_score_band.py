"""Migration 0016 indexes traces by score band instead of exact score, and back."""

from __future__ import annotations

import math
import random

from sqlalchemy import Engine, inspect, select, text

from storage import migrate
from storage.otlp import traces
from storage.scoreband import score_band
from tests.migrations.revisions import move_to
from tests.support.ingest import ingest
from tests.support.otlp_bodies import agent_request

SCORES = [None, 0.0, 0.0999999, 0.1, 0.7, 0.7000000000000001, 0.95, 0.99999, 1.0]
# out of the scale: held to its ends, as score_band holds them
SCORES += [-0.5, 1.5, -math.inf, math.inf]


def _score_index(engine: Engine) -> tuple[str, list[str]]:
    (index,) = [
        ix
        for ix in inspect(engine).get_indexes("traces")
        if ix["name"] in ("ix_traces_tenant_latest_score", "ix_traces_tenant_score_band")
    ]
    return str(index["name"]), [str(c) for c in index["column_names"]]


def test_upgrade_bands_every_scored_trace_as_the_code_does(engine: Engine) -> None:
    body, ids = agent_request(random.Random(16), len(SCORES))
    ingest(engine, body)
    trace_ids = sorted({t for t, _ in ids})

    move_to(engine, "0015", down=True)
    assert _score_index(engine) == ("ix_traces_tenant_latest_score", ["tenant_id", "latest_score"])
    with engine.begin() as conn:
        for trace_id, score in zip(trace_ids, SCORES, strict=True):
            conn.execute(
                text("UPDATE traces SET latest_score = :s WHERE trace_id = :t"),
                {"s": score, "t": trace_id},
            )

    move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert _score_index(engine) == ("ix_traces_tenant_score_band", ["tenant_id", "score_band"])
    with engine.connect() as conn:
        bands = dict(conn.execute(select(traces.c.trace_id, traces.c.score_band)).all())
    assert bands == {t: score_band(s) for t, s in zip(trace_ids, SCORES, strict=True)}
    assert [bands[t] for t in trace_ids] == [None, 0, 0, 1, 7, 7, 9, 9, 10, 0, 10, 0, 10]
