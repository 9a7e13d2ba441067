"""The compiled result builder equals its Python reference.

``evaluators/_resultkernel.c`` builds each built-in rule's result dict
(``fill``) and rounds for publication (``round4``); ``engine._result_dict_py``
and ``round(x, 4)`` are the references. Compared as JSON without sorted keys,
so key order counts, and by type and sign for the rounding.
"""

from __future__ import annotations

import json
import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators import engine, stats
from evaluators.config import EngineConfig
from evaluators.judged import Judged
from evaluators.rules.base import MAX_EVIDENCE_ITEMS, Outcome
from evaluators.rules.registry import RULES
from tests.evaluators.test_assembly_equivalence import _judged
from tests.support.judged import builtin_judged
from tests.support.texts import bench_cases

kernel = pytest.importorskip("evaluators._resultkernel")


def _same_round(x: float) -> None:
    got, want = kernel.round4(x), round(x, 4)
    assert type(got) is type(want)
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(got)
        return
    assert got == want
    assert math.copysign(1.0, got) == math.copysign(1.0, want)


@settings(max_examples=3000, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_round4_equals_round_on_any_float(x: float) -> None:
    _same_round(x)


@settings(max_examples=3000, deadline=None)
@given(st.integers(-(10**9), 10**9), st.integers(-3, 3))
def test_round4_equals_round_next_to_half_way_points(k: int, ulps: int) -> None:
    # k/10**4 + 0.00005 is a half-way point of the fourth decimal; the doubles
    # a few ulps either side of it are where a shortcut could go wrong.
    x = (k + 0.5) / 1e4
    bits = struct.unpack("<q", struct.pack("<d", x))[0] + ulps
    _same_round(struct.unpack("<d", struct.pack("<q", bits))[0])


@given(st.integers() | st.booleans())
def test_round4_equals_round_on_ints(x: int) -> None:
    _same_round(x)


def test_r4_is_the_kernel_when_built() -> None:
    assert stats.r4 is kernel.round4
    assert stats.r4_py(0.12344999) == round(0.12344999, 4)


@settings(max_examples=500, deadline=None)
@given(st.lists(_judged(), min_size=1, max_size=8), st.sampled_from([0.5, 0.2, 0.37]))
def test_fill_equals_the_reference(js: list[Judged], pi: float) -> None:
    cfg = EngineConfig()
    for j in js:
        if j.origin != "builtin":
            continue
        got = kernel.fill(
            engine._builtin_template(j),
            j,
            engine._uncertainty_template(j, cfg, pi),
            MAX_EVIDENCE_ITEMS,
        )
        assert json.dumps(got) == json.dumps(engine._result_dict_py(j, cfg, pi))


def test_fill_copies_every_dict_of_its_templates() -> None:
    spec = next(s for s in RULES if s.kind == "detection")
    j = builtin_judged(spec, Outcome(False, 0.25, "fired", evidence=[{"type": "count"}]))
    cfg = EngineConfig()
    tmpl = engine._builtin_template(j)
    unc = engine._uncertainty_template(j, cfg, 0.5)
    before = json.dumps([tmpl, unc])
    d = kernel.fill(tmpl, j, unc, MAX_EVIDENCE_ITEMS)
    d["rule"] = "changed"
    for v in d["uncertainty"].values():
        if isinstance(v, dict):
            v["x"] = 1
    d["uncertainty"]["basis"] = "changed"
    assert json.dumps([tmpl, unc]) == before


def test_fill_refuses_wrong_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.fill({}, None, {})  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        kernel.fill([], None, {}, 20)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        kernel.fill({}, object(), {}, 20)


def test_the_engine_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = bench_cases(200)[:40]
    with_kernel = [json.dumps(engine.evaluate(c)) for c in cases]
    monkeypatch.setattr(engine, "_resultkernel", None)
    monkeypatch.setattr(engine, "_ROWS", {})  # rows made again, with Judged's own __init__
    assert [json.dumps(engine.evaluate(c)) for c in cases] == with_kernel


# -- with_outcome: a Judged copied from a prototype -------------------------------


def _fields(j: Judged) -> list[object]:
    return [getattr(j, f) for f in Judged.__slots__]


@given(_judged())
def test_with_outcome_equals_building_the_judged(j: Judged) -> None:
    other = Outcome(False, 0.25, "other", [{"type": "count"}], saw=("output",))
    got = kernel.with_outcome(j, other)
    want = Judged(*_fields(j)[:12], other, severity=j.severity, rule_id=j.rule_id, role=j.role)
    assert type(got) is Judged and got is not j
    assert got == want
    # the very objects, not equal copies; and the prototype keeps its outcome
    assert all(a is b for a, b in zip(_fields(got), _fields(want), strict=True))
    assert j.outcome is not other and got.outcome is other


def test_with_outcome_keeps_references_balanced() -> None:
    import sys

    proto = builtin_judged(RULES[0], Outcome(True, 1.0, "ok", []))
    out = Outcome(True, 1.0, "ok", [])
    before = sys.getrefcount(out), sys.getrefcount(proto.name)
    made = [kernel.with_outcome(proto, out) for _ in range(1000)]
    assert sys.getrefcount(out) == before[0] + 1000
    del made
    assert (sys.getrefcount(out), sys.getrefcount(proto.name)) == before


def test_with_outcome_refuses_what_is_not_a_slotted_judged() -> None:
    class Plain:
        outcome = None

    with pytest.raises(TypeError):
        kernel.with_outcome(Plain(), None)
    with pytest.raises(TypeError):
        kernel.with_outcome(RULES[0], None)  # slotted, but no outcome slot
    with pytest.raises(TypeError):
        kernel.with_outcome(builtin_judged(RULES[0], Outcome(True, 1.0, "ok", [])))  # type: ignore[call-arg]
