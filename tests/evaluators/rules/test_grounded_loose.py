"""The compiled grounding loop equals the pure-Python reference.

``_loose`` runs ``_numkernel.grounded_loose`` when the extension has it: the
loop of ``_loose_reference`` with ``Material.grounds`` done in C. It must
return the same figures (the same objects, in order) and leave the same
memo, on arbitrary texts and on every proof-corpus and bench text.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.support.texts import bench_cases, corpus_strings

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(output: str, material: str, extra: tuple[str, ...] = ()) -> None:
    nums = hg.numbers(output)
    mat_c = hg.Material.build(material, extra)
    mat_py = hg.Material.build(material, extra)
    got = kernel.grounded_loose(nums, mat_c, mat_c._grounded)
    want = hg._loose_reference(nums, mat_py)
    assert [id(n) for n in got] == [id(n) for n in want]
    assert mat_c._grounded == mat_py._grounded
    assert [type(v) for v in mat_c._grounded.values()] == [bool] * len(mat_c._grounded)


pieces = st.sampled_from(
    [
        "0", "1", "7", "12", "100", "1234", "2024", "1,234", "0.5", "0.31", "3.2", "99.95",
        "12.5k", "4M", "1B", "%", " %", " ms", " days", " users", "about ", "~", "$", "€",
        " ", "\n", ",", ".", "x", "1" * 320, "9" * 400 + ".5", "0.000001", "٣", "½",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


@given(texts, texts)
@example("18% and 3.2% and 30 days", "churn 0.032, 18 %, 30 days, 24 hours")
@example("1" * 320 + " and 5 %", "1" * 320 + " and " + "1" * 330)  # inf - inf in derived
@example("12 and 0", "nothing numeric here\nat all\nreally")
@example("2.9M users", "2,914,377 users and 5k")
@settings(max_examples=1500, deadline=None)
def test_the_kernel_grounds_as_the_reference(output: str, material: str) -> None:
    _same(output, material)


@given(st.text(max_size=60), st.text(max_size=60))
@settings(max_examples=500, deadline=None)
def test_the_kernel_grounds_as_the_reference_on_any_text(output: str, material: str) -> None:
    _same(output, material)


def test_the_kernel_grounds_as_the_reference_on_the_corpus_and_bench() -> None:
    texts = corpus_strings()
    assert texts
    for i, text in enumerate(texts):
        _same(text, texts[i - 1])
    for case in bench_cases(200):
        extra = tuple(str(c.output) for c in case.tool_calls or ())
        _same(case.output, case.input or "", extra)


def test_loose_runs_the_compiled_grounding_when_built() -> None:
    assert hg._grounded_loose is kernel.grounded_loose


def test_loose_falls_back_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    out, material = "18% of 30 days, 7 users, 2.9M", "churn 0.18 over 30 days; 2,914,377 users"
    with_kernel = hg._loose(hg.numbers(out), hg.Material.build(material))
    monkeypatch.setattr(hg, "_grounded_loose", None)
    assert hg._loose(hg.numbers(out), hg.Material.build(material)) == with_kernel
    monkeypatch.setattr(hg, "_numkernel", None)
    assert hg._loose(hg.numbers(out), hg.Material.build(material)) == with_kernel
    assert [n.digits for n in with_kernel] == ["7"]


def test_the_kernel_checks_its_arguments() -> None:
    mat = hg.Material.build("1 2 3")
    with pytest.raises(TypeError):
        kernel.grounded_loose((), mat, {})
    with pytest.raises(TypeError):
        kernel.grounded_loose([(1.0,)], mat, {})
    with pytest.raises(AttributeError):
        kernel.grounded_loose(hg.numbers("5"), object(), {})
