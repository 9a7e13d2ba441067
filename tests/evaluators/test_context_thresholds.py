"""``EvalContext.threshold``: answers kept per config equal the ones worked out afresh."""

from __future__ import annotations

from typing import Any

import pytest

from evaluators.config import THRESHOLD_ALIASES, THRESHOLDS, EngineConfig
from evaluators.context import EvalContext
from evaluators.request import EvaluationRequest

KEYS = [*THRESHOLDS, *THRESHOLD_ALIASES]
CONFIGS = [
    EngineConfig(),
    EngineConfig(rule_thresholds={"min_length": 80, "max_steps": 7, "topic_consistency": 0.33}),
    EngineConfig(rule_thresholds={"keyword_overlap": 0.5}, blocklist=("nope",)),
]


@pytest.mark.parametrize("key", KEYS)
def test_kept_threshold_equals_the_worked_out_one_across_configs(key: str) -> None:
    # alternate configs so a kept table must follow the config it came from
    for _ in range(2):
        for config in CONFIGS:
            ctx = EvalContext(EvaluationRequest(output="x"), config)
            fresh = ctx._threshold(key)
            assert ctx.threshold(key) == fresh
            assert ctx.threshold(key) == fresh


def test_call_overrides_beat_the_kept_config_answer() -> None:
    config = EngineConfig(rule_thresholds={"max_steps": 7})
    plain = EvalContext(EvaluationRequest(output="x"), config)
    assert plain.threshold("max_steps") == (7, "config")
    call: dict[str, Any] = {"max_steps": 3}
    asked = EvalContext(EvaluationRequest(output="x", custom_config=call), config)
    assert asked.threshold("max_steps") == (3, "call")
    assert plain.threshold("max_steps") == (7, "config")
    default = EvalContext(EvaluationRequest(output="x"), EngineConfig())
    assert default.threshold("max_steps") == (THRESHOLDS["max_steps"].default, "default")
