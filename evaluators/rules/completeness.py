"""Completeness bundle: length, emptiness, sentences, coverage, trajectory shape."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from contextlib import suppress
from functools import lru_cache
from itertools import starmap
from operator import itemgetter
from typing import Any

import jsonschema

from evaluators.context import EvalContext, Step
from evaluators.jsontext import canonical, sorted_ascii
from evaluators.lexical.sentences import split_sentences
from evaluators.lexical.terms import STOPWORDS, engaged, stem, words
from evaluators.rules import asks
from evaluators.rules.base import (
    Outcome,
    count,
    outcome,
    pattern,
    ratio_score,
    skip,
    span,
    tool_call,
)
from evaluators.stats import r4
from evaluators.text.case import lower


def min_output_length(ctx: EvalContext) -> Outcome:
    minimum, src = ctx.threshold("min_output_length")
    n = len(ctx.output)
    ok = n >= minimum
    return outcome(
        passed=ok,
        score=1.0 if ok else ratio_score(n, minimum),
        message=f"Output is {n} characters ({'≥' if ok else '<'} {minimum}).",
        evidence=[count("length", "chars", n, minimum, src)],
        value={"stat": "length", "unit": "chars", "value": n},
        saw=("output",),
        asked=src != "default",
    )


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e\u200e\u200f"), None)


def non_empty_output(ctx: EvalContext) -> Outcome:
    """Empty to a reader: whitespace and invisible format characters only."""
    out = ctx.output
    # the invisible characters are all non-ASCII: ASCII text needs no
    # translate pass (a per-character dict lookup over the whole output)
    n = len(out.strip() if out.isascii() else out.translate(_INVISIBLE).strip())
    ok = n > 0
    return outcome(
        passed=ok,
        score=1.0 if ok else 0.0,
        message="Output is non-empty." if ok else "Output is empty or whitespace only.",
        evidence=[count("trimmed_length", "chars", n)],
        value={"stat": "trimmed_length", "unit": "chars", "value": n},
        saw=("output",),
    )


def sentence_count(ctx: EvalContext) -> Outcome:
    minimum, src = ctx.threshold("min_sentences")
    n = len(ctx.output_sentences)
    ok = n >= minimum
    return outcome(
        passed=ok,
        score=1.0 if ok else ratio_score(n, minimum),
        message=f"{n} sentence(s) ({'≥' if ok else '<'} {minimum}).",
        evidence=[count("sentences", "sentences", n, minimum, src)],
        value={"stat": "sentences", "unit": "sentences", "value": n},
        saw=("output",),
        asked=src != "default",
    )


_SIMPLE_TERM = re.compile(r"\w+")


def expected_coverage(ctx: EvalContext) -> Outcome:
    expected = ctx.request.expected or ""
    terms = {t for t in _SIMPLE_TERM.findall(lower(expected)) if len(t) > 2}
    if not terms:
        return outcome(
            True, 1.0, "Expected text has no qualifying term.", saw=("output", "expected")
        )
    out_terms = set(_SIMPLE_TERM.findall(ctx.output_lower))
    found = len(terms & out_terms)
    ratio = found / len(terms)
    ok = ratio >= 0.5
    return outcome(
        passed=ok,
        score=ratio,
        message=f"{found}/{len(terms)} expected terms present ({ratio:.0%}).",
        evidence=[count("expected_terms_covered", "ratio", r4(ratio), 0.5, "rule")],
        value={"stat": "expected_terms_covered", "unit": "ratio", "value": r4(ratio)},
        saw=("output", "expected"),
        asked=True,
    )


# word -> stem(word), kept across evaluations: natural text repeats a small
# vocabulary, and stem() is a Python loop over the suffixes per word.
_STEMS: dict[str, str] = {}
_STEMS_MAX = 65536
_FIRST4 = itemgetter(slice(None, 4))


def _stem_set(ws: AbstractSet[str]) -> set[str]:
    """``{stem(w) for w in ws}``, stemming only the words not seen before."""
    cache = _STEMS
    missing = ws - cache.keys()
    if len(cache) + len(missing) > _STEMS_MAX:
        return {stem(w) for w in ws}
    for w in missing:
        cache[w] = stem(w)
    return set(map(cache.__getitem__, ws))


def _prefixes(ws: AbstractSet[str]) -> set[str]:
    """The four-letter prefixes ``engaged_terms`` looks up, as
    ``{w[:4] for w in ws if len(w) >= 4}`` but with the shorter words kept
    whole: it only looks up four-letter strings, which no shorter word equals,
    so the answers are the same and the set is built without a Python loop."""
    return set(map(_FIRST4, ws))


class _Vocabulary:
    """A word set, asked whether it holds a word with a given stem or
    four-letter prefix. A part's terms are mostly found among the words
    themselves, and the sets of every word's stem and prefix cost a pass
    over all the words (a few hundred for an output, more for tool data), so
    they are built only when asked, and mostly not at all: when the words
    are lowercase ASCII, a word's stem and prefix are prefixes of it, and
    one joined copy of the words answers both by a substring search."""

    __slots__ = ("_lines", "_prefixes", "_stems", "words")

    # past this many words starting with a stem, the stem set is built
    CANDIDATES = 64

    def __init__(self, ws: AbstractSet[str]) -> None:
        self.words = ws
        self._stems: set[str] | None = None
        self._prefixes: set[str] | None = None
        self._lines: str | None = None

    def stems(self) -> set[str]:
        """``{stem(w) for w in words}``."""
        if self._stems is None:
            self._stems = _stem_set(self.words)
        return self._stems

    def prefixes(self) -> set[str]:
        """``_prefixes(words)``."""
        if self._prefixes is None:
            self._prefixes = _prefixes(self.words)
        return self._prefixes

    def lines(self) -> str:
        """Every word after a newline, or ``""`` when a word is not
        lowercase ASCII or holds a newline (a line then need not be a word,
        nor a stem a prefix of its word)."""
        if self._lines is None:
            joined = "\n" + "\n".join(self.words)
            ok = (
                joined.isascii()
                and joined.count("\n") == len(self.words)
                and joined == lower(joined)
            )
            self._lines = joined if ok else ""
        return self._lines

    def has_prefix(self, p: str) -> bool:
        """``p in prefixes()`` for a four-character ``p``: some word starts
        with it."""
        lines = self.lines()
        if not lines or "\n" in p:
            return p in self.prefixes()
        return "\n" + p in lines

    def has_stem(self, s: str) -> bool:
        """``s in stems()``: stem() only cuts a lowercase word's end, so the
        words with stem ``s`` are among those starting with it."""
        lines = self.lines()
        if self._stems is not None or not lines or "\n" in s:
            return s in self.stems()
        cache = _STEMS
        key = "\n" + s
        at = lines.find(key)
        for _ in range(self.CANDIDATES):
            if at < 0:
                return False
            end = lines.find("\n", at + 1)
            w = lines[at + 1 : end] if end >= 0 else lines[at + 1 :]
            got = cache.get(w)
            if got is None:
                got = stem(w)
                if len(cache) < _STEMS_MAX:
                    cache[w] = got
            if got == s:
                return True
            at = lines.find(key, at + 1)
        return s in self.stems()


def _engages(terms: Sequence[str], vocab: _Vocabulary) -> bool:
    """``asks.engaged_terms(terms, vocab.words, vocab.stems(), vocab.prefixes())
    >= 2``. Each distinct term counts once, whichever test finds it, so the
    terms found among the words are counted first, and the stems and
    prefixes are only looked at when those are fewer than two. The C kernel
    answers when it was built (``terms.engaged``): one pass over the words'
    stems in place of the joined-words searches below."""
    native_count = engaged(terms, vocab.words, 2)
    if native_count is not None:
        return native_count >= 2
    distinct = set(terms)
    found = distinct & vocab.words
    if len(found) >= 2:
        return True
    hit = len(found)
    for t in distinct - found:
        if vocab.has_stem(stem(t)) or (len(t) >= 4 and vocab.has_prefix(t[:4])):
            hit += 1
            if hit >= 2:
                return True
    return False


def _tool_vocabulary(steps: tuple[Step, ...]) -> _Vocabulary:
    """The words of the tool calls: name, input and output, each text capped
    at 4000 characters."""
    tool_words: set[str] = set()
    for st in steps:
        tool_words.update(words(f"{st.name} {st.input_text[:4000]} {st.output_text[:4000]}"))
    return _Vocabulary(tool_words)


def _plan_uncached(ask: str) -> tuple[int, tuple[tuple[asks.AskPart, tuple[str, ...]], ...]]:
    """``(len(parts), ((part, terms), ...))`` for the measurable parts of
    ``asks.split_ask(ask)``, each with its content words (longer than two
    letters, no stopword, in order): everything ask_coverage reads of the ask
    alone. A pure function of the ask (its parts are frozen)."""
    parts = asks.split_ask(ask)
    if not parts:  # most asks declare no parts: nothing to measure
        return 0, ()
    meas: list[tuple[asks.AskPart, tuple[str, ...]]] = []
    for p in parts:
        # the part's content words (asks._part_terms), from one words() pass
        # that the measurable test reads too
        terms = [w for w in words(p.text) if len(w) > 2 and w not in STOPWORDS]
        if asks.measurable(p, terms):
            meas.append((p, tuple(terms)))
    return len(parts), tuple(meas)


# Asks repeat (a task's runs share one) and ask_coverage reads at most 1500
# characters of one, so the split, the measurable test and the part terms
# (a regex or three and a words() pass per part) are kept per distinct ask.
_plan = lru_cache(maxsize=1024)(_plan_uncached)


def ask_coverage(ctx: EvalContext) -> Outcome:
    ask = ctx.input or ""
    if not ctx.output or ctx.output.isspace():  # ``not output.strip()``, no copy
        return skip("empty output (non_empty_output judges it)", saw=("output", "input"))
    if len(ask) > 1500:
        return skip(
            "input longer than 1500 characters reads as source material, not an ask", saw=("input",)
        )
    n_parts, plan = _plan(ask)
    if len(plan) < 2:
        return skip("fewer than two measurable declared parts in the ask", saw=("output", "input"))
    out_vocab = _Vocabulary(ctx.output_word_set)
    # The output length and the tool calls' words are only read for a part
    # the output does not answer, and most parts are answered: each is
    # worked out on first need (tool words: a words() pass over up to 8 KB
    # of every call) and kept for the other parts.
    long_output: bool | None = None
    tool_vocab: _Vocabulary | None = None
    uncovered: list[asks.AskPart] = []
    by_tool = 0
    for p, terms in plan:
        if _engages(terms, out_vocab):
            continue
        if asks.mirrors_marker(p.marker, ctx.output, ctx.output_lower):
            continue
        if long_output is None:
            # only "40 words or more?" is asked: a split capped at 39 cuts
            # has 40 pieces exactly when the whole split has 40 or more
            long_output = len(ctx.output.split(None, 39)) >= 40
        if long_output and asks.is_produce(p):
            continue
        if tool_vocab is None:
            tool_vocab = _tool_vocabulary(ctx.steps)
        if tool_vocab.words and _engages(terms, tool_vocab):
            by_tool += 1
            continue
        uncovered.append(p)
    covered = len(plan) - len(uncovered)
    ev: list[dict[str, Any]] = [
        count("uncovered_ask_parts", "parts", len(uncovered), 0, "rule"),
        count("measurable_ask_parts", "parts", len(plan)),
        count("ask_parts", "parts", n_parts),
        count("ask_parts_covered_by_tool_call", "parts", by_tool),
    ]
    ev += [span("input", p.start, p.end, "uncovered ask part") for p in uncovered[:2]]
    saw = ("output", "input", "tool_calls") if ctx.steps else ("output", "input")
    if uncovered:
        names = "; ".join(f'"{p.text[:60]}"' for p in uncovered[:2])
        return outcome(
            False,
            covered / len(plan),
            f"{len(uncovered)} of {len(plan)} declared ask parts unanswered: {names}.",
            ev,
            saw=saw,
        )
    return outcome(True, 1.0, f"All {len(plan)} declared ask parts are addressed.", ev, saw=saw)


# --- says_something --------------------------------------------------------
_ARTEFACTS = frozenset(
    {
        "null",
        "undefined",
        "nil",
        "nan",
        "[object object]",
        "<empty>",
        "<none>",
        "(empty)",
        "(none)",
        "none",
    }
)
_ARTEFACT_MAX = max(map(len, _ARTEFACTS))
_LOREM = frozenset(
    [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet",
        "consectetur",
        "adipiscing",
        "elit",
        "sed",
        "do",
        "eiusmod",
        "tempor",
        "incididunt",
        "ut",
        "labore",
        "et",
        "dolore",
        "magna",
        "aliqua",
    ]
)
_ACK = frozenset(
    [
        "done",
        "ok",
        "okay",
        "completed",
        "complete",
        "successfully",
        "success",
        "finished",
        "sure",
        "will",
        "do",
        "got",
        "it",
        "noted",
        "all",
        "set",
        "yes",
        "acknowledged",
        "updated",
        "handled",
        "fixed",
    ]
)
_INFO_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "when",
        "where",
        "why",
        "how",
        "explain",
        "describe",
        "list",
        "summarise",
        "summarize",
        "compare",
        "tell",
        "show",
        "give",
    ]
)
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:can(?:not|'t)|won't|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable))\s+(?:help|assist|do|provide|comply|answer)|i\s+(?:must|have\s+to)\s+decline|(?:sorry|unfortunately),?\s+(?:but\s+)?i\s+(?:can(?:not|'t)|am\s+unable))",
    re.I,
)
_AI_PREAMBLE = re.compile(r"^\s*as an ai(?: language model)?[^,.]*[,.]\s*", re.I)


# The compiled letter-run and repeated-sentence counts
# (evaluators/rules/_saykernel.c); absent when the extension was not built,
# and then the Python references below run.
try:
    from evaluators.rules import _saykernel
except ImportError:  # pragma: no cover - depends on the build
    _saykernel = None  # type: ignore[assignment]

_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
# compiled once: a module-level re.search looks its pattern up on every call
_WORD_CHAR = re.compile(r"\w")
_YES_NO_ASK = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|should|will|would|has|have)\b", re.I
)
_WRITE_ASK = re.compile(r"\b(?:write|draft|compose|create|generate)\b", re.I)
_TEXT_CAP = 2_000_000


def _sentence_repetition(
    text: str, spans: list[tuple[int, int]] | None = None, nonspace: int | None = None
) -> tuple[str, int] | None:
    """The most repeated sentence when it is most of the output. ``spans`` are
    ``split_sentences(text)`` when the caller already has them; ``nonspace``
    is ``_non_space_count(text)`` when the caller has counted it."""
    if spans is None or "```" in text or len(text) > _TEXT_CAP:
        body = _FENCE.sub(" ", text[:_TEXT_CAP])
        spans = split_sentences(body)
        nonspace = None  # counted on the text, not on this body
    else:
        body = text
    if len(spans) < 5:  # no sentence can occur five times
        return None
    best, n = _most_repeated(body, spans, 5)
    if n < 5:
        return None
    # str.split() and re's \s agree on what whitespace is
    nonws = (_non_space_count(body) if nonspace is None else nonspace) or 1
    if len("".join(best.split())) * n >= 0.5 * nonws:
        return best, n
    return None


def _most_repeated(body: str, spans: list[tuple[int, int]], min_count: int = 0) -> tuple[str, int]:
    """``_most_repeated_py(body, spans, min_count)``: by the C kernel when it
    was built, which hashes the stripped sentences in place instead of
    slicing each."""
    if _saykernel is not None:
        return _saykernel.most_repeated(body, spans, min_count)
    return _most_repeated_py(body, spans, min_count)


def _alike_key(stretch: str) -> tuple[int, str, str, str] | tuple[()]:
    """What equal lowered sentences share, cheaply read off a stripped ASCII
    stretch: its length and its lowered first, middle and last characters
    (the gate of :func:`_most_repeated_py`; the C kernel packs the same
    facts into one integer)."""
    if not stretch:
        return ()
    n = len(stretch)
    return n, lower(stretch[0]), lower(stretch[n // 2]), lower(stretch[-1])


def _most_repeated_py(
    body: str, spans: list[tuple[int, int]], min_count: int = 0
) -> tuple[str, int]:
    """The sentence of three words or more (stripped, lowered) that occurs most
    often, the first such on a tie, with its count; ``("", 0)`` when none.

    With ``min_count`` (the caller only wants a sentence occurring that
    often), ``("", 0)`` at once on ASCII text when no ``min_count`` spans
    strip to alike stretches (:func:`_alike_key`): equal lowered sentences
    are alike, and a caller that needs five repeats of one need not lower
    and count the sentences of an output whose sentences rule that out.

    The stretches are counted as sliced, by ``Counter`` (a C loop), and only
    the distinct ones are stripped, lowered and measured: the same counts, in
    the same first-occurrence order, as testing every sentence one by one."""
    if min_count > 0 and body.isascii():
        if len(spans) < min_count:
            return "", 0
        alike = Counter(_alike_key(body[s:e].strip()) for s, e in spans)
        if max(alike.values()) < min_count:
            return "", 0
    # lowering ASCII text keeps every offset, so it can be lowered once
    low = body.lower() if body.isascii() else None  # ASCII: the compiled lower is exact
    src = low if low is not None else body
    raw = Counter(map(src.__getitem__, starmap(slice, spans)))  # no Python loop
    counts: dict[str, int] = {}
    get = counts.get
    for piece, k in raw.items():
        sent = piece.strip() if low is not None else lower(piece.strip())
        if len(sent.split(None, 2)) >= 3:  # three words or more
            counts[sent] = get(sent, 0) + k
    if not counts:
        return "", 0
    # max() keeps the first of equal counts, in insertion order
    best = max(counts, key=counts.__getitem__)
    return best, counts[best]


# The ASCII characters str.split() splits on (isspace() is true for each).
_ASCII_SPACES = "".join(c for c in map(chr, range(128)) if c.isspace())


def _non_space_count(text: str) -> int:
    """``sum(map(len, text.split()))``: the characters that are not whitespace,
    counted on ASCII text without building the pieces."""
    if text.isascii():
        return len(text) - sum(map(text.count, _ASCII_SPACES))
    return sum(map(len, text.split()))


# ASCII text: every character outside [a-z'] becomes a space, so a plain
# split gives the runs ``re.findall(r"[a-z']+", text)`` gives.
_NOT_LETTER_RUN = {i: " " for i in range(128) if not (chr(i).islower() or chr(i) == "'")}


def _letter_runs(low: str) -> list[str]:
    """``re.findall(r"[a-z']+", low)``, by translate and split on ASCII text."""
    if low.isascii():
        return low.translate(_NOT_LETTER_RUN).split()
    return re.findall(r"[a-z']+", low)


_LOREM_WORDS = tuple(sorted(_LOREM))


# The ASCII capitals to their lowercase, and nothing else.
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _letter_stats_py(low: str, words: tuple[str, ...], fold: bool = False) -> tuple[int, int, int]:
    """``(runs, hits, nonspace)``: how many letter runs ``low`` has
    (``_letter_runs``), how many of them are one of ``words``, and its
    non-space characters (``_non_space_count``). ``fold``: of ``low`` with
    its ASCII capitals lowered (on ASCII text, of ``low.lower()``). The
    reference and fallback of ``_saykernel.letter_stats``."""
    if fold:
        low = low.translate(_ASCII_LOWER)
    toks = _letter_runs(low)
    wanted = frozenset(words)
    return len(toks), sum(map(wanted.__contains__, toks)), _non_space_count(low)


def _letter_stats(low: str, fold: bool = False) -> tuple[int, int, int]:
    """``_letter_stats_py(low, _LOREM_WORDS, fold)``: one C pass when built,
    so the common case (a long output) builds no token list at all."""
    if _saykernel is not None:
        return _saykernel.letter_stats(low, _LOREM_WORDS, fold)
    return _letter_stats_py(low, _LOREM_WORDS, fold)


def _is_echo(ask: str, low: str, nonspace: int | None = None) -> bool:
    """The lowered output ``low`` is the ask handed back, whitespace aside.
    The collapsed output keeps every non-space character of ``low``, so when
    those alone are over the length bound it cannot pass, and the collapsed
    copy of a long output is never built. ``nonspace`` is
    ``_non_space_count(low)`` when the caller has counted it."""
    nonspace = _non_space_count(low) if nonspace is None else nonspace
    # the collapsed ASCII ask is no longer than the ask (lower() keeps ASCII
    # lengths), so the bound holds for it too and it need not be built
    if ask.isascii() and nonspace > 1.2 * len(ask):
        return False
    a = " ".join(lower(ask).split())
    if nonspace > 1.2 * len(a):
        return False
    o = " ".join(low.split())
    return a in o and len(o) <= 1.2 * len(a)


def _ask_needs_more(ask_words: list[str], ask: str) -> bool:
    """The ask wants more than an acknowledgement: two distinct content
    terms or more, and no yes/no question."""
    ask_terms = [w for w in ask_words if len(w) > 2 and w not in STOPWORDS]
    return len(set(ask_terms)) >= 2 and not _YES_NO_ASK.match(ask)


def says_something(ctx: EvalContext) -> Outcome:
    out = ctx.output
    stripped = out.strip()
    if not stripped:
        return skip("empty output (non_empty_output judges it)", saw=("output",))
    ask = ctx.input or ""
    shape: str | None = None
    # the lowered strip. Lowering ASCII text only folds its capitals, which
    # the letter count does as it reads, so on ASCII text the lowered copy
    # is made only for the tests below that read it (a short output's)
    low: str | None = None
    # the letter runs are counted, not built: only a short output (the
    # acknowledgement test below) needs the runs themselves
    if stripped.isascii():
        n_toks, n_lorem, low_nonspace = _letter_stats(stripped, True)
    else:
        low = lower(stripped)
        n_toks, n_lorem, low_nonspace = _letter_stats(low)
    if not _WORD_CHAR.search(stripped) or (n_toks and n_lorem and n_lorem / n_toks >= 0.5):
        shape = "placeholder"
    elif len(stripped) <= _ARTEFACT_MAX or (low is not None and len(low) <= _ARTEFACT_MAX):
        # (no hash of a long output; lower() keeps an ASCII text's length)
        if low is None:
            low = lower(stripped)
        if len(low) <= _ARTEFACT_MAX and low in _ARTEFACTS:
            shape = "placeholder"
    # the ask is read only for a short output: the acknowledgement test
    if (
        shape is None
        and 0 < n_toks <= 12
        and _ask_needs_more(ctx.input_words, ask)
        and all(t in _ACK for t in _letter_runs(lower(stripped) if low is None else low))
    ):
        ask_words = ctx.input_words
        asks_info = any(w in _INFO_WORDS for w in ask_words) or ask.rstrip().endswith("?")
        zero_calls = ctx.request.tool_calls is not None and not ctx.steps
        writes = bool(_WRITE_ASK.search(ask)) and not ctx.steps
        if asks_info or writes or zero_calls:
            shape = "acknowledgement"
    if shape is None:
        # stripped opens with no \s (str.strip and re's \s read the same
        # whitespace table), so the preamble can only match from an "a" there
        # (re.I folds "a" only to "A"): most outputs skip the regex
        body = _AI_PREAMBLE.sub("", stripped) if stripped[0] in "aA" else stripped
        # at most 24 words: a split capped at 24 cuts yields 25 pieces past that
        if len(body.split(None, 24)) <= 24 and _REFUSAL.search(body):
            blocked = ctx.threshold("blocklist")[0]
            if not any(lower(p) in lower(ask) for p in blocked):
                shape = "refusal"
    if (
        shape is None
        and ask.strip()
        and len(ask.strip()) >= 20
        # _is_echo's own first bound, tested before a lowered copy is made
        and not (ask.isascii() and low_nonspace > 1.2 * len(ask))
        and _is_echo(ask, lower(stripped) if low is None else low, low_nonspace)
    ):
        shape = "echo"
    # on ASCII text strip() drops only whitespace and lower() keeps every
    # character's whitespace-ness, so the output counts as its lowered strip
    rep = (
        None
        if shape
        else _sentence_repetition(
            out, ctx.output_sentences, low_nonspace if out.isascii() else None
        )
    )
    if rep:
        shape = "repetition"
    # ("output", then "input" and "tool_calls" when supplied), without a generator
    saw: tuple[str, ...] = ("output",)
    if ctx.has("input"):
        saw += ("input",)
    if ctx.has("tool_calls"):
        saw += ("tool_calls",)
    if shape is None:
        return outcome(True, 1.0, "The output says something.", saw=saw)
    ev = [pattern(shape, 1)]
    if shape != "repetition":
        # out is blanks, stripped, blanks: its rstrip() ends where stripped does
        lead = len(out) - len(out.lstrip())
        ev.append(span("output", lead, lead + len(stripped), "the whole output"))
    return outcome(False, 0.0, f"The output says nothing ({shape}).", ev, saw=saw)


# --- tool_sequence ---------------------------------------------------------
# The compiled text forms of a step input (evaluators/rules/_keykernel.c);
# absent when the extension was not built, and then the reference runs.
try:
    from evaluators.rules import _keykernel
except ImportError:  # pragma: no cover - depends on the build
    _keykernel = None  # type: ignore[assignment]


def norm_input(value: Any) -> str:
    """The loop key's input normalisation: sorted keys, collapsed whitespace, 500 cap.

    By the C kernel when it was built (no_tool_loop keys every step): it
    answers a plain JSON value and leaves anything else (None answer) to
    :func:`_norm_input_reference`, which must return the same text."""
    if _keykernel is not None:
        got = _keykernel.norm_input(value)
        if got is not None:
            return got
    return _norm_input_reference(value)


def _norm_input_reference(value: Any) -> str:
    """:func:`norm_input` in pure Python: the reference the C must equal."""
    if value is None:
        return "\x00none"
    # json.dumps(..., sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    s = value if isinstance(value, str) else canonical(_drop_none(value))
    s = " ".join(s.split())
    return s if len(s) <= 500 else f"{s[:500]}#{len(s)}"


def _drop_none(v: Any, depth: int = 0) -> Any:
    # The depth check stands in for the interpreter's: compiled, these calls
    # are C calls that no recursion limit stops, and a circular value would
    # overflow the stack instead of raising RecursionError.
    if depth >= _MAX_DEPTH:
        raise RecursionError("maximum recursion depth exceeded in _drop_none")
    if isinstance(v, dict):
        return {k: _drop_none(x, depth + 1) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_drop_none(x, depth + 1) for x in v]
    return v


_MAX_DEPTH = sys.getrecursionlimit()


def _subset_match(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and _subset_match(v, actual[k]) for k, v in expected.items()
        )
    return bool(expected == actual)


def _matches(exp_name: str, exp_input: Any, step: Step, args_mode: str) -> bool:
    if exp_name != step.name:
        return False
    if exp_input is None:
        return True
    actual = step.input
    if isinstance(actual, str) and actual[:1] == "{":
        with suppress(ValueError):
            actual = json.loads(actual)
    if args_mode == "exact":
        return norm_input(exp_input) == norm_input(actual)
    return _subset_match(exp_input, actual)


def _one_to_one(
    expected: list[tuple[str, Any]], steps: tuple[Step, ...], args_mode: str
) -> tuple[int, set[int]]:
    order = sorted(range(len(expected)), key=lambda i: expected[i][1] is None)
    used: set[int] = set()
    matched = 0
    for i in order:
        name, inp = expected[i]
        for st in steps:
            if st.index not in used and _matches(name, inp, st, args_mode):
                used.add(st.index)
                matched += 1
                break
    return matched, used


def tool_sequence(ctx: EvalContext) -> Outcome:
    traj = ctx.request.expected_trajectory
    assert traj is not None
    expected = [(c.tool_name, c.input) for c in traj.tool_calls]
    if not expected:
        return skip("the expected trajectory lists no tool calls", lacked=("expected_trajectory",))
    steps = ctx.steps
    mode = traj.mode
    am = traj.args
    extras: list[Step] = []
    problem = ""
    if mode == "strict":
        matched = 0
        for i, (name, inp) in enumerate(expected):
            if i < len(steps) and _matches(name, inp, steps[i], am):
                matched += 1
            elif not problem:
                got = steps[i].name if i < len(steps) else "nothing"
                problem = f"position {i}: expected {name}, got {got}"
        extras = list(steps[len(expected) :])
        ok = matched == len(expected) and not extras
        if extras and not problem:
            problem = f"extra call {extras[0].name} at position {extras[0].index}"
    elif mode == "unordered":
        matched, used = _one_to_one(expected, steps, am)
        extras = [s for s in steps if s.index not in used]
        ok = matched == len(expected) and not extras
    elif mode == "subset":
        matched = sum(any(_matches(n, i, s, am) for s in steps) for n, i in expected)
        ok = matched == len(expected)
    elif mode == "superset":
        extras = [s for s in steps if not any(_matches(n, i, s, am) for n, i in expected)]
        matched = sum(any(_matches(n, i, s, am) for s in steps) for n, i in expected)
        ok = not extras
    else:  # ordered_subset: two-pointer subsequence
        j = 0
        matched = 0
        for name, inp in expected:
            while j < len(steps) and not _matches(name, inp, steps[j], am):
                j += 1
            if j < len(steps):
                matched += 1
                j += 1
            else:
                present = any(_matches(name, inp, s, am) for s in steps)
                problem = problem or (
                    f"{name} came out of order" if present else f"{name} never came"
                )
        ok = matched == len(expected)
    score = 1.0 if ok else max(0.0, min(1.0, matched / len(expected) - (0.25 if extras else 0.0)))
    ev: list[dict[str, Any]] = [
        count("expected_calls_matched", "calls", matched, len(expected), "call")
    ]
    ev += [tool_call(s.index, s.name, "outside the expected set") for s in extras[:10]]
    msg = (
        f"Trajectory satisfies {mode} ({matched}/{len(expected)} expected calls)."
        if ok
        else (
            f"Trajectory does not satisfy {mode}: {matched}/{len(expected)} expected calls matched"
            + (f"; {len(extras)} call(s) outside the expected set" if extras else "")
            + (f"; {problem}" if problem else "")
            + "."
        )
    )
    return outcome(ok, score, msg, ev, saw=("tool_calls", "expected_trajectory"), asked=True)


# --- valid_tool_arguments -------------------------------------------------
_VALIDATORS: dict[str, Any] = {}


def _validator(schema: Any) -> Any:
    # the schema's text, by the C kernel for a plain JSON schema (the same
    # text; serialising was most of a cached lookup), else by the encoder
    key = _keykernel.sorted_ascii(schema) if _keykernel is not None else None
    if key is None:
        key = sorted_ascii(schema)
    v = _VALIDATORS.get(key)
    if v is None:
        if not isinstance(schema, dict):
            raise jsonschema.SchemaError("schema is not an object")
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
        v = cls(schema)
        if len(_VALIDATORS) < 1024:
            _VALIDATORS[key] = v
    return v


# Keywords the plain check below understands; any other keyword in a schema
# (``$ref``, ``pattern``, ``minimum``, ``$schema``...) sends the call to jsonschema.
_PLAIN_KEYWORDS = frozenset(
    {"type", "properties", "required", "additionalProperties", "enum"}
    | {"title", "description", "default", "examples", "$comment", "deprecated"}
)
# JSON Schema type name -> the exact Python types that are certainly of it
# (``bool`` is never a number; an integral float is left to jsonschema).
_PLAIN_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


# The compiled plain check (evaluators/rules/_argkernel.c); absent when the
# extension was not built, and then the reference below runs.
try:
    from evaluators.rules import _argkernel
except ImportError:  # pragma: no cover - depends on the build
    _argkernel = None  # type: ignore[assignment]


def _plainly_valid(schema: Any, value: Any) -> bool:
    """``_plainly_valid_py(schema, value)``: by the C kernel when it was
    built (the check runs for every checked tool call); the kernel leaves a
    schema built of dict, list or str subclasses to the reference (None)."""
    if _argkernel is not None:
        got = _argkernel.plainly_valid(schema, value, _PLAIN_KEYWORDS)
        if got is not None:
            return got
    return _plainly_valid_py(schema, value)


def _plainly_valid_py(schema: Any, value: Any, depth: int = 0) -> bool:
    """Whether ``value`` certainly validates against ``schema`` (an already
    checked schema). Why: jsonschema's ``iter_errors`` + ``best_match`` cost
    tens of µs per call, and catalogue schemas are nearly always a few typed
    properties. ``False`` means only "not proven": the caller then asks
    jsonschema, so a verdict or error message never comes from here."""
    if schema is True:
        return True
    if not isinstance(schema, dict) or depth > 16 or not _PLAIN_KEYWORDS.issuperset(schema):
        return False
    if "type" in schema:
        names = schema["type"]
        if isinstance(names, str):
            names = (names,)
        elif not isinstance(names, list):
            return False
        vt = type(value)
        for n in names:
            types = _PLAIN_TYPES.get(n) if isinstance(n, str) else None
            if types is None:
                return False
            if vt in types:
                break
        else:
            return False
    if "enum" in schema:
        options = schema["enum"]
        if type(value) is not str or not isinstance(options, list):
            return False
        if not any(type(o) is str and o == value for o in options):
            return False
    if type(value) is not dict:
        return True  # the object keywords apply to objects only
    props = schema.get("properties", {})
    if not isinstance(props, dict):
        return False
    required = schema.get("required", [])
    if not isinstance(required, list) or any(r not in value for r in required):
        return False
    extra = schema.get("additionalProperties", True)
    if extra is not True and (extra is not False or any(k not in props for k in value)):
        return False
    for k, sub in props.items():
        if k in value and not _plainly_valid_py(sub, value[k], depth + 1):
            return False
    return True


def valid_tool_arguments(ctx: EvalContext) -> Outcome:
    if not ctx.config.validate_tool_arguments:
        return skip("eval.validateToolArguments is false")
    catalogue = {t.name: t for t in ctx.request.tools or ()}
    checked = unchecked = 0
    invalid: list[tuple[Step, str, bool]] = []  # step, reason, recoverable
    bad_schemas: list[str] = []
    valid_at: dict[str, list[int]] = {}
    compiled: dict[int, tuple[Any, str]] = {}  # id(schema) -> (validator | None, error)
    for st in ctx.steps:
        tool = catalogue.get(st.name)
        if tool is None:
            invalid.append((st, "not_in_catalogue", False))
            checked += 1
            continue
        if not tool.input_schema:
            unchecked += 1
            continue
        schema = tool.input_schema
        # one compile lookup per schema object per evaluation: ``_validator``
        # serialises the schema for its key, which repeated calls need not redo
        got = compiled.get(id(schema))
        if got is None:
            try:
                got = compiled[id(schema)] = (_validator(schema), "")
            except (jsonschema.SchemaError, TypeError, ValueError) as exc:
                got = compiled[id(schema)] = (None, str(exc).splitlines()[0][:80])
        val, why = got
        if val is None:
            unchecked += 1
            bad_schemas.append(f"{st.name}: {why}")
            continue
        args = st.input if st.input is not None else {}
        if isinstance(args, str):
            with suppress(ValueError):
                args = json.loads(args)
        if _plainly_valid(schema, args):
            err = None
        else:
            err = jsonschema.exceptions.best_match(val.iter_errors(args))
        checked += 1
        if err is None:
            valid_at.setdefault(st.name, []).append(st.index)
        else:
            path = "/" + "/".join(str(p) for p in err.absolute_path)
            invalid.append((st, f"{path} {err.validator}", True))
    if checked == 0:
        if bad_schemas:
            return skip("no call could be checked: " + "; ".join(bad_schemas[:3]), "config_invalid")
        return skip("no call could be checked (no tool declares an inputSchema)")
    unrecovered = [
        (s, r)
        for s, r, rec in invalid
        if not (rec and any(i > s.index for i in valid_at.get(s.name, [])))
    ]
    recovered = len(invalid) - len(unrecovered)
    ev: list[dict[str, Any]] = [
        count("unrecovered_invalid_calls", "calls", len(unrecovered), 0, "rule"),
        count("calls_checked", "calls", checked),
        count("calls_unchecked", "calls", unchecked),
        count("retries_after_invalid_call", "calls", recovered),
    ]
    ev += [tool_call(s.index, s.name, r) for s, r in unrecovered[:10]]
    score = max(0.0, 1 - len(unrecovered) / max(len(ctx.steps), 1))
    if unrecovered:
        s0, r0 = unrecovered[0]
        return outcome(
            False,
            score,
            f"{len(unrecovered)} invalid call(s) never recovered; first: #{s0.index} {s0.name} "
            f"({r0}).",
            ev,
            saw=("tool_calls", "tools_catalogue"),
        )
    return outcome(
        True,
        1.0,
        f"All {checked} checked call(s) valid or recovered ({recovered} recovered).",
        ev,
        saw=("tool_calls", "tools_catalogue"),
    )
