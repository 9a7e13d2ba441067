"""The tenth of the score scale a trace's latest verdict falls in.

Score filters (``min_score``, ``max_score`` on the trace list) were served by
an index on ``(tenant, latest_score)``. Verdict scores take hundreds of
distinct values (218 in 5,000 traces of the standard load), and a non-unique
index files each new entry at the end of its value's run, so one worker
commit of 64 verdicts touched about as many leaves of that index as an index
on a random key would: each written to the log, then copied by the checkpoint.

``traces.score_band`` holds ``score_band(latest_score)``, one of eleven
values, and the index is on ``(tenant, score_band)``: a commit touches at
most eleven of its leaves. Filters compare the band first (read through the
index) and the exact score after, which gives the same rows because the band
never decreases as the score grows: ``score >= m`` implies
``score_band(score) >= score_band(m)``, and likewise for ``<=``.
"""

from __future__ import annotations

import math

BANDS = 10


def score_band(score: float | None) -> int | None:
    """``floor(score * 10)`` with the score held to [0, 1] first: 0–9, and 10
    for a perfect score (or an infinite one, as migration 0016 computes it);
    ``None`` for no score, or NaN, which no comparison matches."""
    if score is None or math.isnan(score):
        return None
    return math.floor(min(max(score, 0.0), 1.0) * BANDS)


def latest_verdict(evaluation_id: str, score: float | None) -> dict[str, object]:
    """The trace columns that point it at its newest verdict: every writer of
    ``latest_score`` goes through here, so the band always agrees with it."""
    return {
        "latest_evaluation_id": evaluation_id,
        "latest_score": score,
        "score_band": score_band(score),
    }
