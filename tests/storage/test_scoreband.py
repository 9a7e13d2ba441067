"""Score filters read the score band first; they must select exactly the
traces the plain comparison of ``latest_score`` would."""

from __future__ import annotations

import math
import random
from datetime import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, update

from storage.otlp import traces
from storage.scoreband import latest_verdict, score_band
from storage.traces import TraceQuery, list_traces
from tests.support.ingest import ingest
from tests.support.otlp_bodies import agent_request

T0 = datetime(2026, 12, 6, 7, 0, 0)
# Edges of the bands as doubles land on them: 0.7 * 10 is 7.000000000000001.
EDGES = [0.0, 1e-12, 0.0999999, 0.1, 0.3, 0.6999999999999999, 0.7, 0.7000000000000001]
EDGES += [0.95, 0.99999, 1.0]
scores = st.one_of(st.sampled_from(EDGES), st.floats(min_value=0.0, max_value=1.0))
numbers = st.floats(allow_nan=False)


@given(numbers, numbers)
def test_the_band_never_decreases_as_the_score_grows(a: float, b: float) -> None:
    low, high = sorted((a, b))
    band_low, band_high = score_band(low), score_band(high)
    assert band_low is not None and band_high is not None
    assert 0 <= band_low <= band_high <= 10


def test_known_bands() -> None:
    assert [score_band(s) for s in (0.0, 0.05, 0.1, 0.7, 0.95, 0.99999, 1.0)] == [
        0,
        0,
        1,
        7,
        9,
        9,
        10,
    ]
    assert score_band(-3.0) == 0 and score_band(7.5) == 10
    assert score_band(-math.inf) == 0 and score_band(math.inf) == 10
    assert score_band(None) is None and score_band(math.nan) is None
    assert latest_verdict("eval_1", 0.42) == {
        "latest_evaluation_id": "eval_1",
        "latest_score": 0.42,
        "score_band": 4,
    }


def _scored_traces(engine: Engine, values: list[float | None]) -> dict[str, float | None]:
    body, ids = agent_request(random.Random(11), len(values))
    ingest(engine, body, at=T0)
    trace_ids = sorted({t for t, _ in ids})
    with engine.begin() as conn:
        for trace_id, score in zip(trace_ids, values, strict=True):
            if score is not None:
                conn.execute(
                    update(traces)
                    .where(traces.c.trace_id == trace_id)
                    .values(latest_verdict(f"eval_{trace_id[:8]}", score))
                )
    return dict(zip(trace_ids, values, strict=True))


def test_score_filters_select_what_the_exact_comparison_does(engine: Engine) -> None:
    stored = _scored_traces(engine, [*EDGES, None, 0.42, 0.58])

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.none() | scores, st.none() | scores)
    def check(low: float | None, high: float | None) -> None:
        query = TraceQuery(tenant_id="t", min_score=low, max_score=high, limit=100)
        with engine.connect() as conn:
            page = list_traces(conn, query)
        expected = {
            trace_id
            for trace_id, score in stored.items()
            if (low is None or (score is not None and score >= low))
            and (high is None or (score is not None and score <= high))
        }
        assert {row.trace_id for row in page.rows} == expected
        assert page.total == len(expected)

    check()
