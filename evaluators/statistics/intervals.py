"""Confidence intervals for one proportion and for differences of two.

Formulas (SPEC §12.1):

* Wilson score interval — E. B. Wilson (1927), "Probable inference, the law
  of succession, and statistical inference", JASA 22:209–212.  Chosen over the
  Wald interval because it never has zero width at 0 or n successes and keeps
  close to nominal coverage at small n.
* Clopper–Pearson exact interval — Clopper & Pearson (1934), Biometrika
  26:404–413, via beta quantiles so a *fractional* count (a sum of per-case
  rates) is accepted; guaranteed coverage, used where the unit of analysis is
  small (distinct cases).
* Newcombe hybrid score interval for the difference of two independent
  proportions — R. G. Newcombe (1998), "Interval estimation for the difference
  between independent proportions: comparison of eleven methods", Statistics
  in Medicine 17:873–890, method 10 (square-and-add of Wilson limits).
* Newcombe's interval for a difference of *paired* proportions —
  R. G. Newcombe (1998), "Improved confidence intervals for the difference
  between binomial proportions based on paired data", Statistics in Medicine
  17:2635–2650, method 10: the same square-and-add with the covariance term
  −2φ̂·d1·d2, where φ̂ is the phi coefficient of the 2×2 table.
* The McNemar difference interval: the exact interval on the share of
  discordant pairs that moved one way, rescaled to a difference (SPEC §12.1),
  so that it excludes 0 exactly when the exact McNemar test rejects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evaluators.statistics.special import beta_ppf, normal_sf, z_for_level


@dataclass(frozen=True)
class Interval:
    """A closed interval ``[lo, hi]`` around a point estimate."""

    point: float
    lo: float
    hi: float

    def excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of 0."""
        return self.lo > 0.0 or self.hi < 0.0

    @property
    def width(self) -> float:
        return self.hi - self.lo


def wilson_interval(k: float, n: float, level: float = 0.95) -> Interval | None:
    """Wilson score interval for ``k`` successes in ``n`` trials.

    ``centre = (p + z²/2n)/(1 + z²/n)``,
    ``half = z·√(p(1−p)/n + z²/4n²)/(1 + z²/n)``, clamped to [0, 1].
    Returns ``None`` when ``n`` is 0 (nothing observed, no interval).
    """
    return wilson_interval_z(k, n, z_for_level(level))


def wilson_interval_z(k: float, n: float, z: float) -> Interval | None:
    """Wilson interval at an explicit normal quantile ``z`` (see :func:`wilson_interval`)."""
    if n <= 0:
        return None
    if k < 0 or k > n:
        raise ValueError(f"successes must lie in [0, n]: k={k}, n={n}")
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1.0 - p) / n + z2 / (4.0 * n * n))) / denom
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def clopper_pearson_interval(k: float, n: float, level: float = 0.95) -> Interval | None:
    """Clopper–Pearson exact interval, accepting a fractional ``k``.

    ``lo = BetaInv(α/2; k, n−k+1)`` (0 when k = 0) and
    ``hi = BetaInv(1−α/2; k+1, n−k)`` (1 when k = n): the limits at which the
    binomial tail probability equals α/2.  ``None`` when ``n`` is 0.
    """
    if n <= 0:
        return None
    if k < 0 or k > n:
        raise ValueError(f"successes must lie in [0, n]: k={k}, n={n}")
    alpha = 1.0 - level
    lo = 0.0 if k <= 0 else beta_ppf(alpha / 2.0, k, n - k + 1.0)
    hi = 1.0 if k >= n else beta_ppf(1.0 - alpha / 2.0, k + 1.0, n - k)
    return Interval(k / n, lo, hi)


def _clamp_diff(x: float) -> float:
    return max(-1.0, min(1.0, x))


def newcombe_interval(
    k1: float, n1: float, k2: float, n2: float, level: float = 0.95
) -> Interval | None:
    """Newcombe hybrid score interval for ``p1 − p2`` (independent samples).

    With Wilson limits (l1, u1) and (l2, u2):
    ``lo = Δ − √((p1 − l1)² + (u2 − p2)²)``,
    ``hi = Δ + √((u1 − p1)² + (p2 − l2)²)``, clamped to [−1, 1].
    ``None`` when either sample is empty.
    """
    return _newcombe_z(k1, n1, k2, n2, z_for_level(level))


def _newcombe_z(k1: float, n1: float, k2: float, n2: float, z: float) -> Interval | None:
    w1 = wilson_interval_z(k1, n1, z)
    w2 = wilson_interval_z(k2, n2, z)
    if w1 is None or w2 is None:
        return None
    p1, p2 = w1.point, w2.point
    delta = p1 - p2
    lo = delta - math.sqrt((p1 - w1.lo) ** 2 + (w2.hi - p2) ** 2)
    hi = delta + math.sqrt((w1.hi - p1) ** 2 + (p2 - w2.lo) ** 2)
    return Interval(delta, _clamp_diff(lo), _clamp_diff(hi))


def newcombe_p_value(k1: float, n1: float, k2: float, n2: float, alternative: str) -> float:
    """One-sided p-value by inverting the Newcombe interval (SPEC §12.3.5 ``newcombe-z``).

    ``alternative='less'`` tests p1 < p2: p = 1 − Φ(z*) where z* is the normal
    quantile at which the interval's upper bound reaches 0 (so p < α exactly
    when the (1 − 2α) interval lies below 0); ``'greater'`` mirrors it.  When
    the estimate points the other way the p-value is 1 minus the opposite one.
    """
    if alternative not in ("less", "greater"):
        raise ValueError("alternative must be 'less' or 'greater'")
    if n1 <= 0 or n2 <= 0:
        return 1.0
    delta = k1 / n1 - k2 / n2
    if alternative == "greater":
        return newcombe_p_value(k2, n2, k1, n1, "less")
    if delta > 0.0:
        return 1.0 - newcombe_p_value(k2, n2, k1, n1, "less")
    if delta == 0.0:
        return 0.5
    lo, hi = 0.0, 40.0
    top = _newcombe_z(k1, n1, k2, n2, hi)
    assert top is not None
    if top.hi < 0.0:
        return normal_sf(hi)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        iv = _newcombe_z(k1, n1, k2, n2, mid)
        assert iv is not None
        if iv.hi < 0.0:
            lo = mid
        else:
            hi = mid
    return normal_sf(0.5 * (lo + hi))


def phi_coefficient(
    n11: float, n10: float, n01: float, n00: float, *, agreement_correction: bool = True
) -> float:
    """φ̂ of a paired 2×2 table, as used by Newcombe's paired method 10.

    ``φ̂ = (n11·n00 − n10·n01)/√((n11+n10)(n01+n00)(n11+n01)(n10+n00))``, taken
    as 0 when any margin is empty.  With ``agreement_correction`` (SPEC §12.1:
    "only agreement beyond n/2 tightens") a positive numerator is reduced by
    n/2 and floored at 0 — Newcombe's correction that stops chance agreement
    in small tables from narrowing the interval; negative association is kept.
    """
    n = n11 + n10 + n01 + n00
    margins = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    if margins <= 0:
        return 0.0
    num = n11 * n00 - n10 * n01
    if agreement_correction and num > 0:
        num = max(num - n / 2.0, 0.0)
    return num / math.sqrt(margins)


def newcombe_paired_interval(
    n11: float,
    n10: float,
    n01: float,
    n00: float,
    level: float = 0.95,
    *,
    agreement_correction: bool = True,
) -> Interval | None:
    """Newcombe's interval for ``p1 − p2`` from paired binary outcomes.

    Cells: ``n11`` positive on both, ``n10`` positive on the first only,
    ``n01`` on the second only, ``n00`` on neither; ``p1 = (n11+n10)/n``,
    ``p2 = (n11+n01)/n``, ``Δ = (n10 − n01)/n``.  With Wilson limits on each
    margin:
    ``lo = Δ − √((p1−l1)² − 2φ̂(p1−l1)(u2−p2) + (u2−p2)²)``,
    ``hi = Δ + √((u1−p1)² − 2φ̂(u1−p1)(p2−l2) + (p2−l2)²)``.
    Positive correlation between the two measurements (φ̂ > 0) narrows the
    interval — pairing is what makes a paired design more sensitive.
    """
    n = n11 + n10 + n01 + n00
    if n <= 0:
        return None
    w1 = wilson_interval(n11 + n10, n, level)
    w2 = wilson_interval(n11 + n01, n, level)
    assert w1 is not None and w2 is not None
    phi = phi_coefficient(n11, n10, n01, n00, agreement_correction=agreement_correction)
    p1, p2 = w1.point, w2.point
    delta = (n10 - n01) / n
    dl1, du2 = p1 - w1.lo, w2.hi - p2
    du1, dl2 = w1.hi - p1, p2 - w2.lo
    lo = delta - math.sqrt(max(0.0, dl1 * dl1 - 2.0 * phi * dl1 * du2 + du2 * du2))
    hi = delta + math.sqrt(max(0.0, du1 * du1 - 2.0 * phi * du1 * dl2 + dl2 * dl2))
    return Interval(delta, _clamp_diff(lo), _clamp_diff(hi))


def mcnemar_difference_interval(b: int, c: int, pairs: int, level: float = 0.90) -> Interval:
    """Interval on the paired difference ``(c − b)/N`` from the discordant pairs.

    ``b`` pairs moved one way (pass→fail), ``c`` the other; π = b/(b+c) gets an
    exact Clopper–Pearson interval and the difference is
    ``((b+c)/N)·(1 − 2π)``.  Conditional on the number of changed pairs, so at
    level 1−2α it excludes 0 exactly when the one-sided exact McNemar test at α
    rejects (SPEC §12.1, §12.3.3).  With no discordant pair the difference is
    exactly 0 (nothing changed).
    """
    if pairs <= 0:
        raise ValueError("need at least one pair")
    m = b + c
    if m == 0:
        return Interval(0.0, 0.0, 0.0)
    share = clopper_pearson_interval(b, m, level)
    assert share is not None
    scale = m / pairs
    return Interval(
        scale * (1.0 - 2.0 * b / m), scale * (1.0 - 2.0 * share.hi), scale * (1.0 - 2.0 * share.lo)
    )
