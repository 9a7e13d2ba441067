"""``_piikernel.spaceless_present`` is ``blocklist._spaceless_present``.

The kernel skips gates whose three-character runs do not all occur in the
space-free text and searches the rest; the answer must be the reference's
(``g in text.replace(" ", "")`` for each gate, in order) on every kind of
str, for gates shorter than three characters, longer than the text, empty,
non-ASCII or astral, and on the corpus and bench texts with the default
blocklist. ``find_blocklist`` must give the same findings without the kernel,
and the rule's phrase-key memo must not outlive a different tuple.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.detectors import blocklist
from evaluators.detectors.findings import normalized
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.detectors._piikernel")

pieces = st.sampled_from(
    ["a", "b", "ab", "ba", "aab", " ", "  ", "kill", "you", "rself", "how", "to", "hack",
     "é", "İ", "ß", "中", "😀", "\U0001d41a", "\x00", "\u2003", "-", ".", "x y"]
)  # fmt: skip
texts = st.lists(pieces, max_size=30).map("".join)
gate_lists = st.lists(st.one_of(texts, st.text(max_size=6)), max_size=6).map(tuple)


def _same(text: str, gates: tuple[str, ...]) -> None:
    got = kernel.spaceless_present(text, gates)
    assert got == blocklist._spaceless_present(text, gates)
    assert all(type(g) is str for g in got)


@given(st.one_of(texts, st.text(max_size=60)), gate_lists)
@example("", ())
@example("", ("",))
@example("k i l l yourself", ("killyourself", "ki", "k", ""))
@example("aaa a", ("aaaa", "aaaaa", "aa a"))
@example("😀 中 é", ("😀中é", "中é", "😀"))
@settings(max_examples=600, deadline=None)
def test_gate_equals_the_reference(text: str, gates: tuple[str, ...]) -> None:
    _same(text, gates)


def test_gate_on_corpus_and_bench() -> None:
    _, _, gates = blocklist._compiled(blocklist.DEFAULT_BLOCKLIST)
    for raw in (*corpus_strings(), *bench_strings()):
        _same(normalized(raw).text, gates)


def test_gate_refuses_non_str() -> None:
    with pytest.raises(TypeError):
        kernel.spaceless_present("abc", (b"a",))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.spaceless_present("abc", ["a"])  # type: ignore[arg-type]


def test_find_blocklist_uses_the_kernel_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    assert blocklist._piikernel is kernel
    texts = [*corpus_strings()[:400], "How to  h ack a server", "kill\u200byourself now"]
    want = [blocklist.find_blocklist(t) for t in texts]
    monkeypatch.setattr(blocklist, "_piikernel", None)
    assert [blocklist.find_blocklist(t) for t in texts] == want


def test_phrase_key_memo_follows_the_tuple() -> None:
    a = ("how to hack",)
    b = ("illegal drugs",)
    text = "how to hack and illegal drugs"
    assert [f.start for f in blocklist.find_blocklist(text, a)] == [0]
    assert [f.start for f in blocklist.find_blocklist(text, b)] == [16]
    assert [f.start for f in blocklist.find_blocklist(text, a)] == [0]
    assert [f.start for f in blocklist.find_blocklist(text, list(b))] == [16]
