"""The compiled risk interval equals its Python reference.

``evaluators/_riskkernel.c`` computes the per-draw noisy-OR of the classes'
samples and reads the sorted draws at the interval's two indices;
``risk._sampled_points`` and a sort are the reference. Compared as exact
floats: the same operations in the same order must give the same doubles.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import risk
from evaluators.proof import figures
from evaluators.risk import HI_INDEX, LO_INDEX, Detector
from evaluators.rules.registry import RULES

kernel = pytest.importorskip("evaluators._riskkernel")

# Every built-in detector or inference rule with published figures, as risk reads them.
_DETECTORS = [
    (s.name, s.classes[0])
    for s in RULES
    if s.kind in ("detection", "inference") and s.classes and figures.counts(s.name) is not None
]


def _reference(groups: list[tuple[float, ...]], lo: int, hi: int) -> tuple[float, float]:
    keep = [1.0] * len(groups[0])
    for vals in groups:
        keep = [k * (1 - v) for k, v in zip(keep, vals, strict=True)]
    samples = sorted(1 - k for k in keep)
    return samples[lo], samples[hi]


_unit = st.floats(min_value=0.0, max_value=1.0)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 40).flatmap(lambda d: st.lists(st.tuples(*[_unit] * d), min_size=1, max_size=6)),
    st.data(),
)
def test_interval_equals_the_reference_on_any_draws(
    groups: list[tuple[float, ...]], data: st.DataObject
) -> None:
    d = len(groups[0])
    lo = data.draw(st.integers(0, d - 1))
    hi = data.draw(st.integers(0, d - 1))
    assert kernel.noisy_or_interval(groups, lo, hi) == _reference(groups, lo, hi)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_DETECTORS), st.booleans()), min_size=1, unique_by=lambda x: x[0]
    ),
    st.sampled_from([0.5, 0.2, 0.05]),
)
def test_estimate_interval_equals_the_reference_on_real_detectors(
    picked: list[tuple[tuple[str, str], bool]], pi: float
) -> None:
    dets = tuple(sorted((Detector(n, c, f) for (n, c), f in picked), key=lambda d: (d.cls, d.name)))
    version = figures.corpus_version()
    samples = risk._sampled_points(dets, version, pi)
    samples.sort()
    assert risk._sampled_interval(dets, version, pi) == (samples[LO_INDEX], samples[HI_INDEX])


def test_estimate_is_the_same_without_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    dets = tuple(
        sorted(
            (Detector(n, c, i % 3 == 0) for i, (n, c) in enumerate(_DETECTORS)),
            key=lambda d: (d.cls, d.name),
        )
    )
    with_kernel = risk.estimate.__wrapped__(dets, 0.5, "per-output")
    monkeypatch.setattr(risk, "_riskkernel", None)
    assert risk.estimate.__wrapped__(dets, 0.5, "per-output") == with_kernel


def test_the_risk_layer_uses_the_kernel() -> None:
    assert risk._riskkernel is kernel


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        kernel.noisy_or_interval([], 0, 0)
    with pytest.raises(ValueError):
        kernel.noisy_or_interval([(0.1, 0.2), (0.3,)], 0, 0)
    with pytest.raises(IndexError):
        kernel.noisy_or_interval([(0.1, 0.2)], 0, 2)
    with pytest.raises(TypeError):
        kernel.noisy_or_interval([[0.1, 0.2]], 0, 1)
    with pytest.raises(TypeError):
        kernel.noisy_or_interval([(0.1, "x")], 0, 1)


# -- one detector's published interval (``risk.rule_ppv_interval``) ----------


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda d: st.tuples(st.tuples(*[_unit] * d), st.tuples(*[_unit] * d))
    ),
    st.floats(min_value=0.0, max_value=1.0),
    st.data(),
)
def test_ppv_quantiles_equal_the_reference_on_any_draws(
    draws: tuple[tuple[float, ...], tuple[float, ...]], pi: float, data: st.DataObject
) -> None:
    sd, spd = draws
    d = len(sd)
    lo = data.draw(st.integers(0, d - 1))
    hi = data.draw(st.integers(0, d - 1))
    pv = sorted(risk.ppv(a, b, pi) for a, b in zip(sd, spd, strict=True))
    mr = sorted(risk.miss_rate(a, b, pi) for a, b in zip(sd, spd, strict=True))
    assert kernel.ppv_interval(sd, spd, pi, lo, hi) == (pv[lo], pv[hi], mr[lo], mr[hi])


@pytest.mark.parametrize("pi", [0.5, 0.2, 0.05, 1 - (1 - 0.5) ** (1 / 3)])
def test_rule_intervals_are_the_same_without_the_kernel(
    pi: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_kernel = [risk.rule_ppv_interval.__wrapped__(n, pi) for n, _ in _DETECTORS]
    monkeypatch.setattr(risk, "_riskkernel", None)
    assert [risk.rule_ppv_interval.__wrapped__(n, pi) for n, _ in _DETECTORS] == with_kernel


def test_ppv_interval_leaves_other_shapes_to_the_reference() -> None:
    assert kernel.ppv_interval((0.1, 0.2), (0.3,), 0.5, 0, 0) is None  # lengths differ
    assert kernel.ppv_interval((0.1, 1), (0.3, 0.4), 0.5, 0, 1) is None  # an int draw
    assert kernel.ppv_interval([0.1], (0.3,), 0.5, 0, 0) is None  # a list
    assert kernel.ppv_interval((0.1,), (0.3,), 1, 0, 0) is None  # an int prior
    assert kernel.ppv_interval((0.1,), (0.3,), 0.5, 0, 1) is None  # index out of range
    assert kernel.ppv_interval((float("inf"),), (0.3,), 0.5, 0, 0) is None  # a NaN ratio
