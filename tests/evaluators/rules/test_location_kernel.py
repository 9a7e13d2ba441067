"""The compiled location scan equals the pure-Python reference on every text.

``grounding.extract_claims`` runs ``_numkernel.locations`` when the
extension is built; ``extract_claims_reference`` is what it must equal.
Texts are drawn from the characters the scan decides on (path characters,
URL schemes and the characters that end a URL, trailing punctuation, every
kind of whitespace, non-ASCII word characters that refuse a path start)
and taken from the proof corpus and the bench cases.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.rules import grounding
from tests.evaluators.rules.test_numkernel import _bench_texts, _corpus_texts

kernel = pytest.importorskip("evaluators.rules._numkernel")


def _same(text: str) -> None:
    got = kernel.locations(text, grounding.KNOWN_EXTENSIONS)
    want = grounding.extract_claims_reference(text)
    assert got == want
    assert [tuple(map(type, c)) for c in got] == [tuple(map(type, c)) for c in want]


pieces = st.sampled_from(
    [
        "/", "//", ".", "..", "...", "./", "../", ".../", "-", "_", "a", "Src", "x1", "9",
        ".ts", ".py", ".TS", ".env", ".md.", "file", "dir/", "@", "http", "https", "://",
        "http://", "https://", "http://a", "https://h.io/", "?q=1", "#frag", "<", ">", "(",
        ")", '"', "'", "`", "]", "[", ",", ";", ":", "!", "?", "}", " ", "\t", "\n", "\xa0",
        "\u2003", "\x1c", "é", "ß", "İ", "\u212a", "٣", "😀", "e\u0301", "readme.md",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=40).map("".join)


@given(texts)
@example("see https://x.io/a/b), ./src/a.ts, ../b/, /etc/x.conf. and é/a.py @u/b.ts")
@example("http://a.io/ https:///x http://h//.. ..//a.md .../x.py a//b.ts dir/.")
@settings(max_examples=800, deadline=None)
def test_the_scan_equals_the_reference(text: str) -> None:
    _same(text)


@given(st.text(max_size=80))
@settings(max_examples=1000, deadline=None)
def test_the_scan_equals_the_reference_on_any_text(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "/",
        "http://",
        "http://x",
        "https://x.io/" + "/" * 20,
        "a" * 300 + ".ts",
        "src/" * 100,
        ".env .env.local x.env",
        "cf. e.g. v1.2.3 and 3.14",
    ],
)
def test_the_scan_equals_the_reference_on_edges(text: str) -> None:
    _same(text)


def test_the_scan_equals_the_reference_on_the_proof_corpus() -> None:
    for text in _corpus_texts():
        _same(text)


def test_the_scan_equals_the_reference_on_the_bench_cases() -> None:
    for text in _bench_texts():
        _same(text)


def test_extract_claims_runs_the_kernel_when_built() -> None:
    assert grounding._numkernel is kernel


def test_extract_claims_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Edited src/app.ts and docs/ per https://x.io/guide/intro."
    with_kernel = grounding.extract_claims(text)
    monkeypatch.setattr(grounding, "_numkernel", None)
    assert grounding.extract_claims(text) == with_kernel
    assert [loc for _, _, loc in with_kernel] == ["https://x.io/guide/intro", "src/app.ts", "docs/"]


def test_the_kernel_checks_its_arguments() -> None:
    with pytest.raises(TypeError):
        kernel.locations(b"a.ts", grounding.KNOWN_EXTENSIONS)
    with pytest.raises(TypeError):
        kernel.locations("a.ts", ["ts"])


def _same_ground(text: str) -> None:
    got: set[str] = set()
    want: set[str] = set()
    kernel.ground_add(got, text, grounding._ground_token)
    grounding._ground_add_reference(want, text)
    assert got == want


ground_pieces = st.sampled_from(
    [
        "/", "//", ".", "./", "..", "a", "B", "_", "-", "#", "?", "#x", "?q=1", "://", "http://",
        "Src", "x.TS", '"', "'", "`", ",", "(", ")", "[", "]", "{", "}", "=", ":", ";", "!",
        " ", "\t", "\n", "\xa0", "\u2003", "\x1c", "\x85", "é", "İ", "ß", "\u212a", "😀",
        "Σ", "ǅ",
    ]
)  # fmt: skip
ground_texts = st.lists(ground_pieces, max_size=40).map("".join)


@given(ground_texts)
@example("See ./Src/A_b.ts#L1, http://X.io/a//./b?q (x) [y/.] {z} a=b/c/ İ/x.py")
@settings(max_examples=800, deadline=None)
def test_the_ground_equals_the_reference(text: str) -> None:
    _same_ground(text)


@given(st.text(max_size=80))
@settings(max_examples=1000, deadline=None)
def test_the_ground_equals_the_reference_on_any_text(text: str) -> None:
    _same_ground(text)


@pytest.mark.parametrize("text", ["", "a" * 600, "/".join(["seg"] * 300), "x/" * 400 + "#"])
def test_the_ground_equals_the_reference_on_edges(text: str) -> None:
    _same_ground(text)


def test_the_ground_equals_the_reference_on_the_corpus_and_bench() -> None:
    for text in _corpus_texts() + _bench_texts():
        _same_ground(text)


def test_ground_add_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "cat ./src/Mod_1.ts docs/ README.md"
    with_kernel: set[str] = set()
    grounding._ground_add(with_kernel, text)
    monkeypatch.setattr(grounding, "_numkernel", None)
    without: set[str] = set()
    grounding._ground_add(without, text)
    assert with_kernel == without
    assert {"src/mod-1.ts", "mod-1.ts", "docs", "readme.md"} <= without
