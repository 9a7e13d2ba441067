"""``no_stub_output``: placeholder or deferred work in place of the work itself.

Signals are read line by line; lines a diff removes and lines inside a
docstring are not the delivered work, and markers the ask itself names are
the deliverable (an inventory of open items), not a stub. An output that honestly says
which part is unfinished is a status report, not a stub.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from evaluators.config import STUB_MARKER_TABLE
from evaluators.context import EvalContext
from evaluators.rules.base import Outcome, count, pattern, span
from evaluators.rules.scan import lowered_twin, prefiltered_finditer, prefiltered_search
from evaluators.text.literals import LOWERED_OUTPUT

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
_DISCLOSURE_LOWER = re.compile(_DISCLOSURE.pattern.lower())
_DISCLOSURE_STARTS = re.compile(
    r"not |have not |haven't |still |is |are |blocked|remaining work|do not rely|don't rely|"
    r"todo stub"
)
# Where a _MARKER_WORD match can begin: one of its literals (case-sensitive).
_WORDS: tuple[str, ...] = tuple(STUB_MARKER_TABLE["words"])
_ASK_WORDS: tuple[str, ...] = tuple(STUB_MARKER_TABLE["ask_words"])
_MARKER_WORD = re.compile(r"\b(" + "|".join(map(re.escape, _WORDS)) + r")\b")
_MARKER_STARTS = re.compile("|".join(map(re.escape, _WORDS)))


def _discloses(output: str, low: str) -> bool:
    """``_DISCLOSURE.search(output)`` is not None; ``low`` is ``output.lower()``."""
    if output.isascii():
        return prefiltered_search(_DISCLOSURE_LOWER, _DISCLOSURE_STARTS, low) is not None
    return _DISCLOSURE.search(output) is not None


_PASS_BODY = re.compile(r"^(\s*)(?:async\s+)?def\s+\w+\s*\([^)]*\)[^:]*:\s*$")
_ABSTRACT = re.compile(r"@abstractmethod|@abc\.abstractmethod|@overload|Protocol\)")


@dataclass(frozen=True, slots=True)
class StubHit:
    name: str
    start: int
    end: int


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


def find_stubs(output: str, ask: str, markers: tuple[str, ...]) -> list[StubHit]:
    """Stub signals on delivered lines, in line order (markers, custom markers,
    code shapes, empty bodies, prose), at most one hit per pattern per line."""
    ask_low = ask.lower()
    marker_is_deliverable = any(w in ask_low for w in _ASK_WORDS)
    custom = [m for m in markers if m.upper() not in _WORDS]
    lines = _lines(output)
    starts = [p for p, _ in lines]
    live, code = _live_lines(output, lines)
    ranked: list[tuple[int, int, int, StubHit]] = []

    def line_of(pos: int) -> int:
        return bisect_right(starts, pos) - 1

    if not marker_is_deliverable:
        for m in prefiltered_finditer(_MARKER_WORD, _MARKER_STARTS, output):
            li = line_of(m.start())
            if live[li]:
                ranked.append(
                    (li, _RANK_MARKER, m.start(), StubHit(m.group(1).lower(), m.start(), m.end()))
                )
        low = output.lower()
        for mk in custom:
            needle = mk.lower()
            seen: set[int] = set()
            i = low.find(needle)
            while i >= 0:
                li = line_of(i)
                if live[li] and li not in seen and "\n" not in needle:
                    seen.add(li)
                    ranked.append((li, _RANK_CUSTOM, i, StubHit("marker", i, i + len(mk))))
                i = low.find(needle, i + 1)
    low_all = output.lower()
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
    for idx, (pos, line) in enumerate(lines):
        stripped = line.strip()
        if idx == 0 or not live[idx] or not code[idx] or stripped not in ("pass", "..."):
            continue
        prev = next((lines[j][1] for j in range(idx - 1, -1, -1) if lines[j][1].strip()), "")
        if _PASS_BODY.match(prev) and not _abstract_above(lines, idx):
            ranked.append(
                (
                    idx,
                    _RANK_EMPTY,
                    pos,
                    StubHit("empty_body", pos + line.index(stripped), pos + len(line)),
                )
            )
    ranked.sort(key=lambda r: (r[0], r[1], r[2]))
    return [r[3] for r in ranked]


def no_stub_output(ctx: EvalContext) -> Outcome:
    markers, src = ctx.threshold("stub_markers")
    hits = find_stubs(ctx.output, ctx.input or "", tuple(markers))
    if (
        hits
        and _may_match("disclosure", ctx.output_lower)
        and _discloses(ctx.output, ctx.output_lower)
    ):
        return Outcome(
            True,
            1.0,
            "Unfinished parts are disclosed as such; a status report, not a stub.",
            [count("stub_signals", "signals", len(hits))],
            saw=("output",),
            asked=src != "default",
        )
    if not hits:
        return Outcome(
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
    return Outcome(
        False,
        0.0,
        f"Stub content: {', '.join(sorted(kinds))}.",
        ev,
        saw=("output",),
        asked=src != "default",
    )
