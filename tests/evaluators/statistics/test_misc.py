"""Power / detectable size, modified z (cost anomaly) and the drift view."""

from __future__ import annotations

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evaluators.statistics import (
    cases_needed,
    cost_anomaly,
    drift,
    modified_z,
    pairs_needed,
    smallest_detectable,
    smallest_detectable_paired,
)


def test_smallest_detectable_spec_formula() -> None:
    z_one = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    z_two = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert smallest_detectable(100, 100) == pytest.approx(z_one * (0.25 * 0.02) ** 0.5)
    assert smallest_detectable(100, 50, two_sided=True) == pytest.approx(
        z_two * (0.25 * (1 / 100 + 1 / 50)) ** 0.5
    )
    assert smallest_detectable(1, 1) == 1.0  # capped
    assert smallest_detectable(0, 10) is None


@given(st.integers(20, 5000), st.integers(0, 100))
@settings(max_examples=100, deadline=None)
def test_paired_detectable_inverts_connor(pairs: int, pct: int) -> None:
    discordant = pairs * pct // 100
    d = smallest_detectable_paired(pairs, discordant)
    assert d is not None and 0 < d <= 1
    psi = (discordant + 0.5) / (pairs + 1)
    if d < psi:
        need = pairs_needed(psi, d)
        assert need is not None and abs(need - pairs) <= 1


def test_cases_needed_round_trip() -> None:
    n = cases_needed(0.8, 0.7)
    assert n is not None

    # power at n is ≥ 0.8 by the normal approximation, below 0.8 at n − 2
    def power(m: int) -> float:
        se0 = (2 * 0.75 * 0.25 / m) ** 0.5
        se1 = ((0.8 * 0.2 + 0.7 * 0.3) / m) ** 0.5
        return float(stats.norm.sf((stats.norm.ppf(0.95) * se0 - 0.1) / se1))

    assert power(n) >= 0.8 > power(n - 2)
    assert cases_needed(0.5, 0.5) is None


@given(
    st.lists(st.floats(min_value=0.0, max_value=10.0), min_size=20, max_size=200),
    st.floats(min_value=0.0, max_value=50.0),
)
@settings(max_examples=200, deadline=None)
def test_modified_z_definition(history: list[float], value: float) -> None:
    m = modified_z(value, history)
    med = statistics.median(history)
    mad = statistics.median(abs(x - med) for x in history)
    assert m.median == med and m.mad == mad
    if mad > 0:
        assert m.z == pytest.approx(0.6745 * (value - med) / mad)
        assert not m.floored
    else:
        assert m.floored and m.scale == max(0.1 * abs(med), 0.0001)


def test_cost_anomaly_rules() -> None:
    steady = [0.010 + 0.001 * (i % 5) for i in range(60)]
    assert cost_anomaly(0.011, steady).status == "normal"
    spike = cost_anomaly(0.2, steady)
    assert spike.status == "spike" and spike.score is not None and spike.score.z > 3.5
    assert cost_anomaly(1.0, steady[:19]).status == "insufficient_history"
    flat = cost_anomaly(0.02, [0.01] * 30)
    assert flat.score is not None and flat.score.floored and flat.status == "spike"
    assert flat.above_every_prior_by_margin
    # only the newest 200 count
    old_then_new = [1.0] * 200 + [0.0] * 500
    assert cost_anomaly(1.0, old_then_new).n_history == 200


def test_drift_view() -> None:
    few = drift(5, 9, 9, 9).to_dict()
    assert few["difference"] is None and few["enoughEvidence"] is False
    assert few["minimumPerWindow"] == 10
    same = drift(40, 50, 41, 50).to_dict()
    assert same["difference"]["significant"] is False
    assert same["smallestDetectable"] == pytest.approx(
        (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * (0.25 * 2 / 50) ** 0.5, abs=1e-4
    )
    drop = drift(20, 50, 45, 50).to_dict()
    assert drop["difference"]["hi"] < 0 and drop["smallestDetectable"] is None
