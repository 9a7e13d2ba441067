"""``_piikernel.ascii_fold`` is ``findings._ascii_view``, and both agree with ``normalize``.

``normalized`` builds the identity view itself when the kernel says the
text is plain ASCII with no run of spaces after folding; otherwise it runs
``normalize``. Either way the view must equal ``normalize(raw)``. Checked on
texts built from the characters the fold decides on (every ASCII control,
the five folded whitespace characters, DEL, capitals, non-ASCII letters and
spaces, astral characters), on arbitrary Unicode, on long texts where the
decision falls after the first block, and on every corpus and bench text;
and without the kernel.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.detectors import findings
from evaluators.text.normalize import normalize
from tests.support.texts import bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.detectors._piikernel")

pieces = st.sampled_from(
    [
        "a", "Z", "A", "z", "@", "[", "`", "{", "~", "0", " ", "  ", "\t", "\n", "\r", "\x0b",
        "\x0c", "\x00", "\x01", "\x08", "\x0e", "\x1c", "\x1f", "\x7f", "\x80", "\xa0", "é",
        "İ", "\u212a", "\u2028", "\u200b", "😀", "ab", "Hello World. ",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


def _same(raw: str) -> None:
    got = kernel.ascii_fold(raw)
    assert got == findings._ascii_view(raw)
    view = normalize(raw)
    if got is not None:
        assert view.is_identity and view.text == got
    findings.normalized.cache_clear()
    assert findings.normalized(raw) == view


@given(st.one_of(texts, st.text(max_size=60)), st.integers(0, 600))
@example("", 0)
@example("a  b", 0)
@example("x", 255)
@example("x", 256)
@example("abcdefg  x", 0)
@example("abcdefgh  ", 0)
@example("abcdefg \t", 0)
@example("ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{\x7f", 0)
@example("\t\n\r\x0b\x0cabc\x08", 0)
@example("a\x1fbcdefgh", 0)
@settings(max_examples=500, deadline=None)
def test_fold_equals_the_reference(text: str, pad: int) -> None:
    _same(text)
    _same("Ab" * pad + text)  # the decision made after the first checked block


def test_fold_on_corpus_and_bench() -> None:
    for raw in (*corpus_strings(), *bench_strings()):
        _same(raw)


def test_fold_refuses_non_str() -> None:
    with pytest.raises(TypeError):
        kernel.ascii_fold(b"abc")  # type: ignore[arg-type]


def test_normalized_uses_the_kernel_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    assert findings._piikernel is kernel
    raw = "Plain ASCII\ttext, one line.\nTwo."
    want = normalize(raw)
    findings.normalized.cache_clear()
    monkeypatch.setattr(findings, "_piikernel", None)
    assert findings.normalized(raw) == want
    findings.normalized.cache_clear()
