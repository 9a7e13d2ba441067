"""The tool rules' shortcuts decide exactly what the plain code decides.

``grounded_in_reads`` and ``no_silent_tool_failure`` share each step's
``failure_reason`` through the context (exceptions included), the whole
output's acknowledgement test reads the lowered output's literal family, the
first-line and squash helpers take fewer C calls. Each is checked against
the plain formula it replaced, on texts built from the tables' own phrases,
Unicode whitespace and case oddities, and on the corpus and bench texts.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext, Step, as_text
from evaluators.request import EvaluationRequest
from evaluators.rules import tool_failure as tf
from evaluators.text.literals import LOWERED_OUTPUT
from tests.support.texts import bench_cases, corpus_strings

_ODD = [
    " ", "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2028",
    "\u3000", "İ", "ß", "\u212a", "Σ", "ſ", "é", "😀", "\U00010400", "x", ".", ":", "-", "0",
    "7", "²", "١",
]  # fmt: skip
_PHRASES = [
    *tf.ACKNOWLEDGEMENT_PHRASES, *tf.UNCERTAINTY_PHRASES, *tf.DENIAL_PHRASES,
    *tf.ERROR_LINE_PREFIXES, *tf.ERROR_LINE_PHRASES, "exit code ", "exit status ",
    "TypeError", "Error", "neither ", " nor ", "not ", "no ",
]  # fmt: skip
texts = st.lists(st.sampled_from([*_PHRASES, *_ODD]), max_size=30).map("".join)


def _first_line_plain(head: str) -> str:
    return next((ln.strip() for ln in head.split("\n") if ln.strip()), "")


@given(texts)
@example("\n \n  Error: x \n y")
@example("\x1c\n\u2028 a")
@settings(max_examples=400, deadline=None)
def test_first_line(text: str) -> None:
    assert tf._first_line(text) == _first_line_plain(text)


def test_first_line_on_real_texts() -> None:
    for text in corpus_strings():
        assert tf._first_line(text[:400]) == _first_line_plain(text[:400])


_NOT_ALNUM = re.compile(r"[\W_]+")


@given(texts)
@settings(max_examples=300, deadline=None)
def test_squash(text: str) -> None:
    assert tf._squash(text) == _NOT_ALNUM.sub("", text.lower())


@given(texts)
@example("the build has no errors but the read failed")
@example("neither a nor b")
@settings(max_examples=400, deadline=None)
def test_whole_output_acknowledgement(text: str) -> None:
    low = text.lower()
    plain = tf._acknowledges_lower(low, hedges=False)
    assert tf._acknowledges_whole.__wrapped__(low, True) == plain
    assert tf._acknowledges_whole.__wrapped__(low, False) == plain
    LOWERED_OUTPUT.present("something else")  # another text in the family's memo
    assert tf._acknowledges_whole.__wrapped__(low, True) == plain


def _ctx(*outputs: object, errors: tuple[str | None, ...] = ()) -> EvalContext:
    from evaluators.model import ToolCall

    calls = tuple(
        ToolCall("bash", {"command": f"c{i}"}, out, error=errors[i] if i < len(errors) else None)
        for i, out in enumerate(outputs)
    )
    return EvalContext(EvaluationRequest(output="ok", tool_calls=calls), EngineConfig())


def test_failure_reasons_are_shared_and_equal() -> None:
    outs = ["Error: no such file", '{"ok": false}', "fine", '{"exit_code": 2}', "", None]
    ctx = _ctx(*outs, errors=(None, None, None, None, "boom", None))
    for st_ in ctx.steps:
        assert tf.failure_reason_of(ctx, st_) == tf.failure_reason(st_)
    assert len(ctx.memo[tf._REASONS_KEY]) == len(outs)
    for st_ in ctx.steps:  # answered from the memo, same values
        assert tf.failure_reason_of(ctx, st_) == tf.failure_reason(st_)


def test_a_failing_reason_raises_each_time() -> None:
    # "--5" passes the digit test and int() refuses it: the reason raises
    ctx = _ctx("fine", "exit code --5")
    step: Step = ctx.steps[1]
    with pytest.raises(ValueError):
        tf.failure_reason(step)
    assert tf.failure_reason_of(ctx, ctx.steps[0]) is None
    for _ in range(2):
        with pytest.raises(ValueError):
            tf.failure_reason_of(ctx, step)
    out = tf.no_silent_tool_failure  # the engine turns the raise into a skip
    with pytest.raises(ValueError):
        out(ctx)


def test_bench_cases_reason_as_before() -> None:
    for req in bench_cases():
        ctx = EvalContext(req, EngineConfig())
        for st_ in ctx.steps:
            assert tf.failure_reason_of(ctx, st_) == tf.failure_reason(st_)


@given(st.lists(st.sampled_from("abcd"), max_size=14), st.integers(1, 6))
@settings(max_examples=300, deadline=None)
def test_repeat_groups_keep_every_group_over_the_limit(keys: list[str], max_rep: int) -> None:
    from evaluators.rules import cost

    steps = tuple(Step(i, k, None, None, None) for i, k in enumerate(keys))
    groups: dict[str, list[Step]] = {}
    for key, s in zip(keys, steps, strict=True):
        groups.setdefault(key, []).append(s)
    plain = [g for g in groups.values() if len(g) > max_rep]
    assert cost._repeat_groups(keys, steps, max_rep) == plain


_LOC_PIECES = [
    "src/", "a.ts", "A_b.py", "package.json", "readme.md", "./", "../", "/", ".", "#x", "?q=1",
    "https://", "x.io/", "docs", "lib", "mod0.ts", "mod", " ", "\n", ",", "(", "'", "`", "é",
    "İ", "\u212a", "_", "-",
]  # fmt: skip
loc_texts = st.lists(st.sampled_from(_LOC_PIECES), max_size=12).map("".join)


@given(
    st.lists(loc_texts, max_size=4),
    st.lists(loc_texts, min_size=1, max_size=6),
    st.lists(loc_texts | st.dictionaries(st.sampled_from(["path", "q"]), loc_texts), max_size=3),
)
@settings(max_examples=300, deadline=None)
def test_the_lazy_ground_decides_as_the_eager_one(
    texts: list[str], locs: list[str], inputs: list[object]
) -> None:
    from evaluators.rules import grounding as g

    # the steps' inputs are ground too, their text read only by the lazy one
    steps = [Step(i, "read", value, None, None) for i, value in enumerate(inputs)]
    eager: set[str] = set()
    for text in [*texts, *(as_text(value) for value in inputs)]:
        g._ground_add(eager, text)
    tails = [text.rsplit(None, 1)[-1] for text in texts if text.split()]
    folded = [g.fold_location(t).rsplit("/", 1)[-1] for t in tails]
    long_tails = [t for t in folded if len(t) >= 3]
    lazy = g._Ground(texts, tails, steps)
    for loc in locs:
        assert g._unsupported_in(loc, lazy) == g._unsupported(loc, eager, long_tails)


_JSON_PIECES = [
    "{", "}", "[", "]", '"', ":", ",", " ", "\t", "\n", "\r", "\x0b", "\xa0", "1", "-", "e",
    "true", "null", "NaN", "Infinity", '"ok"', '"error"', "\\", "\\u0065", "é", "😀", "\ud800",
]  # fmt: skip


@given(st.lists(st.sampled_from(_JSON_PIECES), max_size=20).map(lambda p: "{" + "".join(p)))
@example('{"ok": true, "rows": 3}')
@example('{"a": 1} \n')
@example('{"a": 1} x')
@example('{"a": 1}\xa0')
@settings(max_examples=500, deadline=None)
def test_loads_object_is_json_loads(text: str) -> None:
    import json

    try:
        want: object = ("ok", json.loads(text))
    except ValueError as exc:
        want = ("error", type(exc))
    try:
        got: object = ("ok", tf._loads_object(text))
    except ValueError as exc:
        got = ("error", type(exc))
    assert got == want or (got[0] == "ok" and repr(got) == repr(want))  # NaN != NaN


def test_loads_object_fails_on_deep_nesting_as_json_loads() -> None:
    import json

    deep = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(RecursionError):
        json.loads(deep)
    with pytest.raises(RecursionError):
        tf._loads_object(deep)


def _declares_failure_plain(obj: dict[str, object]) -> str | None:
    for key in ("error", "stderr"):
        v = obj.get(key)
        if v not in (None, "", False, [], {}) and not (isinstance(v, str) and not v.strip()):
            return f"output declares {key}"
    if obj.get("ok") is False:
        return "output declares ok: false"
    if obj.get("success") is False:
        return "output declares success: false"
    if obj.get("isError") is True:
        return "output declares isError: true"
    status = obj.get("status")
    if isinstance(status, str) and status.lower() in ("error", "failed", "failure"):
        return f"output status {status}"
    for key in ("exit_code", "exitCode", "returncode"):
        v = obj.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v != 0:
            return f"non-zero {key} {v}"
    return None


_KEYS = st.sampled_from(
    ["error", "stderr", "ok", "success", "isError", "status", "exit_code", "exitCode",
     "returncode", "rows", "Error", "data"]
)  # fmt: skip
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=False),
    st.sampled_from(["", " ", "\xa0", "x", "Error", "FAILED", "failure", "ok"]),
    st.just([]), st.just({}), st.just([0]), st.just({"a": 1}),
)  # fmt: skip


@given(st.dictionaries(_KEYS, _VALUES, max_size=5))
@settings(max_examples=500, deadline=None)
def test_declares_failure(obj: dict[str, object]) -> None:
    assert tf._declares_failure(obj) == _declares_failure_plain(obj)
