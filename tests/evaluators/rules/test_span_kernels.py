"""The compiled file-name and version scans equal their Python references.

``_numkernel.file_spans`` and ``version_spans`` must give the spans of
``_file_matches`` and ``_version_matches`` (and so of the plain
``_FILE_TOKEN`` / ``_VERSION_ANY`` finditer those equal) on every text: drawn
from the characters the patterns decide on (dots, dashes, slashes, "v",
"+", digits of several scripts, non-ASCII word characters, every kind of
whitespace), and taken from the proof corpus and the bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import hallucination_grounded as hg
from tests.evaluators.rules.test_numkernel import _bench_texts, _corpus_texts

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(text: str) -> None:
    files = kernel.file_spans(text)
    assert files == [m.span() for m in hg._file_matches(text)]
    assert files == [m.span() for m in hg._FILE_TOKEN.finditer(text)]
    versions = kernel.version_spans(text)
    assert versions == [m.span() for m in hg._version_matches(text)]
    assert versions == [m.span() for m in hg._VERSION_ANY.finditer(text)]


pieces = st.sampled_from(
    [
        ".", "..", "-", "_", "/", "+", "v", "V", "a", "Z", "x1", "0", "1", "23", "٣", "²",
        ".ts", ".env", ".production", ".1", "1.2", "1.2.3", "v1.2", "-rc.1", "+build", "é",
        "ß", "İ", "\u212a", "\u0301", "😀", " ", "\t", "\n", "\xa0", "\u2003", ",", ":",
        "@", "(", ")",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts)
@example(".env.production and .env.test, src/a.b/ and x.1 a.b.c é.ts")
@example("v1.2.3-rc.1+b v1.2 1.2.3.4 v1.2. 1.2.3x v٣.٣ 1.2.3-")
@settings(max_examples=800, deadline=None)
def test_the_scans_equal_the_references(text: str) -> None:
    _same(text)


@given(st.text(max_size=80))
@settings(max_examples=800, deadline=None)
def test_the_scans_equal_the_references_on_any_text(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text", ["", "v", "1.", "a." * 300, "1." * 300 + "1", ".a" * 200 + "/", "v1.2" * 50]
)
def test_the_scans_equal_the_references_on_edges(text: str) -> None:
    _same(text)


def test_the_scans_equal_the_references_on_the_corpus_and_bench() -> None:
    for text in _corpus_texts() + _bench_texts():
        _same(text)


def test_the_span_helpers_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Upgrade to v2.1.0 in .env.local and app.config.ts"
    built = (hg._file_spans(text), hg._version_spans(text))
    monkeypatch.setattr(hg, "_numkernel", None)
    assert (hg._file_spans(text), hg._version_spans(text)) == built
    assert built == ([(21, 31), (36, 49)], [(11, 17)])


def test_the_kernel_checks_its_argument() -> None:
    with pytest.raises(TypeError):
        kernel.file_spans(b"a.ts")
    with pytest.raises(TypeError):
        kernel.version_spans(None)
