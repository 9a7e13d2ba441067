"""The workers' cheaper derivation paths give the same fields as the full ones."""

from __future__ import annotations

import dataclasses

import pytest

from evaluators.model import ToolCall
from receivers.mapping import derive_trace, group_by_trace
from storage import codec
from tests.receivers.fixtures_support import all_scenarios, load_spans, needs_fixtures


@needs_fixtures
@pytest.mark.parametrize(("directory", "scenario"), all_scenarios())
def test_derivation_without_span_models_differs_only_in_spans(
    directory: str, scenario: str
) -> None:
    for group in group_by_trace(load_spans(directory, scenario, "pb")).values():
        full = derive_trace(group)
        lean = derive_trace(group, model_spans=False)
        assert lean.spans == ()
        assert dataclasses.replace(full, spans=()) == lean
        assert codec.agent_fields(full, now=None) == codec.agent_fields(lean, now=None)


def test_tool_call_json_is_asdict_without_nones() -> None:
    calls = [
        ToolCall("lookup", {"q": [1, {"deep": None}]}, {"rows": []}, 1.5, None, 0.0, None, "c1"),
        ToolCall("bare"),
    ]
    for call in calls:
        expected = {k: v for k, v in dataclasses.asdict(call).items() if v is not None}
        assert codec.tool_call_to_json(call) == expected
