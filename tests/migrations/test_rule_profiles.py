"""Migration 0003 splits stored rule results from their profiles, and joins them back."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select, text

from evaluators.engine import evaluate
from evaluators.request import EvaluationRequest
from storage import migrate
from storage.evaluations import evaluations, evaluations_to_api
from tests.migrations.revisions import move_to

T0 = datetime(2026, 1, 1, 12, 0, 0)


def _insert_whole(engine: Engine, evaluation_id: str, rule_results: Any) -> None:
    """An evaluation as revision 0002 stored it: every result whole."""
    with engine.begin() as conn:
        conn.execute(
            evaluations.insert().values(
                id=evaluation_id,
                tenant_id="t",
                eval_type="all",
                kind="rules",
                passed=True,
                state="pass",
                rules_evaluated=1,
                rules_skipped=0,
                insufficient_data=False,
                rule_results=rule_results,
                created_at=T0,
            )
        )


def _raw(engine: Engine) -> dict[str, Any]:
    with engine.connect() as conn:
        rows = conn.execute(select(evaluations.c.id, evaluations.c.rule_results))
        return {r.id: r.rule_results for r in rows}


def _api(engine: Engine) -> dict[str, str]:
    with engine.connect() as conn:
        rows = list(conn.execute(select(evaluations)))
        return {e["id"]: json.dumps(e["rule_results"]) for e in evaluations_to_api(conn, rows)}


def test_upgrade_splits_results_and_downgrade_restores_them(engine: Engine) -> None:
    engine_results = evaluate(EvaluationRequest(output="Paris is in France.", input="Where?"))
    odd = [{"rule": "whole", 1: "int key"}, "not a dict", {"rule": "r", "ratio": 2**70}]
    move_to(engine, "0002", down=True)
    try:
        _insert_whole(engine, "eval_a", engine_results["rule_results"])
        _insert_whole(engine, "eval_b", engine_results["rule_results"])
        _insert_whole(engine, "eval_c", odd[:2])
        _insert_whole(engine, "eval_d", odd)
        _insert_whole(engine, "eval_e", None)
        before = _raw(engine)
        move_to(engine, "head", down=False)
        after = _raw(engine)
        assert set(after["eval_a"]) == {"profiled"}  # split
        assert after["eval_d"] == before["eval_d"]  # orjson cannot write it: kept whole
        assert after["eval_e"] is None
        assert _api(engine) == {k: json.dumps(v or []) for k, v in before.items()}
        with engine.connect() as conn:
            profiles = conn.execute(text("SELECT count(*) FROM rule_profiles")).scalar_one()
        # eval_a and eval_b share theirs; eval_c's first result has string keys once stored
        assert profiles == len(engine_results["rule_results"]) + 1
        move_to(engine, "0002", down=True)
        restored = _raw(engine)
        assert {k: json.dumps(v) for k, v in restored.items()} == {
            k: json.dumps(v) for k, v in before.items()
        }
    finally:
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM evaluations"))
        move_to(engine, "head", down=False)
    assert migrate.current_revision(engine) == migrate.head_revision()
