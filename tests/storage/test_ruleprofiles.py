"""Rule results stored apart from their rules' profiles come back exactly."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, func, select, text

from evaluators.engine import evaluate
from evaluators.request import EvaluationRequest
from storage import jsontext, ruleprofiles
from storage.evaluations import evaluations, evaluations_to_api, store_evaluation

T0 = datetime(2026, 1, 1, 12, 0, 0)


def _stored(value: Any) -> Any:
    """What a JSON column gives back for ``value``."""
    return json.loads(jsontext.dumps(value))


def _jsonb(value: Any) -> Any:
    """What a JSONB column gives back: every object's keys in JSONB's order."""
    if isinstance(value, dict):
        ordered = sorted(value, key=ruleprofiles.jsonb_key_order)
        return {k: _jsonb(value[k]) for k in ordered}
    if isinstance(value, list):
        return [_jsonb(v) for v in value]
    return value


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text: key order matters, as it does in an API response."""
    return json.dumps(a) == json.dumps(b)


keys = st.sampled_from(sorted(ruleprofiles.STATIC_KEYS)) | st.text(max_size=6)
leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=6)
)
values = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
results = st.lists(
    st.dictionaries(keys, values, max_size=8)
    | st.dictionaries(st.integers(-2, 2), values, max_size=2)  # not string keys: kept whole
    | values,  # not a dict: kept whole
    max_size=6,
)


def _round_trip(value: list[Any], column: Any) -> Any:
    stored, profiles = ruleprofiles.split(value)
    stored = column(_stored(stored))
    bodies = {pid: column(_stored(body)) for pid, body in profiles.items()}
    jsonb = column is _jsonb
    return ruleprofiles.rebuild(
        stored, lambda pid: ruleprofiles.plan_of(bodies[pid], jsonb_order=jsonb)
    )


@given(results)
@settings(max_examples=300, deadline=None)
def test_split_results_rebuild_as_a_json_column_returned_them(value: list[Any]) -> None:
    assert _same(_round_trip(value, lambda v: v), _stored(value))


@given(results)
@settings(max_examples=300, deadline=None)
def test_split_results_rebuild_as_a_jsonb_column_returned_them(value: list[Any]) -> None:
    assert _same(_round_trip(value, _jsonb), _jsonb(_stored(value)))


def test_a_profile_holds_the_static_keys_and_entries_the_rest() -> None:
    result = {"rule": "r", "verdict": "pass", "category": "safety", "score": 1.0}
    stored, profiles = ruleprofiles.split([result])
    [(profile_id, body)] = profiles.items()
    assert json.loads(stored) == {"profiled": [[profile_id, "pass", 1.0]]}
    assert body == {"keys": list(result), "static": {"rule": "r", "category": "safety"}}
    other, _ = ruleprofiles.split([{**result, "category": "cost"}])
    assert json.loads(other)["profiled"][0][0] != profile_id  # another content, another profile


def test_a_list_orjson_cannot_write_is_stored_whole() -> None:
    value = [{"rule": "r", "value": 2**70}, {"rule": "s", "ratio": float("inf")}]
    assert ruleprofiles.split(value) == (value, {})


def _engine_result(output: str) -> dict[str, Any]:
    request = EvaluationRequest(output=output, input="What is the capital of France?")
    return evaluate(request)


def _as_column_returns(engine: Engine, value: Any) -> Any:
    """``value`` as this database's JSON column returns it when stored whole."""
    if engine.dialect.name != "postgresql":
        return _stored(value)
    with engine.connect() as conn:
        cast = text("SELECT CAST(:v AS jsonb)").bindparams(v=jsontext.dumps(value))
        raw = conn.execute(cast).scalar_one()
    return raw if not isinstance(raw, str) else json.loads(raw)


def test_api_rule_results_are_what_storing_them_whole_returned(engine: Engine) -> None:
    outputs = ["Paris is the capital of France.", "I think it is Lyon, call 555-0100."]
    stored_results = []
    with engine.begin() as conn:
        for output in outputs:
            result = _engine_result(output)
            stored_results.append(result["rule_results"])
            store_evaluation(conn, tenant_id="t", result=result, now=T0, trace_id=None)
    with engine.connect() as conn:
        rows = list(conn.execute(select(evaluations).order_by(evaluations.c.id)))
        api = evaluations_to_api(conn, rows)
        profiles = conn.execute(text("SELECT count(*) FROM rule_profiles")).scalar_one()
        results = conn.execute(select(func.count()).select_from(evaluations)).scalar_one()
    by_output = {json.dumps(_as_column_returns(engine, r)) for r in stored_results}
    assert {json.dumps(e["rule_results"]) for e in api} == by_output
    assert results == 2
    # one profile per rule and description: shared by both verdicts, not doubled
    assert profiles < sum(len(r) for r in stored_results)


def test_a_result_given_to_a_caller_does_not_change_the_cached_profile(engine: Engine) -> None:
    with engine.begin() as conn:
        result = _engine_result("Paris.")
        store_evaluation(conn, tenant_id="t", result=result, now=T0, trace_id=None)
    with engine.connect() as conn:
        rows = list(conn.execute(select(evaluations)))
        first = evaluations_to_api(conn, rows)
        first[0]["rule_results"][0]["classes"].append("changed")
        first[0]["rule_results"][0]["uncertainty"]["basis"] = "changed"
        again = evaluations_to_api(conn, rows)
    assert "changed" not in again[0]["rule_results"][0]["classes"]
    assert again[0]["rule_results"][0]["uncertainty"]["basis"] != "changed"
