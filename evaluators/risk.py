"""The risk estimate of SPEC §10.3: per-class PPV / residual miss, noisy-OR.

Detector accuracy comes from the published proof figures with Jeffreys
half-counts. The credible interval uses seeded Beta draws; draws are cached
per detector and results per (detectors, fired marks, prior), so the cost is
paid once per combination rather than on every evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from evaluators.proof import figures
from evaluators.stats import miss_rate, ppv, seeded_rng

# The compiled interval arithmetic (evaluators/_riskkernel.c); absent when the
# package was installed without a C compiler.
try:
    from evaluators import _riskkernel
except ImportError:  # pragma: no cover - exercised by the fallback test
    _riskkernel = None  # type: ignore[assignment]

DRAWS = 2000
# The sorted draws read for the 95 % interval.
LO_INDEX, HI_INDEX = int(0.025 * DRAWS), int(0.975 * DRAWS) - 1


@dataclass(frozen=True, slots=True)
class Detector:
    name: str
    cls: str
    fired: bool


@dataclass(frozen=True, slots=True)
class Risk:
    p_bad: float
    lo: float
    hi: float
    by_class: tuple[tuple[str, float], ...]
    pi_class: float


def class_prior(prior: float, mode: str, k: int) -> float:
    if mode == "per-class" or k <= 1:
        return prior
    return 1 - (1 - prior) ** (1 / k)


@lru_cache(maxsize=64)
def _draws(rule: str, version: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    c = figures.counts(rule)
    assert c is not None
    rng = seeded_rng(f"{version}|{rule}")
    s = tuple(rng.betavariate(c.tp + 0.5, c.fn + 0.5) for _ in range(DRAWS))
    sp = tuple(rng.betavariate(c.tn + 0.5, c.fp + 0.5) for _ in range(DRAWS))
    return s, sp


def _point(
    dets: tuple[Detector, ...], rates: dict[str, tuple[float, float]], pi: float
) -> tuple[float, dict[str, float]]:
    by: dict[str, list[Detector]] = {}
    for d in dets:
        by.setdefault(d.cls, []).append(d)
    q: dict[str, float] = {}
    for cls, ds in by.items():
        fired = [d for d in ds if d.fired]
        if fired:
            q[cls] = max(ppv(*rates[d.name], pi) for d in fired)
        else:
            miss = pi
            clean = 1 - pi
            for d in ds:
                s, sp = rates[d.name]
                miss *= 1 - s
                clean *= sp
            q[cls] = miss / (miss + clean) if miss + clean > 0 else 0.0
    keep = 1.0
    for v in q.values():
        keep *= 1 - v
    return 1 - keep, q


@lru_cache(maxsize=512)
def _group_samples(
    fired: tuple[str, ...], members: tuple[str, ...], pi: float, version: str
) -> tuple[float, ...]:
    """One class's per-draw value (``q[cls]`` of :func:`_point` under draw
    ``i``), for every draw. A class's value depends only on its detectors,
    their fired marks and the prior, so many combinations share it."""
    if fired:
        cols = [_draws(n, version) for n in fired]
        if len(cols) == 1:
            s0, sp0 = cols[0]
            return tuple(ppv(a, b, pi) for a, b in zip(s0, sp0, strict=True))
        return tuple(max(ppv(c[0][i], c[1][i], pi) for c in cols) for i in range(DRAWS))
    miss = [pi] * DRAWS
    clean = [1 - pi] * DRAWS
    for n in members:
        s, sp = _draws(n, version)
        miss = [m * (1 - x) for m, x in zip(miss, s, strict=True)]
        clean = [c * y for c, y in zip(clean, sp, strict=True)]
    return tuple(m / (m + c) if m + c > 0 else 0.0 for m, c in zip(miss, clean, strict=True))


def _class_samples(dets: tuple[Detector, ...], version: str, pi: float) -> list[tuple[float, ...]]:
    """Each class's per-draw values (``_group_samples``), in the order the
    classes first appear in ``dets``."""
    by: dict[str, list[Detector]] = {}
    for d in dets:
        by.setdefault(d.cls, []).append(d)
    out = []
    for ds in by.values():
        fired = tuple(d.name for d in ds if d.fired)
        members = tuple(d.name for d in ds)
        out.append(_group_samples(fired, members if not fired else (), pi, version))
    return out


def _sampled_points(dets: tuple[Detector, ...], version: str, pi: float) -> list[float]:
    """``_point(dets, rates_i, pi)[0]`` for every draw ``i``: the same
    arithmetic in the same order, with each class's values computed once per
    (class detectors, fired marks, prior) and shared across combinations."""
    keep = [1.0] * DRAWS
    for vals in _class_samples(dets, version, pi):
        keep = [k * (1 - v) for k, v in zip(keep, vals, strict=True)]
    return [1 - k for k in keep]


def _sampled_interval(dets: tuple[Detector, ...], version: str, pi: float) -> tuple[float, float]:
    """The sorted ``_sampled_points`` at ``LO_INDEX`` and ``HI_INDEX``; in C
    when the kernel is built (the same doubles: ``_riskkernel.c``)."""
    if _riskkernel is not None:
        return _riskkernel.noisy_or_interval(_class_samples(dets, version, pi), LO_INDEX, HI_INDEX)
    samples = _sampled_points(dets, version, pi)
    samples.sort()
    return samples[LO_INDEX], samples[HI_INDEX]


@lru_cache(maxsize=4096)
def estimate(dets: tuple[Detector, ...], prior: float, mode: str) -> Risk | None:
    dets = tuple(d for d in dets if figures.counts(d.name) is not None)
    if not dets:
        return None
    k = len({d.cls for d in dets})
    pi = class_prior(prior, mode, k)
    rates = {d.name: figures.counts(d.name).rates for d in dets}  # type: ignore[union-attr]
    p, q = _point(dets, rates, pi)
    version = figures.corpus_version()
    lo_s, hi_s = _sampled_interval(dets, version, pi)
    lo = min(lo_s, p)
    hi = max(hi_s, p)
    return Risk(p, lo, hi, tuple(sorted(q.items())), pi)


def _ppv_quantiles(
    sd: tuple[float, ...], spd: tuple[float, ...], pi: float
) -> tuple[float, float, float, float]:
    """:func:`_ppv_quantiles_py`, in C when the kernel is built (the same
    doubles: ``_riskkernel.c``)."""
    if _riskkernel is not None:
        got = _riskkernel.ppv_interval(sd, spd, pi, LO_INDEX, HI_INDEX)
        if got is not None:
            return got
    return _ppv_quantiles_py(sd, spd, pi)


def _ppv_quantiles_py(
    sd: tuple[float, ...], spd: tuple[float, ...], pi: float
) -> tuple[float, float, float, float]:
    """The per-draw ppv and miss rate at prior ``pi``, each sorted, at
    ``LO_INDEX`` and ``HI_INDEX``: (ppv lo, ppv hi, miss lo, miss hi)."""
    pv = sorted(ppv(a, b, pi) for a, b in zip(sd, spd, strict=True))
    mr = sorted(miss_rate(a, b, pi) for a, b in zip(sd, spd, strict=True))
    return pv[LO_INDEX], pv[HI_INDEX], mr[LO_INDEX], mr[HI_INDEX]


@lru_cache(maxsize=1024)
def rule_ppv_interval(
    rule: str, pi: float
) -> tuple[float, float, float, float, float, float] | None:
    """(ppv, lo, hi, missRate, lo, hi) for one detector at prior ``pi``."""
    c = figures.counts(rule)
    if c is None:
        return None
    s, sp = c.rates
    sd, spd = _draws(rule, figures.corpus_version())
    pv_lo, pv_hi, mr_lo, mr_hi = _ppv_quantiles(sd, spd, pi)
    p0, m0 = ppv(s, sp, pi), miss_rate(s, sp, pi)
    return (p0, min(pv_lo, p0), max(pv_hi, p0), m0, min(mr_lo, m0), max(mr_hi, m0))
