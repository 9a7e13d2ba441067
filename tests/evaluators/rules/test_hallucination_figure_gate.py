"""Skipping the output's figures changes nothing.

``signals`` scans and grounds the output's figures only when
``_figures_matter`` says a signal could read them (a twin table of the
material, a unit it measures in, or an attribution cue with source
material). The signals must equal those computed with the gate forced
open, on texts drawn from figures, units, years, estimates, attribution
cues and material layouts, and on the bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_cases

pieces = st.sampled_from(
    [
        "12,480", "14,280", "214", "2,140", "0.31", "0.031", "2024", "1999", "3", "7", "30",
        "90", "$50", "2.9M", "18%", "3.2 %", " days", " ms", " seconds", " hours", " rows",
        " users", " nodes", " km/h", "about ", "roughly ", "per the report, ",
        "according to the doc ", "the report says ", "verbatim ", " the ", "User asked: ",
        "\n", "line\n", ", ", ". ", "é", "İ", "“", "Ver", "x",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=18).map("".join)


def _open_gate(out: str, material: str, extra: list[str]) -> list[hg.Signal]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hg, "_figures_matter", lambda o, m: True)
        return hg.signals(out, material, extra)


@given(texts, texts, st.lists(texts, max_size=2))
@settings(max_examples=600, deadline=None)
def test_the_figure_gate_changes_nothing(out: str, material: str, extra: list[str]) -> None:
    assert hg.signals(out, material, extra) == _open_gate(out, material, extra)


def test_the_figure_gate_changes_nothing_on_the_bench_cases() -> None:
    for case in bench_cases():
        extra = [case.expected or ""] + [str(c.output) for c in case.tool_calls or ()]
        got = hg.signals(case.output, case.input or "", extra)
        assert got == _open_gate(case.output, case.input or "", extra)


def test_a_near_miss_figure_is_still_flagged() -> None:
    material = "Q3 report\nRevenue: 12,480 units\nCost: 3 teams\n"
    found = hg.signals("Revenue was 14,280 units.", material)
    assert [s[0] for s in found] == ["figure_not_in_material"]
