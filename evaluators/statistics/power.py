"""How large a change a comparison could have seen, and how many cases it needs.

* ``smallest_detectable`` — SPEC §12.1: the difference a two-sample test
  detects with 80% power at the least favourable rate p = ½:
  ``(z_α + z_β)·√(0.25·(1/n1 + 1/n2))``.  One-sided z_α for run comparisons
  (§12.3), two-sided for the drift view (§12.5).
* ``smallest_detectable_paired`` — the paired analogue from Connor's
  sample-size formula for McNemar's test: R. J. Connor (1987), "Sample size for
  testing differences in proportions for the paired-sample design",
  Biometrics 43:207–211:  ``N = (z_α√ψ + z_β√(ψ − Δ²))² / Δ²`` with ψ the
  share of discordant pairs, solved for Δ.
* ``cases_needed`` / ``pairs_needed`` — the same formulas solved for n (the
  classical two-proportion formula, Fleiss, *Statistical Methods for Rates and
  Proportions*, without continuity correction; Connor for pairs), so that an
  undetermined comparison can say how much data would decide it.
"""

from __future__ import annotations

import math

from evaluators.statistics.special import Z_POWER80, normal_ppf, z_for_level

DEFAULT_POWER = 0.8


def _z_alpha(alpha: float, two_sided: bool) -> float:
    return z_for_level(1.0 - alpha) if two_sided else z_for_level(1.0 - 2.0 * alpha)


def _z_beta(power: float) -> float:
    return Z_POWER80 if power == DEFAULT_POWER else normal_ppf(power)


def smallest_detectable(
    n1: int,
    n2: int,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    two_sided: bool = False,
) -> float | None:
    """Smallest pass-rate difference detectable at ``power`` (SPEC §12.1).

    ``min(1, (z_α + z_β)·√(0.25·(1/n1 + 1/n2)))``; ``None`` if a side is empty.
    One-sided by default (the run comparison's test); ``two_sided=True`` for
    the drift view.
    """
    if n1 <= 0 or n2 <= 0:
        return None
    z = _z_alpha(alpha, two_sided) + _z_beta(power)
    return min(1.0, z * math.sqrt(0.25 * (1.0 / n1 + 1.0 / n2)))


def _planning_discordance(pairs: int, discordant: int) -> float:
    # Jeffreys-smoothed share of discordant pairs: never exactly 0, so a run
    # pair with no change yet still gets a finite planning value.
    return (discordant + 0.5) / (pairs + 1.0)


def smallest_detectable_paired(
    pairs: int,
    discordant: int,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    two_sided: bool = False,
) -> float | None:
    """Smallest paired difference detectable at ``power`` (Connor 1987).

    ψ is the observed share of discordant pairs (Jeffreys-smoothed).  Solves
    ``N·Δ² = (z_α√ψ + z_β√(ψ − Δ²))²`` for Δ ∈ (0, ψ] by bisection; the left
    side minus the right rises with Δ.  Returns ψ (the largest difference
    ψ allows) when even that is not detectable.
    """
    if pairs <= 0:
        return None
    psi = min(1.0, _planning_discordance(pairs, discordant))
    za, zb = _z_alpha(alpha, two_sided), _z_beta(power)

    def gap(d: float) -> float:
        return pairs * d * d - (za * math.sqrt(psi) + zb * math.sqrt(max(0.0, psi - d * d))) ** 2

    top = min(psi, math.sqrt(psi))
    if gap(top) < 0.0:
        return top
    lo, hi = 0.0, top
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if gap(mid) < 0.0:
            lo = mid
        else:
            hi = mid
    return hi


def cases_needed(
    p1: float,
    p2: float,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    two_sided: bool = False,
) -> int | None:
    """Cases per run for a two-sample test to detect ``p1 − p2`` at ``power``.

    ``n = (z_α√(2p̄q̄) + z_β√(p1q1 + p2q2))² / Δ²``; ``None`` when Δ = 0.
    """
    delta = abs(p1 - p2)
    if delta <= 0.0:
        return None
    pbar = 0.5 * (p1 + p2)
    za, zb = _z_alpha(alpha, two_sided), _z_beta(power)
    num = za * math.sqrt(2.0 * pbar * (1.0 - pbar)) + zb * math.sqrt(
        p1 * (1.0 - p1) + p2 * (1.0 - p2)
    )
    return max(1, math.ceil(num * num / (delta * delta)))


def pairs_needed(
    discordant_share: float,
    delta: float,
    *,
    alpha: float = 0.05,
    power: float = DEFAULT_POWER,
    two_sided: bool = False,
) -> int | None:
    """Pairs McNemar's test needs to detect a paired difference (Connor 1987).

    ``N = (z_α√ψ + z_β√(ψ − Δ²))² / Δ²``; ``None`` when Δ = 0 or Δ² > ψ
    (impossible: the difference cannot exceed the discordant share).
    """
    d = abs(delta)
    psi = discordant_share
    if d <= 0.0 or d * d > psi or d > psi:
        return None
    za, zb = _z_alpha(alpha, two_sided), _z_beta(power)
    num = za * math.sqrt(psi) + zb * math.sqrt(psi - d * d)
    return max(1, math.ceil(num * num / (d * d)))
