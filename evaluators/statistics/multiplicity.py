"""Benjamini–Hochberg false-discovery-rate control (SPEC §12.1, §12.3.5).

Y. Benjamini & Y. Hochberg (1995), "Controlling the false discovery rate: a
practical and powerful approach to multiple testing", JRSS B 57:289–300.
Twenty-odd rules are tested at once in a run comparison; without a correction
one of them would "regress" by chance in most comparisons.  BH keeps the
expected share of false regressions among those reported at ≤ q, and is far
less conservative than Bonferroni.
"""

from __future__ import annotations

from collections.abc import Sequence


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """BH-adjusted p-values (q-values) in the input order.

    Sort ascending; ``q_(i) = min_{j ≥ i} m·p_(j)/j``, capped at 1 (and never
    below the raw p, which the formula guarantees).
    """
    m = len(p_values)
    if m == 0:
        return []
    for p in p_values:
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p-values must lie in [0, 1], got {p!r}")
    order = sorted(range(m), key=lambda i: (p_values[i], i))
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, m * p_values[i] / rank)
        q[i] = max(p_values[i], min(1.0, running))
    return q


def benjamini_hochberg_reject(p_values: Sequence[float], fdr: float = 0.05) -> list[bool]:
    """Which hypotheses BH rejects at false-discovery rate ``fdr`` (q ≤ fdr)."""
    return [q <= fdr for q in benjamini_hochberg(p_values)]
