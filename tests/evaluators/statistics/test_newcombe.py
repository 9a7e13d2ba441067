"""Newcombe's intervals: published examples and a direct implementation of the formulas."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evaluators.statistics import (
    newcombe_interval,
    newcombe_p_value,
    newcombe_paired_interval,
    phi_coefficient,
)

# Newcombe (1998) Statistics in Medicine 17:873-890, Table II, method 10 (95%);
# the same figures come out of statsmodels' confint_proportions_2indep(method="newcomb").
PUBLISHED_UNPAIRED = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((6, 7, 2, 7), (0.0582, 0.8062)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("counts", "expected"), PUBLISHED_UNPAIRED)
def test_unpaired_reproduces_published_examples(
    counts: tuple[int, int, int, int], expected: tuple[float, float]
) -> None:
    iv = newcombe_interval(*counts)
    assert iv is not None
    assert (round(iv.lo, 4), round(iv.hi, 4)) == expected


def _wilson_ref(k: int, n: int, level: float) -> tuple[float, float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return k / n, float(ci.low), float(ci.high)


def _unpaired_ref(k1: int, n1: int, k2: int, n2: int, level: float) -> tuple[float, float]:
    p1, l1, u1 = _wilson_ref(k1, n1, level)
    p2, l2, u2 = _wilson_ref(k2, n2, level)
    d = p1 - p2
    return (max(-1.0, d - math.hypot(p1 - l1, u2 - p2)), min(1.0, d + math.hypot(u1 - p1, p2 - l2)))


def _paired_ref(a: int, b: int, c: int, d: int, level: float) -> tuple[float, float]:
    """Newcombe (1998b) method 10 written straight from the paper's notation.

    a = both positive, b = first only, c = second only, d = neither;
    phi uses the agreement correction (ad − bc − n/2 when ad > bc, floored at 0).
    """
    n = a + b + c + d
    p1, l1, u1 = _wilson_ref(a + b, n, level)
    p2, l2, u2 = _wilson_ref(a + c, n, level)
    e, f, g, h = a + b, c + d, a + c, b + d
    num = float(a * d - b * c)
    if num > 0:
        num = max(num - n / 2, 0)
    phi = 0.0 if e * f * g * h == 0 else num / math.sqrt(e * f * g * h)
    dl2, du2 = p1 - l1, u1 - p1
    dl3, du3 = p2 - l2, u2 - p2
    diff = (b - c) / n
    lo = diff - math.sqrt(max(0.0, dl2**2 - 2 * phi * dl2 * du3 + du3**2))
    hi = diff + math.sqrt(max(0.0, du2**2 - 2 * phi * du2 * dl3 + dl3**2))
    return max(-1.0, lo), min(1.0, hi)


small = st.integers(min_value=0, max_value=60)


@given(st.integers(1, 300), st.integers(1, 300), st.data(), st.sampled_from([0.9, 0.95]))
@settings(max_examples=200, deadline=None)
def test_unpaired_matches_direct_formula(
    n1: int, n2: int, data: st.DataObject, level: float
) -> None:
    k1 = data.draw(st.integers(0, n1))
    k2 = data.draw(st.integers(0, n2))
    iv = newcombe_interval(k1, n1, k2, n2, level)
    assert iv is not None
    ref = _unpaired_ref(k1, n1, k2, n2, level)
    assert (iv.lo, iv.hi) == pytest.approx(ref, abs=1e-10)
    assert iv.lo <= iv.point <= iv.hi


@given(small, small, small, small, st.sampled_from([0.9, 0.95]))
@settings(max_examples=150, deadline=None)
def test_paired_matches_direct_formula(a: int, b: int, c: int, d: int, level: float) -> None:
    if a + b + c + d == 0:
        assert newcombe_paired_interval(0, 0, 0, 0) is None
        return
    iv = newcombe_paired_interval(a, b, c, d, level)
    assert iv is not None
    assert (iv.lo, iv.hi) == pytest.approx(_paired_ref(a, b, c, d, level), abs=1e-10)
    assert iv.lo <= iv.point <= iv.hi


@given(small, small, small, small)
@settings(max_examples=200, deadline=None)
def test_paired_without_correlation_is_the_unpaired_interval(
    a: int, b: int, c: int, d: int
) -> None:
    """With φ̂ = 0 the paired interval is method 10 on the two margins (same n)."""
    n = a + b + c + d
    if n == 0 or phi_coefficient(a, b, c, d) != 0.0:
        return
    paired = newcombe_paired_interval(a, b, c, d)
    unpaired = newcombe_interval(a + b, n, a + c, n)
    assert paired is not None and unpaired is not None
    assert (paired.lo, paired.hi) == pytest.approx((unpaired.lo, unpaired.hi), abs=1e-12)


def test_paired_positive_agreement_narrows() -> None:
    # Strong agreement (most pairs concordant) gives a narrower interval than
    # treating the two margins as independent samples.
    paired = newcombe_paired_interval(40, 3, 9, 48)
    unpaired = newcombe_interval(43, 100, 49, 100)
    assert paired is not None and unpaired is not None
    assert paired.width < unpaired.width
    assert phi_coefficient(40, 3, 9, 48) > 0
    # The agreement correction: a table agreeing no more than n/2 beyond
    # independence gets φ̂ = 0; without the correction it would be positive.
    assert phi_coefficient(3, 2, 2, 3) == 0.0
    assert phi_coefficient(3, 2, 2, 3, agreement_correction=False) > 0.0


@given(st.integers(1, 200), st.integers(1, 200), st.data())
@settings(max_examples=150, deadline=None)
def test_inverted_newcombe_p_value_matches_the_interval(
    n1: int, n2: int, data: st.DataObject
) -> None:
    k1 = data.draw(st.integers(0, n1))
    k2 = data.draw(st.integers(0, n2))
    iv90 = newcombe_interval(k1, n1, k2, n2, 0.90)
    assert iv90 is not None
    p_less = newcombe_p_value(k1, n1, k2, n2, "less")
    p_greater = newcombe_p_value(k1, n1, k2, n2, "greater")
    if abs(p_less - 0.05) > 1e-9:
        assert (iv90.hi < 0) == (p_less < 0.05)
    if abs(p_greater - 0.05) > 1e-9:
        assert (iv90.lo > 0) == (p_greater < 0.05)
    assert 0.0 <= p_less <= 1.0 and 0.0 <= p_greater <= 1.0
