"""Every primitive against SciPy reference values (SciPy is a test-only dependency)."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import special as sp
from scipy import stats

from evaluators import stats as legacy
from evaluators.statistics import (
    Z95,
    benjamini_hochberg,
    benjamini_hochberg_reject,
    beta_ppf,
    betainc,
    clopper_pearson_interval,
    mcnemar_difference_interval,
    mcnemar_exact,
    normal_cdf,
    normal_ppf,
    wilson_interval,
)

TOL = 1e-10
counts = st.integers(min_value=1, max_value=3000).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)
levels = st.sampled_from([0.8, 0.9, 0.95, 0.99])
shape = st.one_of(
    st.floats(min_value=1e-3, max_value=2.0),
    st.floats(min_value=0.5, max_value=60.0),
    st.floats(min_value=1.0, max_value=5000.0),
)


@given(counts, levels)
@settings(max_examples=150, deadline=None)
def test_wilson_matches_scipy(kn: tuple[int, int], level: float) -> None:
    k, n = kn
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    iv = wilson_interval(k, n, level)
    assert iv is not None
    assert iv.lo == pytest.approx(ref.low, abs=TOL)
    assert iv.hi == pytest.approx(ref.high, abs=TOL)


@given(counts)
@settings(max_examples=100, deadline=None)
def test_wilson_keeps_the_legacy_helper(kn: tuple[int, int]) -> None:
    k, n = kn
    iv = wilson_interval(k, n)
    old = legacy.wilson(k, n)
    assert iv is not None and old is not None
    assert (iv.lo, iv.hi) == pytest.approx(old, abs=1e-15)
    assert legacy.Z95 == Z95


def test_wilson_empty_is_none() -> None:
    assert wilson_interval(0, 0) is None
    assert clopper_pearson_interval(0, 0) is None


@given(counts, levels)
@settings(max_examples=150, deadline=None)
def test_clopper_pearson_matches_scipy(kn: tuple[int, int], level: float) -> None:
    k, n = kn
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="exact")
    iv = clopper_pearson_interval(k, n, level)
    assert iv is not None
    assert iv.lo == pytest.approx(ref.low, abs=TOL)
    assert iv.hi == pytest.approx(ref.high, abs=TOL)


# Beyond ~1e-6 of a success SciPy's own beta (Boost) overflows; the product never
# sees such counts (k is a sum of per-case rates, each 0 or ≥ 1/attempts).
@given(
    st.floats(min_value=0.5, max_value=400.0),
    st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=1.0)),
)
@settings(max_examples=200, deadline=None)
def test_clopper_pearson_fractional_k_uses_beta_quantiles(n: float, frac: float) -> None:
    n = float(math.floor(n)) or 1.0
    k = frac * n
    iv = clopper_pearson_interval(k, n)
    assert iv is not None
    lo = 0.0 if k <= 0 else stats.beta.ppf(0.025, k, n - k + 1)
    hi = 1.0 if k >= n else stats.beta.ppf(0.975, k + 1, n - k)
    assert iv.lo == pytest.approx(lo, abs=TOL)
    assert iv.hi == pytest.approx(hi, abs=TOL)


# Subnormal x (< 2.2e-308) is left out: there SciPy (Boost) itself loses precision.
# Above 1/2 the reference is SciPy through the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
# (1 - x is exact there): within a few ulps of 1, sp.betainc(0.5, 0.5, x) is off by
# 3e-9 while the closed form 1 - (2/pi)·asin(sqrt(1 - x)) agrees with ours.
@given(
    shape, shape, st.one_of(st.sampled_from([0.0, 1.0]), st.floats(min_value=1e-300, max_value=1.0))
)
@settings(max_examples=200, deadline=None)
def test_betainc_matches_scipy(a: float, b: float, x: float) -> None:
    upper = x > 0.5
    reference = 1.0 - float(sp.betainc(b, a, 1.0 - x)) if upper else float(sp.betainc(a, b, x))
    assert betainc(a, b, x) == pytest.approx(reference, abs=TOL)


def test_betainc_near_one_matches_the_closed_form() -> None:
    x = 0.9999999999999999
    # I_x(1/2, 1/2) = (2/pi)·asin(sqrt(x)), written with 1 - x (exact here) so that
    # rounding sqrt(x) to 1 - 2**-53 does not decide the answer.
    exact = 1 - 2 / math.pi * math.asin(math.sqrt(1 - x))
    assert betainc(0.5, 0.5, x) == pytest.approx(exact, abs=1e-15)


@given(
    shape,
    shape,
    st.one_of(
        st.floats(min_value=1e-9, max_value=1 - 1e-9),
        st.sampled_from([0.005, 0.025, 0.05, 0.95, 0.975, 0.995]),
    ),
)
@settings(max_examples=200, deadline=None)
@example(1.0625, 1.0625, 0.5)  # symmetric: the median is 0.5, where scipy 1.17 is 3e-10 off
@example(1.1875, 1.1875, 0.5)  # and 1e-8 off here
def test_beta_ppf_matches_scipy(a: float, b: float, p: float) -> None:
    ours, theirs = beta_ppf(p, a, b), float(stats.beta.ppf(p, a, b))
    if ours == pytest.approx(theirs, abs=TOL):
        return
    # Where the two differ, ours must be the better inverse by scipy's own CDF.
    assert abs(stats.beta.cdf(ours, a, b) - p) <= abs(stats.beta.cdf(theirs, a, b) - p)


@given(st.floats(min_value=1e-300, max_value=1.0, exclude_max=True))
@settings(max_examples=150, deadline=None)
def test_normal_quantile_matches_scipy(p: float) -> None:
    assert normal_ppf(p) == pytest.approx(float(stats.norm.ppf(p)), rel=1e-12, abs=1e-12)
    assert normal_cdf(normal_ppf(p)) == pytest.approx(p, rel=1e-9)


@given(st.integers(min_value=0, max_value=400), st.integers(min_value=0, max_value=400))
@settings(max_examples=150, deadline=None)
def test_mcnemar_exact_matches_binomtest(b: int, c: int) -> None:
    r = mcnemar_exact(b, c)
    if b + c == 0:
        assert (r.p_two_sided, r.p_worse, r.p_better) == (1.0, 1.0, 1.0)
        return
    two = stats.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    worse = stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue
    better = stats.binomtest(c, b + c, 0.5, alternative="greater").pvalue
    assert r.p_two_sided == pytest.approx(two, abs=TOL)
    assert r.p_worse == pytest.approx(worse, abs=TOL)
    assert r.p_better == pytest.approx(better, abs=TOL)


def test_mcnemar_large_counts_use_the_beta_identity() -> None:
    r = mcnemar_exact(2600, 2400)
    assert r.p_worse == pytest.approx(
        stats.binomtest(2600, 5000, alternative="greater").pvalue, rel=1e-8
    )
    assert r.p_two_sided == pytest.approx(stats.binomtest(2600, 5000).pvalue, rel=1e-8)


@given(
    st.integers(min_value=0, max_value=60),
    st.integers(min_value=0, max_value=60),
    st.integers(min_value=0, max_value=200),
)
@settings(max_examples=150, deadline=None)
def test_mcnemar_interval_agrees_with_the_one_sided_test(b: int, c: int, same: int) -> None:
    """The 90% difference interval excludes 0 exactly when a one-sided 5% test fires."""
    pairs = b + c + same
    if pairs == 0:
        return
    iv = mcnemar_difference_interval(b, c, pairs, 0.90)
    r = mcnemar_exact(b, c)
    assert (iv.hi < 0) == (r.p_worse < 0.05)
    assert (iv.lo > 0) == (r.p_better < 0.05)
    assert iv.point == pytest.approx((c - b) / pairs)
    assert iv.lo <= iv.point <= iv.hi


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=40))
@settings(max_examples=150, deadline=None)
def test_benjamini_hochberg_matches_scipy(ps: list[float]) -> None:
    ref = stats.false_discovery_control(ps, method="bh")
    q = benjamini_hochberg(ps)
    assert q == pytest.approx(list(ref), abs=1e-12)
    assert all(qi >= pi for qi, pi in zip(q, ps, strict=True))
    assert benjamini_hochberg_reject(ps) == [x <= 0.05 for x in q]


def test_benjamini_hochberg_hand_example() -> None:
    # m = 4: q_(i) = min_{j≥i} 4·p_(j)/j
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.5]) == pytest.approx(
        [0.04, 0.0533333333, 0.0533333333, 0.5]
    )
    assert benjamini_hochberg([]) == []


def test_determinism() -> None:
    first = [
        clopper_pearson_interval(3.7, 11),
        beta_ppf(0.025, 0.3, 900.0),
        mcnemar_exact(7, 1),
        benjamini_hochberg([0.2, 0.01, 0.03]),
    ]
    again = [
        clopper_pearson_interval(3.7, 11),
        beta_ppf(0.025, 0.3, 900.0),
        mcnemar_exact(7, 1),
        benjamini_hochberg([0.2, 0.01, 0.03]),
    ]
    assert first == again
