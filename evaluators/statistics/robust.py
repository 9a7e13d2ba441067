"""Robust outlier score for cost anomalies (SPEC §8.26, §12.7).

The modified z-score of B. Iglewicz & D. C. Hoaglin (1993), *How to Detect and
Handle Outliers* (ASQC Basic References in Quality Control, vol. 16):
``M = 0.6745·(x − median)/MAD`` — median and median absolute deviation
instead of mean and standard deviation, so the spikes being looked for cannot
inflate the yardstick that should reveal them (0.6745 = Φ⁻¹(0.75) makes MAD
consistent with σ for normal data; 1/0.6745 = 1.4826).  They recommend
flagging |M| > 3.5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

MAD_FACTOR = 0.6745
SPIKE_Z = 3.5
MIN_HISTORY = 20
HISTORY_WINDOW = 200
FLAT_MARGIN = 0.5


@dataclass(frozen=True)
class ModifiedZ:
    """Modified z-score of one value against a history.

    ``scale`` is the robust σ used (``MAD/0.6745``), or the floor
    ``max(0.1·median, 0.0001)`` when MAD is 0 (``floored`` is then True).
    """

    z: float
    median: float
    mad: float
    scale: float
    floored: bool


def modified_z(value: float, history: Sequence[float]) -> ModifiedZ:
    """``z = 0.6745·(value − median)/MAD`` with the SPEC's floor when MAD = 0."""
    if not history:
        raise ValueError("modified z needs at least one prior value")
    med = median(history)
    mad = median(abs(x - med) for x in history)
    if mad > 0.0:
        scale = mad / MAD_FACTOR
        floored = False
    else:
        scale = max(0.1 * abs(med), 0.0001)
        floored = True
    return ModifiedZ((value - med) / scale, med, mad, scale, floored)


@dataclass(frozen=True)
class CostAnomaly:
    """Cost of one trace against its agent's own history (SPEC §8.26).

    ``status``: ``spike`` (z > 3.5), ``normal``, or ``insufficient_history``
    (fewer than 20 prior costed traces: says nothing rather than "fine").
    ``above_every_prior_by_margin``: the flat-history reading, cost more than
    50% over every prior value.
    """

    status: str
    n_history: int
    score: ModifiedZ | None
    above_every_prior_by_margin: bool


def cost_anomaly(
    cost: float,
    prior_costs_newest_first: Sequence[float],
    *,
    window: int = HISTORY_WINDOW,
    min_history: int = MIN_HISTORY,
    threshold: float = SPIKE_Z,
    flat_margin: float = FLAT_MARGIN,
) -> CostAnomaly:
    """Is ``cost`` a spike against the last ``window`` prior costs?"""
    history = list(prior_costs_newest_first[:window])
    if len(history) < min_history:
        return CostAnomaly("insufficient_history", len(history), None, False)
    score = modified_z(cost, history)
    above = cost > (1.0 + flat_margin) * max(history)
    return CostAnomaly("spike" if score.z > threshold else "normal", len(history), score, above)
