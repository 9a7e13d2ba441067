"""Relevance bundle: lexical measurements of whether the output is on the ask."""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any, cast

from evaluators.context import EvalContext
from evaluators.lexical.sentences import split_sentences
from evaluators.lexical.terms import (
    content_term_sets,
    content_terms,
    long_words,
    native,
    strip_fences,
    term_chain,
    term_chain_spans,
)
from evaluators.rules.base import Outcome, count, outcome, skip
from evaluators.stats import r4
from evaluators.text.case import lower

_LIST_ITEM = re.compile(r"^\s*(?:[-*•+]|\d{1,2}[.)])\s+")


class Overlap:
    """The ask's terms found in the output.

    (Overlap, Continuity and _Chain are plain classes, not dataclasses:
    compiled, a dataclass's generated ``__init__`` still runs interpreted,
    ~2,200 instructions a construction; these are built once an evaluation
    each and only read.)"""

    __slots__ = ("found", "ratio", "total")

    def __init__(self, ratio: float, found: int, total: int) -> None:
        self.ratio = ratio
        self.found = found
        self.total = total


# The memo keys of the values below (ctx.memo, one evaluation). Each is read
# by a direct ``memo.get`` rather than through ``ctx.shared``: the four rules
# and the chain read them some twenty times an evaluation, and the extra call
# frame was a measurable part of the rules' own cost.
_KEY_ASK = "relevance.ask_terms"
_KEY_BODY = "relevance.body"
_KEY_OVERLAP = "relevance.overlap"
_KEY_CHAIN = "relevance.chain"
_KEY_CONTINUITY = "relevance.continuity"
_KEY_THRESHOLD = {
    k: "relevance.threshold." + k
    for k in ("keyword_overlap", "topic_consistency", "topic_consistency_min_words")
}
_UNSET: Any = object()
_EMPTY: frozenset[str] = frozenset()


def _threshold(ctx: EvalContext, key: str) -> tuple[Any, str]:
    """``ctx.threshold(key)``, once per evaluation: the relevance rules read
    the same two thresholds twice each."""
    memo_key = _KEY_THRESHOLD[key]
    got: tuple[Any, str] | None = ctx.memo.get(memo_key)
    if got is None:
        got = ctx.memo[memo_key] = ctx.threshold(key)
    return got


def _body(ctx: EvalContext) -> str:
    """``strip_fences(ctx.output)``, once per evaluation (a scan of the whole
    output for a fence, which both the chain and continuity start from)."""
    got: str | None = ctx.memo.get(_KEY_BODY)
    if got is None:
        out = ctx.output
        # strip_fences returns the text itself when it holds no fence
        got = ctx.memo[_KEY_BODY] = strip_fences(out) if "```" in out else out
    return got


def _ask_terms(ctx: EvalContext) -> frozenset[str]:
    """``frozenset(ctx.input_terms)``, once per evaluation: the four rules
    and the chain each started from their own ``set`` of the ask's terms
    (read only, except in the Python continuity loop, which copies it).

    Natively the set is built by the one set-building scan of the ask
    (``content_term_sets``: ``set(content_terms(ask))``) unless a rule has
    already made the list: the list, its cached tuple and their copies were
    built only to be turned into this set."""
    got: frozenset[str] | None = ctx.memo.get(_KEY_ASK)
    if got is None:
        if native() and not ctx.input_terms_built:
            got = frozenset(content_term_sets([ctx.input or ""])[0])
        else:
            got = frozenset(ctx.input_terms)
        ctx.memo[_KEY_ASK] = got
    return got


def overlap(ctx: EvalContext) -> Overlap | None:
    """The ask's terms found in the output (computed once per evaluation:
    keyword_overlap and answers_the_ask both read it)."""
    got: Any = ctx.memo.get(_KEY_OVERLAP, _UNSET)  # Any: compiled, a typed local rejects _UNSET
    if got is _UNSET:
        got = ctx.memo[_KEY_OVERLAP] = _overlap(ctx)
    return cast("Overlap | None", got)


def _overlap(ctx: EvalContext) -> Overlap | None:
    ask = _ask_terms(ctx)
    if not ask:
        return None
    # natively, the one pass over the output that continuity reads too
    found = _chain(ctx).found if native() else len(ask & ctx.output_term_set)
    return Overlap(found / len(ask), found, len(ask))


def keyword_overlap(ctx: EvalContext) -> Outcome:
    thr, src = _threshold(ctx, "keyword_overlap")
    ov = overlap(ctx)
    if ov is None:
        return outcome(True, 1.0, "The input has no content terms.", saw=("output", "input"))
    ratio = ov.ratio
    shown = r4(ratio)
    return outcome(
        passed=ratio >= thr,
        score=min(2 * ratio, 1.0),
        message=(
            f"{ov.found}/{ov.total} of the input's content terms appear in the output "
            f"({ratio:.0%})."
        ),
        evidence=[count("input_terms_in_output", "ratio", shown, thr, src)],
        value={"stat": "input_terms_in_output", "unit": "ratio", "value": shown},
        saw=("output", "input"),
        asked=src != "default",
    )


class Continuity:
    """Share of content sentences connected to the ask's topic."""

    __slots__ = ("connected", "ratio", "total")

    def __init__(self, ratio: float, connected: int, total: int) -> None:
        self.ratio = ratio
        self.connected = connected
        self.total = total


def _units(
    text: str, sentences: list[tuple[int, int]] | None = None, body: str | None = None
) -> list[str]:
    """Sentences, with list items folded under the sentence introducing them.
    ``sentences`` are ``split_sentences(text)`` when the caller has them: a
    text with no fence and no line break is one block, and reuses them.
    ``body`` is ``strip_fences(text)`` when the caller has it."""
    if body is None:
        body = strip_fences(text)
    if sentences is not None and body is text and "\n" not in body:
        return [body[s:e] for s, e in sentences] if body.strip() else []
    units: list[str] = []
    for block in body.split("\n"):  # re.split(r"\n") without the regex
        if not block.strip():
            continue
        if units and _LIST_ITEM.match(block):
            units[-1] += " " + block
            continue
        for s, e in split_sentences(block):
            units.append(block[s:e])
    return units


class _Chain:
    """:func:`term_chain` of the output's units against the ask's terms:
    the counts overlap, continuity and the hand-back test all read."""

    __slots__ = ("connected", "field_hits", "found", "outside", "total")

    def __init__(self, counts: tuple[int, int, int, bool, int]) -> None:
        self.connected = counts[0]
        self.total = counts[1]
        self.found = counts[2]  # ask terms in the output
        self.outside = counts[3]  # an output term the ask lacks
        self.field_hits = counts[4]  # _field_hits(ask terms, output terms)


def _chain(ctx: EvalContext) -> _Chain:
    """One native pass over the output's units (computed once per
    evaluation, for an ask with content terms). The union of the units'
    terms is the output's term set: units cover every token of the
    fence-stripped output, and never cut one."""
    got: _Chain | None = ctx.memo.get(_KEY_CHAIN)
    if got is None:
        got = ctx.memo[_KEY_CHAIN] = _compute_chain(ctx)
    return got


def _compute_chain(ctx: EvalContext) -> _Chain:
    text = ctx.output
    body = _body(ctx)
    seed = _ask_terms(ctx)
    # an ask with no field stem has no field to probe: the cached probe's
    # lookup hashes the whole term set, which most asks need not pay
    probe = _EMPTY if seed.isdisjoint(_FIELD_TERMS) else _field_probe(seed)
    if body is text and "\n" not in body:
        # _units' one-block case: the units are the sentences themselves
        spans = ctx.output_sentences if body.strip() else []
        return _Chain(term_chain_spans(text, spans, seed, probe))
    return _Chain(term_chain(_units(text, None, body), seed, probe))


def continuity(ctx: EvalContext) -> Continuity | str:
    """Share of content sentences connected to the ask's topic, or a skip reason
    (computed once per evaluation and shared by topic_consistency and answers_the_ask)."""
    got: Continuity | str | None = ctx.memo.get(_KEY_CONTINUITY)
    if got is None:
        got = ctx.memo[_KEY_CONTINUITY] = _continuity(ctx)
    return got


def _continuity(ctx: EvalContext) -> Continuity | str:
    min_words = ctx.threshold("topic_consistency_min_words")[0]
    # letter runs of four or more, counted only as far as the minimum
    body = _body(ctx)
    # the count cannot reach len(body) + 1: a limit past it changes nothing
    if long_words(body, min(min_words, len(body) + 1)) < min_words:
        return f"the output has fewer than {min_words} words of four or more letters"
    if not _ask_terms(ctx):
        return "the input has no content terms"
    if native():
        chain = _chain(ctx)
        if chain.total == 0:
            return "the output has no content-bearing sentence"
        return Continuity(chain.connected / chain.total, chain.connected, chain.total)
    # sentences without a content term are not counted; isdisjoint answers
    # "any shared term?" without building the intersection
    content = list(filter(None, content_term_sets(_units(ctx.output, ctx.output_sentences, body))))
    topic = set(_ask_terms(ctx))  # grown below
    total = len(content)
    connected = 0
    for terms in content:
        if not topic.isdisjoint(terms):
            connected += 1
            topic |= terms
    if total == 0:
        return "the output has no content-bearing sentence"
    return Continuity(connected / total, connected, total)


def topic_consistency(ctx: EvalContext) -> Outcome:
    thr, src = _threshold(ctx, "topic_consistency")
    c = continuity(ctx)
    if isinstance(c, str):
        out = skip(c, saw=("output", "input"))
        out.passed = True  # benefit of the doubt, still reported as skipped
        return out
    ratio = c.ratio
    shown = r4(ratio)
    return outcome(
        passed=ratio >= thr - 1e-9,
        score=min(1.5 * ratio, 1.0),
        message=(
            f"{c.connected}/{c.total} content sentences connect to the ask's topic ({ratio:.0%})."
        ),
        evidence=[count("connected_sentences", "ratio", shown, round(thr, 4), src)],
        value={"stat": "connected_sentences", "unit": "ratio", "value": shown},
        saw=("output", "input"),
        asked=src != "default",
    )


_REFUSAL = re.compile(
    r"\b(?:i\s*(?:can(?:not|'t)|won't|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable|sorry))\b|i\s+(?:must|have\s+to)\s+decline|unable\s+to\s+(?:help|assist))",
    re.I,
)


# Semantic fields for the paraphrase rescue of answers_the_ask: stems (as the
# shared tokenizer yields them) that talk about the same subject without
# sharing a word. A short on-task answer ("kill the process listening on
# 6920" for "stop the demo server") lands in the ask's field; filler, sign-offs
# and another subject do not. Each field is one row; extend by adding rows.
_SEMANTIC_FIELDS: tuple[frozenset[str], ...] = (
    frozenset(
        [
            "report",
            "quarter",
            "revenu",
            "margin",
            "growth",
            "churn",
            "profit",
            "earn",
            "sale",
            "segment",
            "enterpris",
            "busi",
            "board",
            "slid",
            "deck",
            "forecast",
            "kpi",
            "arr",
            "mrr",
            "customer",
            "retent",
            "quart",
        ]
    ),
    frozenset(
        [
            "stop",
            "start",
            "restart",
            "kill",
            "terminat",
            "shutdown",
            "ctrl",
            "proces",
            "serv",
            "daemon",
            "port",
            "listen",
            "pid",
            "terminal",
            "signal",
            "interrupt",
        ]
    ),
    frozenset(
        [
            "deploy",
            "releas",
            "build",
            "pipelin",
            "stag",
            "product",
            "rollout",
            "rollback",
            "ship",
            "ci",
        ]
    ),
    frozenset(
        [
            "query",
            "sql",
            "tabl",
            "column",
            "row",
            "migrat",
            "schema",
            "index",
            "databas",
            "select",
            "join",
        ]
    ),
    frozenset(
        [
            "pric",
            "cost",
            "plan",
            "tier",
            "month",
            "vendor",
            "subscript",
            "bill",
            "invoic",
            "fee",
        ]
    ),
    frozenset(["error", "fail", "crash", "exception", "traceback", "bug", "fix", "debug", "stack"]),
    frozenset(["test", "suit", "assert", "pass", "fail", "coverag", "fixtur"]),
    frozenset(["log", "trac", "span", "metric", "monitor", "alert", "dashboard", "telemetry"]),
)
_FIELD_OF: dict[str, tuple[int, ...]] = {}
for _i, _field in enumerate(_SEMANTIC_FIELDS):
    for _stem in _field:
        _FIELD_OF[_stem] = (*_FIELD_OF.get(_stem, ()), _i)
_FIELD_TERMS = frozenset(_FIELD_OF)
# Distinctive tokens an answer repeats from its ask: versions, identifiers
# with digits, underscores or dots, and numbers of three or more digits.
_DISTINCTIVE = re.compile(r"(?<![\w.-])(?:[A-Za-z0-9]+(?:[._-][A-Za-z0-9]+)+|\d{3,})(?![\w-])")


def _echoes_identifier(ask: str, output: str, low: str | None = None) -> str | None:
    """A distinctive ask token the output repeats (``0.15.0``, ``nightly-8``).

    ``low`` is ``output.lower()`` when the caller has it. A token the output
    repeats is an ASCII run of it whose lowered form is a wanted token, so
    that token occurs in the lowered output (lower() maps each character on
    its own, and an ASCII character to one ASCII character): when none of
    the few wanted tokens does, no token can be found, and the search over
    the whole output (a regex attempt at every position) is not run."""
    wanted = _wanted_cached(ask) if len(ask) <= 2048 else _wanted(ask)
    if not wanted:
        return None
    if low is None:
        low = lower(output)
    for w in wanted:
        if w in low:
            break
    else:
        return None
    for t in _DISTINCTIVE.findall(output):
        if lower(t) in wanted:
            return t
    return None


# A character one of the wanted tokens must hold: _DISTINCTIVE's characters
# with isdigit() true are \d's (ASCII and other decimal digits), and "_".
_DIGIT_OR_UNDERSCORE = re.compile(r"[\d_]")


def _wanted(ask: str) -> frozenset[str]:
    """The ask's distinctive tokens, lowered: those with a digit or an underscore.
    (An ask with neither - most prose asks - has none, and is not searched.)"""
    if _DIGIT_OR_UNDERSCORE.search(ask) is None:
        return frozenset()
    return frozenset(
        lower(t) for t in _DISTINCTIVE.findall(ask) if any(c.isdigit() for c in t) or "_" in t
    )


# asks repeat (a task's runs share one), and the scan of the ask is a regex
_wanted_cached = lru_cache(maxsize=1024)(_wanted)


def _field_hits(ask_terms: AbstractSet[str], out_terms: AbstractSet[str]) -> int:
    """Output terms, not in the ask, that share a semantic field with an ask term."""
    fields = {f for t in ask_terms for f in _FIELD_OF.get(t, ())}
    if not fields:
        return 0
    # only terms of some field can count: intersect in C, loop over those few
    near = (out_terms - ask_terms) & _FIELD_TERMS
    return sum(1 for t in near if any(f in fields for f in _FIELD_OF[t]))


@lru_cache(maxsize=4096)
def _field_probe(ask_terms: frozenset[str]) -> frozenset[str]:
    """The output terms :func:`_field_hits` counts for this ask, as a set:
    field stems outside the ask that share a field with an ask term (so the
    hits are ``len(out_terms & probe)``, which the chain counts in C)."""
    fields = {f for t in ask_terms for f in _FIELD_OF.get(t, ())}
    return frozenset(t for t in _FIELD_TERMS - ask_terms if any(f in fields for f in _FIELD_OF[t]))


def answers_the_ask(ctx: EvalContext) -> Outcome:
    ask_terms = _ask_terms(ctx)
    if len(ask_terms) < 2:
        return skip("the ask has fewer than two content terms", saw=("output", "input"))
    kw_thr, kw_src = _threshold(ctx, "keyword_overlap")
    tc_thr, tc_src = _threshold(ctx, "topic_consistency")
    asked = kw_src != "default" or tc_src != "default"
    src = "config" if "config" in (kw_src, tc_src) else ("call" if asked else "default")
    # at most 25 words: a split capped at 25 cuts yields 26 pieces past that
    if len(ctx.output.split(None, 25)) <= 25 and _REFUSAL.search(ctx.output):
        return outcome(
            False,
            0.0,
            "The output is a bare refusal.",
            [count("refusal", "flag", 1, 0, src)],
            saw=("output", "input"),
            asked=asked,
        )
    if native():
        chain = _chain(ctx)
        # the output has terms and the ask has them all
        handed_back = chain.total > 0 and not chain.outside
    else:
        out_terms = ctx.output_term_set
        handed_back = bool(out_terms) and out_terms <= ask_terms
    # (the stripped lengths are only measured for an output handed back)
    if handed_back and len(ctx.output.strip()) <= 1.2 * len((ctx.input or "").strip()):
        return outcome(
            False,
            0.0,
            "The output hands the ask back.",
            [count("ask_handed_back", "flag", 1, 0, src)],
            saw=("output", "input"),
            asked=asked,
        )
    ov = overlap(ctx)
    c = continuity(ctx)
    if ov is None or isinstance(c, str):
        return skip(
            f"a relevance measurement skipped: {c if isinstance(c, str) else 'no ask terms'}",
            saw=("output", "input"),
        )
    kw_fail = ov.ratio < kw_thr
    tc_fail = c.ratio < tc_thr - 1e-9
    ev = [
        count("input_terms_in_output", "ratio", r4(ov.ratio), kw_thr, kw_src),
        count("connected_sentences", "ratio", r4(c.ratio), round(tc_thr, 4), tc_src),
    ]
    rescue = None
    if kw_fail and tc_fail:
        echoed = _echoes_identifier(ctx.input or "", ctx.output, ctx.output_lower)
        if echoed is not None:
            rescue = f"it names the ask's own identifier {echoed!r}"
        elif (
            _chain(ctx).field_hits if native() else _field_hits(ask_terms, ctx.output_term_set)
        ) >= 2:
            rescue = "it answers in the ask's subject vocabulary (a paraphrase)"
    if kw_fail and tc_fail and rescue is None:
        return outcome(
            False,
            min(2 * ov.ratio, 1.5 * c.ratio, 1.0),
            f"Off the ask: {ov.ratio:.0%} of its terms used and {c.ratio:.0%} of sentences "
            "connect.",
            ev,
            saw=("output", "input"),
            asked=asked,
        )
    if rescue is not None:
        return outcome(
            True,
            max(0.5, min(2 * ov.ratio, 1.0)),
            f"Both lexical measurements fail, but {rescue}.",
            ev,
            saw=("output", "input"),
            asked=asked,
        )
    return outcome(
        True,
        1.0,
        "The output addresses the ask (at least one relevance measurement passes).",
        ev,
        saw=("output", "input"),
        asked=asked,
    )


def _tool_terms(name: str, description: str | None, schema: object) -> frozenset[str]:
    """The content terms of a catalogue entry: its name, description and
    argument names. A catalogue repeats from one evaluation to the next, so
    the terms of each text are kept (:func:`_text_term_set`)."""
    text = f"{name} {description or ''}"
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        text += " " + " ".join(schema["properties"].keys())
    return _text_term_set(text)


@lru_cache(maxsize=4096)
def _text_term_set(text: str) -> frozenset[str]:
    """``frozenset(content_terms(text))``, once per distinct text (read-only:
    tool_choice only intersects and unions these)."""
    return frozenset(content_terms(text))


# Verb and noun aliases for reading a tool's *name* against the ask: the ask
# says "change", the tool is called update_*. One row per concept; the first
# stem is the canonical one. Stems are the shared tokenizer's.
_NAME_ALIASES: tuple[tuple[str, ...], ...] = (
    ("updat", "chang", "modify", "edit", "set", "amend"),
    ("lookup", "look", "fetch", "retriev", "get"),
    ("search", "find", "query"),
    ("delet", "remov", "eras"),
    ("creat", "writ", "add", "mak"),
    ("knowledg", "kb"),
    ("email", "mail"),
    ("list", "enumerat"),
)
_CANON: dict[str, str] = {alias: row[0] for row in _NAME_ALIASES for alias in row}


def _concepts(terms: AbstractSet[str] | list[str]) -> set[str]:
    return {_CANON.get(t, t) for t in terms}


@lru_cache(maxsize=4096)
def _term_set_concepts(terms: frozenset[str]) -> frozenset[str]:
    """``_concepts`` of a catalogue entry's terms, once per distinct set
    (the sets are :func:`_text_term_set`'s, so they repeat)."""
    return frozenset(_concepts(terms))


def _named_by_ask(tool: str, ask: AbstractSet[str]) -> bool:
    """Every concept of the tool's name (≥ 2) is named by the ask: the ask
    says what this tool does in its own words (``send_email`` for "send the
    customer an email")."""
    name = _name_concepts(tool)
    return len(name) >= 2 and name <= ask


@lru_cache(maxsize=4096)
def _name_concepts(tool: str) -> frozenset[str]:
    """The concepts a tool's name is made of, once per distinct name: the
    split and the per-part tokenizing depend on the name alone."""
    parts = [p for p in re.split(r"[_\-\s.]+|(?<=[a-z])(?=[A-Z])", tool) if p]
    # short parts ("kb") are not content terms but do name a concept
    return frozenset(_concepts({(content_terms(p) or [lower(p)])[0] for p in parts}))


def tool_choice(ctx: EvalContext) -> Outcome:
    ask = _ask_terms(ctx)
    if len(ask) < 2:
        return skip("the ask has fewer than two content terms", saw=("input",))
    called = {s.name for s in ctx.steps}
    terms = {
        t.name: _tool_terms(t.name, t.description, t.input_schema) for t in ctx.request.tools or ()
    }
    union: set[str] = set()
    for name in called:
        tt = terms.get(name)
        union |= _text_term_set(name) if tt is None else tt
    fit_called = len(ask & union) / len(ask)
    best_name, best_fit = "", 0.0
    for name, tt in terms.items():
        if name in called:
            continue
        f = len(ask & tt) / len(ask)
        if f > best_fit:
            best_name, best_fit = name, f
    ev = [
        count("best_uncalled_fit", "ratio", r4(best_fit), 0.5, "rule"),
        count("called_fit", "ratio", r4(fit_called)),
    ]
    saw = ("input", "tool_calls", "tools_catalogue")
    ask_concepts = _concepts(ask)
    if not any(_named_by_ask(n, ask_concepts) for n in called):
        for name, tt in terms.items():
            if name in called or not _named_by_ask(name, ask_concepts):
                continue
            fit = len(ask_concepts & _term_set_concepts(tt)) / len(ask)
            if fit > fit_called:
                ev.append(count("named_uncalled_fit", "ratio", r4(fit)))
                return outcome(
                    False,
                    max(0.0, 1 - (fit - fit_called)),
                    f"The ask names what {name} does ({fit:.0%} fit), yet the agent called "
                    f"{sorted(called)} ({fit_called:.0%}).",
                    ev,
                    saw=saw,
                )
    if best_name and best_fit >= 0.5 and best_fit - fit_called >= 0.34:
        return outcome(
            False,
            max(0.0, 1 - (best_fit - fit_called)),
            f"{best_name} fits the ask ({best_fit:.0%}) far better than the called tools "
            f"{sorted(called)} ({fit_called:.0%}).",
            ev,
            saw=saw,
        )
    return outcome(
        True, 1.0, "The called tools serve the ask as well as any in the catalogue.", ev, saw=saw
    )
