"""The compiled marker scan equals the pure-Python reference on every text.

``stub._marker_hits`` runs ``_stubkernel.marker_hits`` when the extension is
built; ``_marker_hits_reference`` is what it must return. Texts mix the
marker words with the characters their boundary test decides on (ASCII and
non-ASCII letters and digits, "_", combining marks, astral characters, every
str kind), with every marker word reported present or not.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import stub
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.rules._stubkernel")

ALL = frozenset(lw for _, lw in stub._WORD_PAIRS)

pieces = st.sampled_from(
    [
        "TODO", "FIXME", "TBD", "XXX", "HACK", "PLACEHOLDER", "todo", "TODOS", "XXXX", "_",
        "a", "Z", "1", "٣", "é", "ß", "İ", "\u0301", "😀", "\u2003", " ", "\n", ":", "(", "-",
        ".", "TO", "DO",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)


def _same(text: str, found: frozenset[str] = ALL) -> None:
    got = kernel.marker_hits(text, stub._WORD_PAIRS, found)
    assert got == stub._marker_hits_reference(text, found)


@given(texts, st.sets(st.sampled_from(sorted(ALL))))
@example("TODO: x\nFIXME_TODO XXXX TBD. éTODO TODO٣ 😀HACK", ALL)
@example("XXXXX PLACEHOLDER", frozenset({"xxx"}))
@settings(max_examples=1000, deadline=None)
def test_the_scan_equals_the_reference(text: str, found: set[str]) -> None:
    _same(text, frozenset(found))


@given(st.text(max_size=60))
@settings(max_examples=800, deadline=None)
def test_the_scan_equals_the_reference_on_any_text(text: str) -> None:
    _same(text)
    _same("TODO" + text + "FIXME " + text)


@pytest.mark.parametrize("text", ["", "TODO", "TODO" * 50, "x" * 5000 + " TODO", "😀TODO😀"])
def test_the_scan_equals_the_reference_on_edges(text: str) -> None:
    _same(text)
    _same(text, frozenset())


def test_the_scan_equals_the_reference_on_the_corpus_and_bench() -> None:
    for text in corpus_strings() + bench_strings():
        _same(text)


def test_the_rule_runs_the_kernel_when_built() -> None:
    assert stub._stubkernel is kernel


def test_the_rule_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "TODO: wire it.\nThen FIXME later; XXXX is not one. TBD"
    with_kernel = stub.find_stubs(text, "", ())
    monkeypatch.setattr(stub, "_stubkernel", None)
    assert stub.find_stubs(text, "", ()) == with_kernel
    assert [h.name for h in with_kernel][:3] == ["todo", "fixme", "tbd"]


def test_the_kernel_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.marker_hits(b"TODO", stub._WORD_PAIRS, ALL)
    with pytest.raises(TypeError):
        kernel.marker_hits("TODO", [("TODO", "todo")], ALL)
    with pytest.raises(TypeError):
        kernel.marker_hits("TODO", (("TODO",),), ALL)
