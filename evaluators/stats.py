"""Small, pure statistics the engine and the proof harness share.

Everything here is deterministic: the proof figures are checked byte-for-byte
in CI and the verdict's risk interval must be identical on every machine, so
randomness only ever comes from :func:`seeded_rng` (FNV-1a of a stable key).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

Z95 = 1.959963984540054


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for k successes in n; ``None`` when n is 0."""
    if n <= 0:
        return None
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def fnv1a(text: str) -> int:
    """32-bit FNV-1a hash; the seed function named by SPEC §10.3/§12."""
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h


def seeded_rng(key: str) -> random.Random:
    """A PRNG whose stream depends only on ``key`` (same on every machine)."""
    return random.Random(fnv1a(key))


def jeffreys_rates(tp: int, fp: int, fn: int, tn: int) -> tuple[float, float]:
    """Sensitivity and specificity with Jeffreys half-counts (never exactly 1)."""
    s = (tp + 0.5) / (tp + fn + 1)
    sp = (tn + 0.5) / (tn + fp + 1)
    return s, sp


def ppv(s: float, sp: float, prior: float) -> float:
    """Probability a fire is a real violation at prevalence ``prior``."""
    num = s * prior
    den = num + (1 - sp) * (1 - prior)
    return num / den if den > 0 else 0.0


def miss_rate(s: float, sp: float, prior: float) -> float:
    """Probability a quiet rule hides a violation at prevalence ``prior``."""
    num = (1 - s) * prior
    den = num + sp * (1 - prior)
    return num / den if den > 0 else 0.0


def safe_div(a: float, b: float) -> float:
    return a / b if b else 0.0


def r4_py(x: float) -> float:
    """Round for publication; keeps JSON output stable and readable. The
    reference of the compiled ``round4``, which ``r4`` is when it is built."""
    return round(x, 4)


# The compiled rounding (evaluators/_resultkernel.c): the same values, without
# CPython's decimal conversion (~0.7 us a call) where it cannot matter.
try:
    from evaluators._resultkernel import round4 as _round4
except ImportError:  # pragma: no cover - exercised by the fallback test
    _round4 = None  # type: ignore[assignment]

r4: Callable[[float], float] = _round4 if _round4 is not None else r4_py
