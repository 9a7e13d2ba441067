"""``no_stub_output``: placeholder or deferred work in place of the work itself.

Signals are read line by line; lines a diff removes and lines inside a
docstring are not the delivered work, and markers the ask itself names are
the deliverable (an inventory of open items), not a stub. An output that honestly says
which part is unfinished is a status report, not a stub.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from evaluators.config import DEFAULT_STUB_MARKERS, STUB_MARKER_TABLE
from evaluators.context import EvalContext
from evaluators.rules.base import Outcome, count, outcome, pattern, span
from evaluators.rules.scan import lowered_twin, prefiltered_search
from evaluators.text.case import lower
from evaluators.text.literals import LOWERED_OUTPUT
from evaluators.text.starts import tried_at

_CODE_STUBS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "not_implemented",
        re.compile(
            r"raise\s+NotImplementedError|throw\s+new\s+Error\(\s*['\"`]not implemented|"
            r"unimplemented!\(|todo!\(",
            re.I,
        ),
    ),
    (
        "not_implemented_message",
        re.compile(r"['\"`][^'\"`\n]{0,40}\bnot (?:yet )?implemented\b[^'\"`\n]{0,20}['\"`]", re.I),
    ),
    ("goes_here", re.compile(r"(?:#|//|--|/\*)\s*[^\n]{0,40}\b(?:goes|go) here\b", re.I)),
    (
        "for_now",
        re.compile(
            r"(?:#|//)\s*[^\n]{0,30}\b(?:simplified|stubbed|hardcoded|hard-coded|fake|mock(?:ed)?|"
            r"dummy)\b[^\n]{0,30}(?:for now|until)",
            re.I,
        ),
    ),
    (
        "ellipsis_body",
        re.compile(r"^\s*(?:#|//)\s*\.\.\.\s*(?:rest|remaining|more|other|etc)", re.I),
    ),
)
_PROSE_STUBS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("exercise", re.compile(r"\bleft as an exercise\b|\bas an exercise for the reader\b", re.I)),
    (
        "omitted",
        re.compile(
            r"\b(?:omitted|elided|left out|skipped)\s+(?:here\s+)?(?:for brevity|to keep|for space|"
            r"for readability)|\bfor brevity\b",
            re.I,
        ),
    ),
    (
        "same_pattern",
        re.compile(
            r"\b(?:follow(?:ing)?|using|apply|with)\s+(?:the\s+)?(?:same|this exact|this|"
            r"that)\s+(?:pattern|register|approach|structure|shape)\b",
            re.I,
        ),
    ),
    (
        "remaining",
        re.compile(
            r"\b(?:the\s+)?(?:remaining|rest of the|other)\s+(?:\d+\s+|\w+\s+){0,2}(?:methods|"
            r"functions|endpoints|conversions|sections|paragraphs|handlers|transitions|tests|cases|"
            r"fields|pieces)\b[^.\n]{0,80}\b(?:same|similar|pattern|yourself|you can|left|omitted|"
            r"follow)",
            re.I,
        ),
    ),
    (
        "you_can_add",
        re.compile(
            r"\byou can (?:implement|add|fill in|write|finish|complete) (?:the |them|these|it|"
            r"those|remaining|rest)",
            re.I,
        ),
    ),
    (
        "deferral",
        re.compile(
            r"\b(?:i'll|i will|let me)\s+(?:look into|get back to you|follow up|circle back|"
            r"check on)\b",
            re.I,
        ),
    ),
)
_DISCLOSURE = re.compile(
    r"\b(?:not (?:yet )?(?:finished|done|complete|implemented|working|wired)|have not (?:finished|"
    r"implemented|done)|haven't (?:finished|implemented|done)|"
    r"still (?:a )?stubs?\b|(?:is|are) (?:still )?stubs?\b|\bBLOCKED\b|remaining work|do not rely|"
    r"don't rely|TODO stubs?)",
    re.I,
)
# On ASCII text ``str.lower`` folds exactly the letters re.I folds and keeps
# every offset, so "a _DISCLOSURE match exists" is "the lowercase pattern,
# case-sensitive, matches the lowered text": a scan re runs far faster, tried
# only where one of the literals its alternatives open with occurs. (The
# pattern has no uppercase escape for lower() to change.)
_DISCLOSURE_LOWER = re.compile(lower(_DISCLOSURE.pattern))
_DISCLOSURE_STARTS = re.compile(
    r"not |have not |haven't |still |is |are |blocked|remaining work|do not rely|don't rely|"
    r"todo stub"
)
# Where a _MARKER_WORD match can begin: one of its literals (case-sensitive).
_WORDS: tuple[str, ...] = tuple(STUB_MARKER_TABLE["words"])
_ASK_WORDS: tuple[str, ...] = tuple(STUB_MARKER_TABLE["ask_words"])
_MARKER_WORD = re.compile(r"\b(" + "|".join(map(re.escape, _WORDS)) + r")\b")
_MARKER_STARTS = re.compile("|".join(map(re.escape, _WORDS)))

# _DISCLOSURE spelled out as the phrases it matches (lowercase); those in
# _DISCLOSURE_BOUNDED end in ``\b`` in the pattern ("stubs?\b", "BLOCKED\b").
# On ASCII text ``\w`` is _WORD_CHARS.
_NOT_DONE = ("finished", "done", "complete", "implemented", "working", "wired")
_STUBS = ("stub", "stubs")
_DISCLOSURE_BOUNDED = frozenset(
    [
        *(f"still {a}{s}" for a in ("", "a ") for s in _STUBS),
        *(f"{v} {still}{s}" for v in ("is", "are") for still in ("", "still ") for s in _STUBS),
        "blocked",
    ]
)
_DISCLOSURE_WORDS = (
    *(f"not {y}{w}" for y in ("", "yet ") for w in _NOT_DONE),
    *(f"{h} {w}" for h in ("have not", "haven't") for w in ("finished", "implemented", "done")),
    *sorted(_DISCLOSURE_BOUNDED),
    "remaining work",
    "do not rely",
    "don't rely",
    "todo stub",
)
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def _discloses(output: str, low: str) -> bool:
    """``_DISCLOSURE.search(output)`` is not None; ``low`` is ``output.lower()``.

    On ASCII text every match is one of ``_DISCLOSURE_WORDS`` in ``low``
    (the pattern is a finite set of phrases), starting on a word boundary and,
    for the phrases that end in ``\b``, ending on one; the one-pass family
    of the lowered output says which phrases occur at all (usually none), and
    ``str.find`` visits the few places of those that do."""
    if not output.isascii():
        return _DISCLOSURE.search(output) is not None
    present = _DISCLOSURE_SET.present(low)
    if not present:
        return False
    n = len(low)
    for lit in present:
        bounded = lit in _DISCLOSURE_BOUNDED
        i = low.find(lit)
        while i >= 0:
            e = i + len(lit)
            if (i == 0 or low[i - 1] not in _WORD_CHARS) and (
                not bounded or e == n or low[e] not in _WORD_CHARS
            ):
                return True
            i = low.find(lit, i + 1)
    return False


def _discloses_plain(output: str, low: str) -> bool:
    """The earlier :func:`_discloses` (a prefiltered regex search): the tests' reference."""
    if output.isascii():
        return prefiltered_search(_DISCLOSURE_LOWER, _DISCLOSURE_STARTS, low) is not None
    return _DISCLOSURE.search(output) is not None


_PASS_BODY = re.compile(r"^(\s*)(?:async\s+)?def\s+\w+\s*\([^)]*\)[^:]*:\s*$")
_ABSTRACT = re.compile(r"@abstractmethod|@abc\.abstractmethod|@overload|Protocol\)")


class StubHit(NamedTuple):
    """One stub signal: its name and span in the output. Immutable; a named
    tuple because an output keeping a TODO list holds a dozen of them and a
    frozen dataclass pays one ``object.__setattr__`` per field to build each."""

    name: str
    start: int
    end: int


_new_hit = tuple.__new__  # StubHit(name, start, end) without its Python frame


def _line_scoped(rx: re.Pattern[str]) -> re.Pattern[str]:
    """The same pattern, run over the whole text but unable to cross a line:
    ``\\s`` becomes "whitespace but newline" and ``^`` anchors per line. One
    pass per pattern replaces one search per pattern per line."""
    return re.compile(rx.pattern.replace(r"\s", r"[^\S\n]"), rx.flags | re.M)


# Literals (lowercase) every match of a pattern must contain: a substring
# test on the lowered output skips patterns that cannot match at all.
_NEEDS: dict[str, tuple[str, ...]] = {
    "not_implemented": ("notimplementederror", "not implemented", "unimplemented!(", "todo!("),
    "not_implemented_message": ("implemented",),
    "goes_here": ("here",),
    "for_now": ("for now", "until"),
    "ellipsis_body": ("...",),
    "exercise": ("exercise",),
    "omitted": ("brevity", "to keep", "for space", "readability"),
    "same_pattern": ("pattern", "register", "approach", "structure", "shape"),
    "remaining": ("same", "similar", "pattern", "yourself", "you can", "left", "omitted", "follow"),
    "you_can_add": ("you can ",),
    "deferral": ("i'll", "i will", "let me"),
    "disclosure": ("not ", "haven't", "stub", "blocked", "remaining work", "rely"),
}


def _may_match(name: str, low: str) -> bool:
    return any(k in low for k in _NEEDS.get(name, ("",)))


# Every _NEEDS literal, found in one pass over the lowered output.
_NEEDS_SET = LOWERED_OUTPUT.member(k for ks in _NEEDS.values() for k in ks)
_NEEDS_SETS = {name: frozenset(ks) for name, ks in _NEEDS.items()}
# The disclosure phrases and the marker words (lowered; a marker in the output
# is its lowered form in the lowered output), in the same pass.
_DISCLOSURE_SET = LOWERED_OUTPUT.member(_DISCLOSURE_WORDS)
_MARKER_SET = LOWERED_OUTPUT.member(lower(w) for w in _WORDS)


def _marker_places(output: str, low: str) -> list[int]:
    """Where a marker word occurs in ``output`` (every ``_MARKER_WORD`` match starts
    at one); ``low`` is ``output.lower()``, whose one-pass family says which
    words can occur at all."""
    places: list[int] = []
    present = _MARKER_SET.present(low)
    if present:
        for w in _WORDS:
            if lower(w) in present:
                i = output.find(w)
                while i >= 0:
                    places.append(i)
                    i = output.find(w, i + 1)
    return places


def _may_match_in(name: str, present: frozenset[str]) -> bool:
    """``_may_match(name, low)`` given ``present = _NEEDS_SET.present(low)``."""
    needs = _NEEDS_SETS.get(name)
    return needs is None or not needs.isdisjoint(present)


_CODE_SCAN = tuple((name, _line_scoped(rx)) for name, rx in _CODE_STUBS)
_PROSE_SCAN = tuple((name, _line_scoped(rx)) for name, rx in _PROSE_STUBS)


def _twin(rx: re.Pattern[str]) -> re.Pattern[str] | None:
    try:
        return _line_scoped(lowered_twin(rx))
    except ValueError:  # an uppercase literal in the pattern: no twin
        return None


# Line-scoped lowered twins (see ``lowered_twin``): run on the lowered output
# when it is ASCII, where they match at the same offsets, several times faster.
_SCAN_TWINS: dict[str, re.Pattern[str] | None] = {
    name: _twin(rx) for name, rx in (*_CODE_STUBS, *_PROSE_STUBS)
}
_RANK_MARKER, _RANK_CUSTOM, _RANK_CODE, _RANK_EMPTY, _RANK_PROSE = 0, 1, 2, 20, 21


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _live_lines(output: str, lines: list[tuple[int, str]]) -> tuple[list[bool], list[bool]]:
    """Per line: is it delivered work (not a fence, docstring or removed diff
    line), and is it inside a code fence. One cheap pass, no regex."""
    live: list[bool] = []
    code: list[bool] = []
    in_doc = in_code = False
    diffish = "```diff" in output or "\n@@ " in output
    for _, line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            live.append(False)
        elif stripped.count('"""') + stripped.count("'''") == 1:
            in_doc = not in_doc
            live.append(False)
        else:
            live.append(not in_doc and not (diffish and line.startswith("-")))
        code.append(in_code)
    return live, code


def _abstract_above(lines: list[tuple[int, str]], idx: int) -> bool:
    return any(_ABSTRACT.search(lines[j][1]) for j in range(max(0, idx - 4), idx))


@lru_cache(maxsize=64)
def _custom_markers(markers: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """The configured markers matched as phrases (not a marker word), each with
    the lowered form searched for. A lowered form holding a line break never
    yields a hit (hits are per line), so it is not searched at all."""
    out = ((m, lower(m)) for m in markers if m.upper() not in _WORDS)
    return tuple((m, needle) for m, needle in out if "\n" not in needle)


# More literals the lowered twins need, each group one of whose literals a
# match must hold (read off the patterns): "remaining" opens with one of three
# words and names one of a dozen nouns before the words _NEEDS lists, a
# deferral goes on with one of five phrases, a "goes here" comment and a
# "for now" comment open with a comment mark. Only for the twins on lowered
# ASCII text, where every match is those characters of the lowered output;
# asked of the same family pass. Why: the worker's short answers hold "left",
# "follow", "here", "until" or "let me" often, and each then cost a whole-text
# run of a pattern led by ``\b`` (tried at every character), ~25 us an output.
_TWIN_GATES: dict[str, tuple[frozenset[str], ...]] = {
    "remaining": (
        frozenset(("remaining", "rest of the", "other")),
        frozenset(
            (
                "methods",
                "functions",
                "endpoints",
                "conversions",
                "sections",
                "paragraphs",
                "handlers",
                "transitions",
                "tests",
                "cases",
                "fields",
                "pieces",
            )
        ),
    ),
    "deferral": (
        frozenset(("look into", "get back to you", "follow up", "circle back", "check on")),
    ),
    "goes_here": (frozenset(("#", "//", "--", "/*")), frozenset(("goes here", "go here"))),
    "for_now": (
        frozenset(("#", "//")),
        frozenset(("simplified", "stubbed", "hardcoded", "hard-coded", "fake", "mock", "dummy")),
    ),
}
_TWIN_GATE_SET = LOWERED_OUTPUT.member(lit for gs in _TWIN_GATES.values() for g in gs for lit in g)

# The scan patterns in ranking order, each with the literals it needs: one
# tuple walked only when some needed literal occurs (usually none does).
_Scan = tuple[
    int, str, re.Pattern[str], re.Pattern[str] | None, frozenset[str], tuple[frozenset[str], ...]
]
_SCANS: tuple[_Scan, ...] = tuple(
    (rank + k, name, rx, _SCAN_TWINS[name], _NEEDS_SETS[name], _TWIN_GATES.get(name, ()))
    for rank, table in ((_RANK_CODE, _CODE_SCAN), (_RANK_PROSE, _PROSE_SCAN))
    for k, (name, rx) in enumerate(table)
)
_NEEDS_OWN = frozenset(_NEEDS_SET.literals)
# What decides how lines are read: a fence, a docstring quote, a diff hunk,
# a line break. Each occurs in an output exactly when it occurs in the
# lowered output: ``str.lower`` maps these characters to themselves and no
# other character to a string holding one of them (tested over every code
# point), so the family pass over the lowered output answers them.
_STRUCTURE = ("```", '"""', "'''", "\n@@ ", "\n")
_STRUCTURE_SET = LOWERED_OUTPUT.member(_STRUCTURE)
# The default configuration's custom markers (lowered), in the same pass: one
# of them is searched for only where the pass saw it.
_DEFAULT_NEEDLES = LOWERED_OUTPUT.member(
    needle for _, needle in _custom_markers(DEFAULT_STUB_MARKERS) if needle.isascii()
)
_GATED_NEEDLES = frozenset(_DEFAULT_NEEDLES.literals)
# The marker words with their lowered forms (the family reports lowered words).
_WORD_PAIRS: tuple[tuple[str, str], ...] = tuple((w, lower(w)) for w in _WORDS)


def _word_char(c: str) -> bool:
    """``re``'s ``\\w`` on one character (str patterns): alphanumeric or '_'."""
    return c.isalnum() or c == "_"


# The compiled marker scan (evaluators/rules/_stubkernel.c); absent when the
# extension was not built, and then the reference below runs.
try:
    from evaluators.rules import _stubkernel
except ImportError:  # pragma: no cover - depends on the build
    _stubkernel = None  # type: ignore[assignment]


def _marker_hits(output: str, found: frozenset[str]) -> list[tuple[int, int, str]]:
    """:func:`_marker_hits_reference`, by the C kernel when it was built."""
    if _stubkernel is not None:
        return _stubkernel.marker_hits(output, _WORD_PAIRS, found)
    return _marker_hits_reference(output, found)


def _marker_hits_reference(output: str, found: frozenset[str]) -> list[tuple[int, int, str]]:
    """``(start, end, lowered word)`` of each ``_MARKER_WORD`` match in ``output``,
    by start; ``found`` is the lowered output's family result.

    A match is an occurrence of a marker word (upper case, so ``find`` on
    ``output``) with a word boundary on both sides: the words begin and end
    with letters and no two begin alike, so at most one matches at a place and
    an occurrence inside an earlier match has a letter before it and is no
    match either way, which is what ``finditer``'s resume would skip."""
    out: list[tuple[int, int, str]] = []
    n = len(output)
    for w, lw in _WORD_PAIRS:
        if lw not in found:
            continue
        size = len(w)
        i = output.find(w)
        while i >= 0:
            e = i + size
            if (i == 0 or not _word_char(output[i - 1])) and (e == n or not _word_char(output[e])):
                out.append((i, e, lw))
            i = output.find(w, i + 1)
    if len(out) > 1:
        out.sort()
    return out


def find_stubs(
    output: str, ask: str, markers: tuple[str, ...], low: str | None = None
) -> list[StubHit]:
    """Stub signals on delivered lines, in line order (markers, custom markers,
    code shapes, empty bodies, prose), at most one hit per pattern per line.
    ``low``, when given, is ``output.lower()`` (the context's shared view).

    Exactly :func:`find_stubs_reference`, with its work gated by the one
    family pass over the lowered output: an output with no fence, no
    docstring quote and no diff hunk has every line delivered and none in
    code (so no empty body), established without classifying lines; a
    one-line output needs no line lookup; the marker words are checked for
    boundaries directly; a default custom marker is searched for only when it
    occurs; the scan patterns are visited only when one of their literals
    occurs.
    """
    ask_low = lower(ask)
    marker_is_deliverable = any(w in ask_low for w in _ASK_WORDS)
    low_all = lower(output) if low is None else low
    # one family pass answers the structure literals, the marker words, the
    # default custom markers and the scan patterns' needs
    found = _NEEDS_SET.family.present(low_all)
    present = found & _NEEDS_OWN if found else found
    # no fence, no docstring quote, no diff hunk (whose removed lines are not
    # delivered); each is in ``output`` exactly when it is in ``low_all``
    plain = not ("```" in found or '"""' in found or "'''" in found or "\n@@ " in found)
    multiline = "\n" in found
    lines: list[tuple[int, str]] | None = None
    starts: list[int] = []
    live: list[bool] = []
    code: list[bool] = []
    if multiline or not plain:
        lines = _lines(output)
        starts = [p for p, _ in lines]
        if not plain:
            live, code = _live_lines(output, lines)
    ranked: list[tuple[int, int, int, StubHit]] = []

    def line_of(pos: int) -> int:
        return bisect_right(starts, pos) - 1 if multiline else 0

    if not marker_is_deliverable:
        for s, e, lw in _marker_hits(output, found):
            li = line_of(s) if multiline else 0
            if plain or live[li]:
                ranked.append((li, _RANK_MARKER, s, _new_hit(StubHit, (lw, s, e))))
        for mk, needle in _custom_markers(markers):
            if needle in _GATED_NEEDLES and needle not in found:
                continue  # a default marker the family pass did not see
            seen: set[int] = set()
            i = low_all.find(needle)
            while i >= 0:
                li = line_of(i)
                if (plain or live[li]) and li not in seen:
                    seen.add(li)
                    ranked.append((li, _RANK_CUSTOM, i, StubHit("marker", i, i + len(mk))))
                i = low_all.find(needle, i + 1)
    if present:
        ascii_text = output.isascii()
        for rank, name, rx, twin, needs, gates in _SCANS:
            if needs.isdisjoint(present):
                continue
            if not ascii_text:
                twin = None
            elif twin is not None and gates and any(g.isdisjoint(found) for g in gates):
                continue  # the twin's match would hold a literal of each gate (_TWIN_GATES)
            seen_lines: set[int] = set()
            hits = twin.finditer(low_all) if twin is not None else rx.finditer(output)
            for hit in hits:
                start = hit.start()
                li = line_of(start)
                if not (plain or live[li]) or li in seen_lines:
                    continue
                seen_lines.add(li)
                if name == "not_implemented":
                    if lines is None:
                        lines = _lines(output)
                    if _abstract_above(lines, li):
                        continue
                ranked.append((li, rank, start, StubHit(name, start, hit.end())))
    if not plain:
        assert lines is not None
        ranked += _empty_bodies(lines, live, code)
    if len(ranked) > 1:
        ranked.sort(key=_rank_key)
    return [r[3] for r in ranked]


def _empty_bodies(
    lines: list[tuple[int, str]], live: list[bool], code: list[bool]
) -> list[tuple[int, int, int, StubHit]]:
    """A live code line that is only ``pass`` or ``...`` under a definition
    (not an abstract one): an empty body, ranked with the other hits."""
    out: list[tuple[int, int, int, StubHit]] = []
    for idx, (pos, line) in enumerate(lines):
        if idx == 0 or not live[idx] or not code[idx]:
            continue
        stripped = line.strip()
        if stripped not in ("pass", "..."):
            continue
        prev = next((lines[j][1] for j in range(idx - 1, -1, -1) if lines[j][1].strip()), "")
        if _PASS_BODY.match(prev) and not _abstract_above(lines, idx):
            hit = StubHit("empty_body", pos + line.index(stripped), pos + len(line))
            out.append((idx, _RANK_EMPTY, pos, hit))
    return out


def _rank_key_reference(r: tuple[int, int, int, StubHit]) -> tuple[int, int, int]:
    """What :data:`_rank_key` returns (line, rank, start), as a Python function."""
    return (r[0], r[1], r[2])


# ``_rank_key_reference`` as a C callable: the sort calls it once per hit,
# and an output keeping a TODO list holds a dozen hits.
_rank_key = itemgetter(0, 1, 2)


def find_stubs_reference(output: str, ask: str, markers: tuple[str, ...]) -> list[StubHit]:
    """The earlier :func:`find_stubs` (every line classified, markers tried by
    regex, every pattern visited): the tests' reference. Same hits, same order."""
    ask_low = lower(ask)
    marker_is_deliverable = any(w in ask_low for w in _ASK_WORDS)
    custom = _custom_markers(markers)
    lines = _lines(output)
    starts = [p for p, _ in lines]
    live, code = _live_lines(output, lines)
    ranked: list[tuple[int, int, int, StubHit]] = []

    def line_of(pos: int) -> int:
        return bisect_right(starts, pos) - 1

    low_all = lower(output)
    if not marker_is_deliverable:
        for m in tried_at(_MARKER_WORD, output, _marker_places(output, low_all)):
            li = line_of(m.start())
            if live[li]:
                ranked.append(
                    (li, _RANK_MARKER, m.start(), StubHit(lower(m.group(1)), m.start(), m.end()))
                )
        low = low_all
        for mk, needle in custom:
            seen: set[int] = set()
            i = low.find(needle)
            while i >= 0:
                li = line_of(i)
                if live[li] and li not in seen:
                    seen.add(li)
                    ranked.append((li, _RANK_CUSTOM, i, StubHit("marker", i, i + len(mk))))
                i = low.find(needle, i + 1)
    ascii_text = output.isascii()
    present = _NEEDS_SET.present(low_all)
    for rank, table in ((_RANK_CODE, _CODE_SCAN), (_RANK_PROSE, _PROSE_SCAN)):
        for k, (name, rx) in enumerate(table):
            if not _may_match_in(name, present):
                continue
            seen_lines: set[int] = set()
            twin = _SCAN_TWINS[name] if ascii_text else None
            hits = twin.finditer(low_all) if twin is not None else rx.finditer(output)
            for hit in hits:
                li = line_of(hit.start())
                if not live[li] or li in seen_lines:
                    continue
                seen_lines.add(li)
                if name == "not_implemented" and _abstract_above(lines, li):
                    continue
                ranked.append((li, rank + k, hit.start(), StubHit(name, hit.start(), hit.end())))
    ranked += _empty_bodies(lines, live, code)
    ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    return [r[3] for r in ranked]


def no_stub_output(ctx: EvalContext) -> Outcome:
    markers, src = ctx.threshold("stub_markers")
    hits = find_stubs(ctx.output, ctx.input or "", tuple(markers), ctx.output_lower)
    if (
        hits
        and _may_match_in("disclosure", _NEEDS_SET.present(ctx.output_lower))
        and _discloses(ctx.output, ctx.output_lower)
    ):
        return outcome(
            True,
            1.0,
            "Unfinished parts are disclosed as such; a status report, not a stub.",
            [count("stub_signals", "signals", len(hits))],
            saw=("output",),
            asked=src != "default",
        )
    if not hits:
        return outcome(
            True,
            1.0,
            "No placeholder or deferred work found.",
            saw=("output",),
            asked=src != "default",
        )
    kinds: dict[str, int] = {}
    for h in hits:
        kinds[h.name] = kinds.get(h.name, 0) + 1
    ev = [span("output", h.start, h.end, h.name) for h in hits[:12]] + [
        pattern(k, n) for k, n in sorted(kinds.items())
    ][:6]
    return outcome(
        False,
        0.0,
        f"Stub content: {', '.join(sorted(kinds))}.",
        ev,
        saw=("output",),
        asked=src != "default",
    )
