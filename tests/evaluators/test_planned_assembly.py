"""The planned assembly builds exactly what the reference assembly builds.

With only built-in rules, ``evaluate()`` keeps the first result of each plan
key (config, eval type, inputs present, the outcomes' skip/pass/ask marks,
skip classes, lacked needs, default-threshold use, and what they saw when
evidence is required) as a skeleton, and fills a copy of it for the next
evaluation of the key (``engine._assemble_planned``). These compare that
result with the reference ``_assemble`` of the same outcomes, as JSON without
sorted keys (key order counts), when the plan was made from *other* outcomes
of the same key: scores, messages, skip reasons, evidence and values differ
freely. The compiled helpers (``_resultkernel``'s ``copy_json``,
``refill``, ``weighted``, ``means``, ``signature``) are checked against their Python
references, and the whole path with the kernel monkeypatched away.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evaluators import engine
from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest
from evaluators.rules.base import MAX_EVIDENCE_ITEMS, Outcome, RuleSpec
from evaluators.rules.registry import RULES
from tests.support.texts import bench_cases

CONFIGS = [
    EngineConfig(),
    EngineConfig(required_evidence=("input", "tool_calls")),
    EngineConfig(defaults_gate=True, prior=0.2),
    EngineConfig(
        critical_rules=("no_pii", "ask_coverage", "max_steps"), on_critical_skipped="fail"
    ),
    EngineConfig(non_critical_rules=("no_injection_patterns",), on_critical_skipped="pass"),
    EngineConfig(prior_mode="per-class", false_pass_cost=4.0, rule_thresholds={"max_steps": 3}),
]
EVAL_TYPES = [None, "all", "safety", "relevance", "completeness", "cost", "custom"]


def _cases() -> list[EvaluationRequest]:
    out = list(bench_cases(200)[:24])
    out += [dataclasses.replace(c, eval_type=t) for c in out[:6] for t in EVAL_TYPES]
    out.append(dataclasses.replace(out[0], custom_config={"max_steps": 2}, judged_at=None))
    return out


CASES = _cases()
_RUN = engine._run_builtin  # the real one: the fixture below replaces it


def _real_outcomes(req: EvaluationRequest, cfg: EngineConfig) -> dict[str, Outcome]:
    ctx = EvalContext(req, cfg)
    return {s.name: _RUN(s, ctx) for s in RULES}


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Outcome]]:
    """Rules replay the outcomes put in the yielded dict."""
    current: dict[str, Outcome] = {}

    def run(spec: RuleSpec, ctx: EvalContext) -> Outcome:
        return current[spec.name]

    monkeypatch.setattr(engine, "_run_builtin", run)
    monkeypatch.setattr(engine, "_PLANS", {})
    yield current


def _reference(req: EvaluationRequest, cfg: EngineConfig, mp: pytest.MonkeyPatch) -> str:
    with mp.context() as m:
        m.setattr(engine, "_plan_key", lambda *a: None)
        return json.dumps(engine.evaluate(req, cfg))


def _texts() -> st.SearchStrategy[str]:
    return st.text(max_size=12) | st.sampled_from(
        ["not supplied: input", "not supplied", "skipped", "", "ß\U0001f600"]
    )


@st.composite
def _perturbed(draw: st.DrawFn, o: Outcome) -> Outcome:
    """``o`` with every field the plan key leaves out drawn afresh."""
    ev = list(o.evidence)
    if draw(st.booleans()):
        ev = [{**e, "label": draw(_texts())} if isinstance(e, dict) else e for e in ev] + draw(
            st.lists(st.fixed_dictionaries({"type": st.just("span")}), max_size=22)
        )
    return dataclasses.replace(
        o,
        score=draw(st.floats(0, 1) | st.sampled_from([0, 1, 0.5, 1.0, 0.33333333333333])),
        message=draw(_texts()),
        skip_reason=draw(st.none() | _texts()) if o.skipped else o.skip_reason,
        evidence=ev,
        value=draw(st.none() | st.just({"n": draw(st.integers())})),
        budget_exceeded=draw(st.booleans()),
        config_invalid=draw(st.booleans()),
        notes=[draw(_texts())],
    )


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_a_plan_made_from_other_outcomes_fills_the_reference_result(
    replay: dict[str, Outcome], data: st.DataObject
) -> None:
    mp = pytest.MonkeyPatch()
    try:
        req = data.draw(st.sampled_from(CASES))
        cfg = data.draw(st.sampled_from(CONFIGS))
        base = _real_outcomes(req, cfg)
        if data.draw(st.booleans()):  # sometimes another shape: flip some marks
            for name in data.draw(st.lists(st.sampled_from(sorted(base)), max_size=4)):
                o = base[name]
                base[name] = dataclasses.replace(
                    o,
                    skipped=data.draw(st.booleans()),
                    passed=data.draw(st.booleans()),
                    asked=data.draw(st.booleans()),
                    skip_class=data.draw(
                        st.sampled_from([None, "not_applicable", "defeated", "config_invalid"])
                    ),
                    lacked=data.draw(st.sampled_from([(), ("input",), ("tool_calls", "cost")])),
                    saw=data.draw(st.sampled_from([(), ("input",), ("output", "tool_calls")])),
                )
        first = {n: data.draw(_perturbed(o)) for n, o in base.items()}
        second = {n: data.draw(_perturbed(o)) for n, o in base.items()}
        replay.clear()
        replay.update(first)
        assert json.dumps(engine.evaluate(req, cfg)) == _reference(req, cfg, mp)
        replay.clear()
        replay.update(second)
        planned = engine.evaluate(req, cfg)  # from the plan the first one made
        assert json.dumps(planned) == _reference(req, cfg, mp)
        again = engine.evaluate(req, cfg)
        assert again == planned
        _no_shared_containers(planned, again)
    finally:
        mp.undo()


def _containers(v: Any, out: list[Any]) -> list[Any]:
    if isinstance(v, dict):
        out.append(v)
        for x in v.values():
            _containers(x, out)
    elif isinstance(v, list):
        out.append(v)
        for x in v:
            _containers(x, out)
    return out


def _no_shared_containers(a: dict[str, Any], b: dict[str, Any]) -> None:
    """Two results own their dicts and lists (evidence items, values and
    per-rule threshold values are the outcomes' and the config's own, as in
    the reference, and are left out)."""

    def mine(r: dict[str, Any], keep: list[Any]) -> set[int]:
        # the stand-ins made here stay alive in ``keep``: no id is reused
        r = {
            **r,
            "rule_results": [{**d, "evidence": None, "value": None} for d in r["rule_results"]],
        }
        r["provenance"] = {**r["provenance"], "thresholds": None}
        keep.append(r)
        return {id(c) for c in _containers(r, [])}

    keep: list[Any] = []
    assert not mine(a, keep) & mine(b, keep)


def test_bench_cases_planned_equal_the_reference() -> None:
    mp = pytest.MonkeyPatch()
    try:
        for cfg in CONFIGS:
            for req in CASES:
                for _ in range(2):  # the second from the plan
                    assert json.dumps(engine.evaluate(req, cfg)) == _reference(req, cfg, mp)
    finally:
        mp.undo()


def test_the_planned_path_falls_back_to_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cases = CASES[:30]
    want = [json.dumps(engine.evaluate(c)) for c in cases]
    monkeypatch.setattr(engine, "_resultkernel", None)
    monkeypatch.setattr(engine, "_ROWS", {})
    monkeypatch.setattr(engine, "_PLANS", {})
    for _ in range(2):
        assert [json.dumps(engine.evaluate(c)) for c in cases] == want


def test_a_plan_is_used_and_renewed_with_the_figures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "_PLANS", {})
    req = CASES[0]
    engine.evaluate(req)
    assert len(engine._PLANS) == 1
    ((key, plan),) = engine._PLANS.items()
    # a plan made again replaces the stored one: identity tells whether it was
    # (compiled, engine's call of _make_plan is bound natively and cannot be spied on)
    engine.evaluate(req)
    assert list(engine._PLANS.values()) == [plan] and engine._PLANS[key] is plan  # planned
    monkeypatch.setattr(plan, "source", object())  # as after ``figures.reload``
    engine.evaluate(req)
    assert len(engine._PLANS) == 1 and engine._PLANS[key] is not plan


def test_an_unhashable_outcome_part_takes_the_reference(replay: dict[str, Outcome]) -> None:
    req = CASES[0]
    outs = _real_outcomes(req, EngineConfig())
    name = next(n for n, o in outs.items() if o.skipped)
    outs[name] = dataclasses.replace(outs[name], lacked=["input"])  # type: ignore[arg-type]
    replay.update(outs)
    mp = pytest.MonkeyPatch()
    try:
        for _ in range(2):
            assert json.dumps(engine.evaluate(req)) == _reference(req, EngineConfig(), mp)
    finally:
        mp.undo()
    assert not engine._PLANS


# -- the compiled helpers ------------------------------------------------------

kernel = pytest.importorskip("evaluators._resultkernel")

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(st.text(max_size=3), kids, max_size=4)
        | st.tuples(kids)
    ),
    max_leaves=30,
)


@given(_json)
def test_copy_json_equals_the_reference(tree: Any) -> None:
    got, want = kernel.copy_json(tree), engine._copy_json_py(tree)
    assert repr(got) == repr(want)
    a = {id(c) for c in _containers(got, [])}
    assert not a & {id(c) for c in _containers(tree, [])}


_evidence = st.lists(
    st.dictionaries(
        st.sampled_from(["type", "thresholdSource", "x"]),
        st.sampled_from(["count", "default", "rule", None, 1]),
        max_size=3,
    ),
    max_size=4,
)
_outcome = st.builds(
    Outcome,
    passed=st.booleans(),
    score=st.floats(0, 1) | st.integers(0, 1),
    message=st.text(max_size=5),
    evidence=_evidence,
    skipped=st.booleans(),
    skip_class=st.sampled_from([None, "not_applicable", "defeated"]),
    skip_reason=st.none() | st.text(max_size=5),
    saw=st.sampled_from([(), ("input",)]),
    value=st.none() | st.just({"x": 1}),
    budget_exceeded=st.booleans(),
    config_invalid=st.booleans(),
    lacked=st.sampled_from([(), ("input",), ("tool_calls", "cost")]),
    asked=st.booleans(),
)


@given(st.lists(_outcome, max_size=8), st.data(), st.booleans())
def test_signature_equals_the_reference(
    outs: list[Outcome], data: st.DataObject, want_saw: bool
) -> None:
    udt = tuple(data.draw(st.booleans()) for _ in outs)
    assert kernel.signature(outs, udt, want_saw) == engine._signature_py(outs, udt, want_saw)


def test_signature_asks_get_of_what_is_not_a_dict() -> None:
    class Ev(dict[str, str]):
        def get(self, key: str, default: Any = None) -> Any:
            return {"type": "count", "thresholdSource": "default"}.get(key)

    o = Outcome(True, 1.0, "ok", [Ev()])
    assert kernel.signature([o], (True,), False) == engine._signature_py([o], (True,), False)
    assert kernel.signature([o], (True,), False) == (2 | 8,)
    with pytest.raises(AttributeError):
        kernel.signature([Outcome(True, 1.0, "ok", [1])], (True,), False)  # type: ignore[list-item]
    with pytest.raises(TypeError):
        kernel.signature([o], (), False)


@given(st.lists(_outcome, min_size=1, max_size=8), st.data())
def test_weighted_equals_the_reference(outs: list[Outcome], data: st.DataObject) -> None:
    idx = tuple(data.draw(st.lists(st.integers(0, len(outs) - 1), min_size=1, max_size=8)))
    ws = tuple(data.draw(st.sampled_from([1.0, 2.0, 0.5, 1, 3])) for _ in idx)
    wsum: float = 0
    for w in ws:
        wsum += w
    got, want = kernel.weighted(outs, idx, ws, wsum), engine._weighted_py(outs, idx, ws, wsum)
    assert type(got) is type(want) and got == want


@given(st.lists(_outcome, min_size=1, max_size=8), st.data())
def test_means_equal_the_reference(outs: list[Outcome], data: st.DataObject) -> None:
    groups = []
    for _ in range(data.draw(st.integers(0, 5))):
        idx = tuple(data.draw(st.lists(st.integers(0, len(outs) - 1), min_size=1, max_size=8)))
        ws = tuple(data.draw(st.sampled_from([1.0, 2.0, 0.5, 1, 3])) for _ in idx)
        wsum: float = 0
        for w in ws:
            wsum += w
        groups.append((idx, ws, wsum))
    got, want = kernel.means(outs, tuple(groups)), engine._means_py(outs, tuple(groups))
    assert [type(x) for x in got] == [type(x) for x in want] and got == want
    with pytest.raises(TypeError):
        kernel.means(outs, ((),))


@given(st.lists(_outcome, max_size=6), st.data())
def test_refill_equals_the_reference(outs: list[Outcome], data: st.DataObject) -> None:
    def rows() -> list[dict[str, Any]]:
        out = []
        for _ in outs:
            d: dict[str, Any] = {"rule": "r", "skipped": None, "score": None, "message": None}
            d |= {"saw": None, "evidence": None, "uncertainty": {"basis": "policy"}}
            if data.draw(st.booleans()):
                d["skipReason"] = None
            if data.draw(st.booleans()):
                d["value"] = None
            out.append(d)
        return out

    got = rows()
    want = [dict(d) for d in got]
    assert kernel.refill(got, outs, MAX_EVIDENCE_ITEMS) is None
    engine._refill_py(want, outs, MAX_EVIDENCE_ITEMS)
    assert json.dumps(got) == json.dumps(want)


def test_refill_refuses_mismatched_arguments() -> None:
    o = Outcome(True, 1.0, "ok", [])
    with pytest.raises(ValueError):
        kernel.refill([{}], [], 20)
    with pytest.raises(TypeError):
        kernel.refill([[]], [o], 20)  # type: ignore[list-item]
    with pytest.raises(TypeError):
        kernel.refill((), [], 20)  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        kernel.refill([{}], [object()], 20)


def test_helpers_keep_references_balanced() -> None:
    import sys

    o = Outcome(False, 0.5, "m", [{"type": "count", "thresholdSource": "default"}], asked=True)
    before = sys.getrefcount(o), sys.getrefcount(o.message)
    for _ in range(1000):
        kernel.signature([o], (True,), True)
        kernel.refill([{"skipReason": None, "value": None}], [o], 20)
        kernel.weighted([o], (0,), (1.0,), 1.0)
        kernel.copy_json({"a": [o.message, {"b": o.message}]})
    assert (sys.getrefcount(o), sys.getrefcount(o.message)) == before


def test_outcome_fields_are_read_as_getattr_reads_them() -> None:
    """The kernel reads an Outcome's slots directly while its type is
    unchanged; a subclass with a property, an empty slot and a modified type
    all take the attribute read."""

    class Odd(Outcome):
        __slots__ = ()

        @property  # type: ignore[misc]
        def score(self) -> float:  # a property over the slot
            return 0.25

    o = Outcome(True, 0.5, "m", [])
    odd = Odd.__new__(Odd)
    Outcome.score.__set__(odd, 0.5)  # type: ignore[attr-defined]  # the slot under the property
    assert kernel.weighted([o, odd], (0, 1), (1.0, 1.0), 2.0) == (0.5 + 0.25) / 2.0
    assert kernel.weighted([odd], (0,), (1.0,), 1.0) == 0.25
    empty = Outcome.__new__(Outcome)
    with pytest.raises(AttributeError):
        kernel.weighted([empty], (0,), (1.0,), 1.0)
    assert kernel.weighted([o], (0,), (1.0,), 1.0) == 0.5  # and back to the fast read
