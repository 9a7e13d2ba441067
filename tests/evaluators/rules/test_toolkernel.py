"""The compiled failure verdict of a string output equals the Python reference.

``_toolkernel.string_failure(text, prefixes, phrases)`` must return what
``_string_failure_reference`` returns, or False (then the reference decides,
so ``_string_failure`` always equals it). Texts are drawn from the tables'
own phrases, the throwable and exit-code shapes, every kind of whitespace
(Unicode ones that ``str.strip`` takes and ASCII ones it takes too), case
look-alikes ``str.lower`` treats specially, astral characters, and taken from
the proof corpus and the bench cases. The fallback (no extension) is the
reference itself.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.rules import tool_failure as tf
from tests.support.texts import bench_cases, bench_strings, corpus_strings

kernel = pytest.importorskip("evaluators.rules._toolkernel")


def _reference(text: str) -> str | BaseException | None:
    try:
        return tf._string_failure_reference(text)
    except ValueError as exc:
        return exc


def _same(text: str) -> None:
    want = _reference(text)
    got = kernel.string_failure(text, tf.ERROR_LINE_PREFIXES, tf.ERROR_LINE_PHRASES)
    if got is False:  # undecided: the reference runs, and so does any error it raises
        if isinstance(want, BaseException):
            with pytest.raises(type(want)):
                tf._string_failure(text)
        else:
            assert tf._string_failure(text) == want
        return
    assert not isinstance(want, BaseException), (text, got)
    assert got == want, text
    assert got is None or type(got) is str
    assert tf._string_failure(text) == want


pieces = st.sampled_from(
    [
        *tf.ERROR_LINE_PREFIXES, *tf.ERROR_LINE_PHRASES, "Error:", "ERROR", "Fatal:", "PANIC:",
        "TypeError", "ValueError: x", "java.io.IOException: y", "a.b.c.SegFault: z", "errors:",
        "error:", "Exception", "my_Error", "9error", "x error", "exit code ", "Exit Status ",
        "exit code", "0", "00", "1", "-", "--", "-1", "42", "²", "١", "x", "y", ":", ".", " ",
        "  ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028",
        "\u3000", "İ", "\u212a", "ß", "é", "Σ", "😀", "\U00010400", "'", '"', "\\",
    ]
)  # fmt: skip
texts = st.lists(pieces, max_size=16).map("".join)


@given(texts)
@example("Error: no such file or directory")
@example("exit code --5")
@example("exit code -0")
@example("exit status 007 later")
@example("  \n\t java.lang.NullPointerException: at x")
@example("Uncaught TypeError: x")
@example("\x1c\x1fpanic: boom")
@example("\xa0Error: x")
@example("ok\u2028Error: x")
@example("x" * 399 + "Error: cut at the head")
@settings(max_examples=1000, deadline=None)
def test_the_verdict_equals_the_reference(text: str) -> None:
    _same(text)


@given(st.text(max_size=60))
@settings(max_examples=400, deadline=None)
def test_the_verdict_equals_the_reference_on_any_text(text: str) -> None:
    _same(text)


@pytest.mark.parametrize(
    "text",
    ["", " ", "\n\n", ":", "error", "x:", " : ", "Error -", "exit code ", "exit code 0",
     "exit code 1", "exit code -1", "exit code 1x", "exit code ---1", "Permission denied",
     "a" * 500, "a" * 398 + "\nError: x", "😀Error: x", "\U00010400", "İError: x"],
)  # fmt: skip
def test_the_verdict_equals_the_reference_on_edges(text: str) -> None:
    _same(text)
    for kind_char in ("é", "\u2003", "😀"):  # the same ASCII line in 2- and 4-byte strings
        _same(text + "\n" + kind_char)


def test_bad_arguments_raise() -> None:
    with pytest.raises(TypeError):
        kernel.string_failure(b"Error: x", (), ())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.string_failure("Error: x", ["error:"], ())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        kernel.string_failure("Error: x", ("é",), ())
    with pytest.raises(TypeError):
        kernel.string_failure("Error: x", (), (1,))  # type: ignore[arg-type]


def test_the_verdict_equals_the_reference_on_the_proof_corpus() -> None:
    texts = corpus_strings()
    assert texts
    for text in texts:
        _same(text)


def test_the_verdict_equals_the_reference_on_the_bench_texts() -> None:
    for text in bench_strings():
        _same(text)


def test_string_failure_runs_the_kernel_when_built() -> None:
    assert tf._toolkernel is kernel


def test_the_rule_falls_back_to_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = EngineConfig()
    cases = bench_cases(200)[:80]
    with_kernel = [tf.no_silent_tool_failure(EvalContext(r, cfg)) for r in cases if r.tool_calls]
    assert tf._string_failure("Error: x") == "first line starts with 'error:'"
    monkeypatch.setattr(tf, "_toolkernel", None)
    assert tf._string_failure("Error: x") == "first line starts with 'error:'"
    assert [
        tf.no_silent_tool_failure(EvalContext(r, cfg)) for r in cases if r.tool_calls
    ] == with_kernel
