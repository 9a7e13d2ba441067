"""McNemar's exact test on discordant pairs (SPEC §12.1, §12.3.3).

Q. McNemar (1947), "Note on the sampling error of the difference between
correlated proportions or percentages", Psychometrika 12:153–157; the exact
(conditional binomial) form: given m = b + c discordant pairs, under "no
change" each is equally likely to have moved either way, so b ~ Bin(m, ½).
Exact rather than the χ² approximation because run comparisons often have a
handful of changed cases.
"""

from __future__ import annotations

from dataclasses import dataclass

from evaluators.statistics.special import binom_cdf_le, binom_sf_ge


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on ``b`` (pass→fail) and ``c`` (fail→pass) pairs.

    ``p_two_sided`` = min(1, 2·P(X ≤ min(b, c))); ``p_worse`` = P(X ≥ b), the
    one-sided tail in the regression direction; ``p_better`` = P(X ≥ c).  With
    no discordant pair every p-value is 1.
    """

    b: int
    c: int
    p_two_sided: float
    p_worse: float
    p_better: float

    @property
    def discordant(self) -> int:
        return self.b + self.c


def mcnemar_exact(b: int, c: int) -> McNemarResult:
    """Exact McNemar test; ``b`` = pairs that got worse, ``c`` = got better."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    m = b + c
    if m == 0:
        return McNemarResult(b, c, 1.0, 1.0, 1.0)
    two = min(1.0, 2.0 * binom_cdf_le(min(b, c), m))
    return McNemarResult(b, c, two, binom_sf_ge(b, m), binom_sf_ge(c, m))
