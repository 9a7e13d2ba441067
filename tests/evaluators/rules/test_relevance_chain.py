"""The relevance rules read one native term chain and decide as before.

With the lexical kernel built, keyword_overlap, topic_consistency and
answers_the_ask take their counts from one ``term_chain`` pass over the
output's units (``relevance._chain``) instead of the output's term set, a
set per sentence and a Python loop. Every outcome must equal the one the
pure-Python path gives (the kernel monkeypatched away): on drawn outputs
with line breaks, list items and fences, on the bench cases and on every
proof-corpus string read as an output.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluators.config import EngineConfig
from evaluators.context import EvalContext
from evaluators.lexical import sentences, terms
from evaluators.request import EvaluationRequest
from evaluators.rules import relevance as r
from evaluators.rules.base import Outcome
from tests.support.texts import bench_cases, corpus_strings

kernel = pytest.mark.skipif(terms._lexkernel is None, reason="the C lexical kernel was not built")
CFG = EngineConfig()
RULES = (r.keyword_overlap, r.topic_consistency, r.answers_the_ask)
ASKS = (
    "Restart the demo server on port 6920 and check the logs.",
    "How does the composer decide the verdict and what does the risk layer do?",
    "stop the server",
    "Deploy release 0.15.0 to staging",
    "",
    "the and of",
)


def _outcomes(req: EvaluationRequest) -> list[Outcome]:
    ctx = EvalContext(req, CFG)
    return [rule(ctx) for rule in RULES]


def _both_ways(
    reqs: list[EvaluationRequest], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[list[Outcome]], list[list[Outcome]]]:
    native = [_outcomes(q) for q in reqs]
    with monkeypatch.context() as m:
        m.setattr(terms, "_lexkernel", None)
        m.setattr(sentences, "_lexkernel", None)
        assert not terms.native()
        fallback = [_outcomes(q) for q in reqs]
    return native, fallback


pieces = st.sampled_from(
    [
        "The server", " stopped.", " Restart it", " now!", "\n", "\n\n", "\r\n", " - item",
        "\n- deploy the build", "\n2) check logs", "\n* ", "```code\nx = 1\n```", " ",
        "\u2028", "\x85", "İ", "é", " port 8080.", " Why?", "\t", "kernel", " and", "```",
        " composer verdict", " risk layer.", " I can't help with that.", " 0.15.0",
    ]
)  # fmt: skip


@kernel
@given(st.lists(pieces, max_size=30).map("".join), st.sampled_from(ASKS))
@settings(max_examples=200, deadline=None)
def test_drawn_outputs_decide_as_the_python_path(output: str, ask: str) -> None:
    req = EvaluationRequest(output=output, input=ask or None)
    native = _outcomes(req)
    saved = terms._lexkernel, sentences._lexkernel
    try:
        terms._lexkernel = sentences._lexkernel = None  # type: ignore[assignment]
        fallback = _outcomes(req)
    finally:
        terms._lexkernel, sentences._lexkernel = saved
    assert native == fallback, (output, ask)


@kernel
def test_bench_cases_decide_as_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    native, fallback = _both_ways(list(bench_cases()), monkeypatch)
    assert native == fallback


@kernel
def test_corpus_strings_decide_as_the_python_path(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = corpus_strings()
    reqs = [
        EvaluationRequest(output=t, input=(ASKS[k % len(ASKS)] or texts[k - 1]) or None)
        for k, t in enumerate(texts)
    ]
    native, fallback = _both_ways(reqs, monkeypatch)
    assert native == fallback


@kernel
def test_the_rules_share_one_native_chain() -> None:
    ctx = EvalContext(bench_cases()[0], CFG)
    r.keyword_overlap(ctx)
    assert isinstance(ctx.memo["relevance.chain"], r._Chain)
    assert ctx._output_term_set is None  # never built: the chain stands in for it
    r.topic_consistency(ctx)
    r.answers_the_ask(ctx)


field_terms = st.sampled_from([*sorted(r._FIELD_OF), "zebra", "lorem", "kernel", "x"])


@given(st.frozensets(field_terms, max_size=6), st.frozensets(field_terms, max_size=12))
@settings(max_examples=400, deadline=None)
def test_the_field_probe_counts_the_field_hits(ask: frozenset[str], out: frozenset[str]) -> None:
    """What the chain counts, ``len(out & _field_probe(ask))``, is ``_field_hits``."""
    assert len(out & r._field_probe(ask)) == r._field_hits(set(ask), out)


@given(
    st.text(alphabet="aB1_-.9 \u0661\u0662\u0663ßİΣ", max_size=30),
    st.text(alphabet="aB1_-.9 \u0661\u0662\u0663ßİΣx", max_size=60),
)
@settings(max_examples=400, deadline=None)
def test_the_echo_gates_change_nothing(ask: str, output: str) -> None:
    """_echoes_identifier with its gates (no digit or underscore in the ask;
    no wanted token in the lowered output) finds what the plain search finds."""

    def plain(ask: str, output: str) -> str | None:
        wanted = frozenset(
            t.lower()
            for t in r._DISTINCTIVE.findall(ask)
            if any(c.isdigit() for c in t) or "_" in t
        )
        return next((t for t in r._DISTINCTIVE.findall(output) if t.lower() in wanted), None)

    assert r._wanted(ask) == frozenset(
        t.lower() for t in r._DISTINCTIVE.findall(ask) if any(c.isdigit() for c in t) or "_" in t
    )
    assert r._echoes_identifier(ask, output) == plain(ask, output)
    assert r._echoes_identifier(ask, output, output.lower()) == plain(ask, output)
