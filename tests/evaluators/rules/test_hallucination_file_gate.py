"""The file signal's gate changes nothing: an ASCII output holding no
material stem followed by a dot has no file to flag.

The gate is checked against the same signal with the gate always passing
(``_any_in`` patched to answer True), on file-like texts drawn from pieces
(stems, extensions, separators, capitals, non-ASCII letters) and on the
bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_cases

pieces = st.sampled_from(
    [
        ".env", ".production", ".development", ".test", "config", "Config", "CONFIG", ".yaml",
        ".yml", ".json", "app", "app.py", "App.PY", "readme", ".md", "x", "-", "_", "/", "./",
        " ", "\n", ", ", "é", "ß", "Σ", "İ", "\u212a", "1", "v2", ".", "..", "lists ", "file ",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=24).map("".join)


def _ungated(out: str, mat: hg.Material, monkeypatch: pytest.MonkeyPatch) -> list[hg.Signal]:
    with monkeypatch.context() as m:
        m.setattr(hg, "_any_in", lambda hay, lits: True)
        return list(hg._files(out, mat))


@given(texts, texts)
@settings(max_examples=500, deadline=None)
def test_the_file_gate_changes_nothing(out: str, material: str) -> None:
    mat = hg.Material.build(material)
    with pytest.MonkeyPatch.context() as mp:
        assert list(hg._files(out, mat)) == _ungated(out, mat, mp)


def test_the_file_gate_changes_nothing_on_the_bench_cases(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for case in bench_cases():
        extra = [str(c.output) for c in case.tool_calls or ()]
        mat = hg.Material.build(case.input or "", extra)
        assert list(hg._files(case.output, mat)) == _ungated(case.output, mat, monkeypatch)


def test_a_sibling_file_is_still_flagged() -> None:
    mat = hg.Material.build("ls\n.env.development\n.env.test\n")
    found = list(hg._files("Copy .env.production first.", mat))
    assert [s[0] for s in found] == ["file_not_in_material"]
