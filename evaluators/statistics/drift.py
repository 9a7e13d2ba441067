"""Drift view: this window against the equal-length window before it (SPEC §12.5)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evaluators.statistics.intervals import Interval, newcombe_interval
from evaluators.statistics.power import smallest_detectable
from evaluators.stats import r4

MINIMUM_PER_WINDOW = 10


@dataclass(frozen=True)
class DriftComparison:
    """Pass-rate change between two windows, 95% Newcombe (two-sided).

    Below ``MINIMUM_PER_WINDOW`` evaluations on either side no direction is
    given (``difference`` is None); when the interval includes 0,
    ``smallest_detectable`` says what change these sizes could have seen.
    """

    current_evaluated: int
    current_passed: int
    prior_evaluated: int
    prior_passed: int
    difference: Interval | None
    enough_evidence: bool
    smallest_detectable: float | None

    def to_dict(self) -> dict[str, Any]:
        d = self.difference
        return {
            "difference": None
            if d is None
            else {
                "delta": r4(d.point),
                "lo": r4(d.lo),
                "hi": r4(d.hi),
                "significant": d.excludes_zero(),
            },
            "enoughEvidence": self.enough_evidence,
            "minimumPerWindow": MINIMUM_PER_WINDOW,
            "smallestDetectable": None
            if self.smallest_detectable is None
            else r4(self.smallest_detectable),
        }


def drift(current_passed: int, current_n: int, prior_passed: int, prior_n: int) -> DriftComparison:
    """Compare the current window's pass rate with the prior window's."""
    enough = current_n >= MINIMUM_PER_WINDOW and prior_n >= MINIMUM_PER_WINDOW
    diff = (
        newcombe_interval(current_passed, current_n, prior_passed, prior_n, 0.95)
        if enough
        else None
    )
    detectable = None
    if enough and diff is not None and not diff.excludes_zero():
        detectable = smallest_detectable(current_n, prior_n, two_sided=True)
    return DriftComparison(
        current_n, current_passed, prior_n, prior_passed, diff, enough, detectable
    )
