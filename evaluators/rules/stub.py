"""``no_stub_output``: placeholder or deferred work in place of the work itself.

Signals are read line by line; lines a diff removes and lines inside a
docstring are not the delivered work, and markers the ask itself names are
the deliverable (a TODO inventory), not a stub. An output that honestly says
which part is unfinished is a status report, not a stub.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evaluators.context import EvalContext
from evaluators.rules.base import Outcome, count, pattern, span

_CODE_STUBS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("not_implemented", re.compile(r"raise\s+NotImplementedError|throw\s+new\s+Error\(\s*['\"`]not implemented|unimplemented!\(|todo!\(", re.I)),
    ("not_implemented_message", re.compile(r"['\"`][^'\"`\n]{0,40}\bnot (?:yet )?implemented\b[^'\"`\n]{0,20}['\"`]", re.I)),
    ("goes_here", re.compile(r"(?:#|//|--|/\*)\s*[^\n]{0,40}\b(?:goes|go) here\b", re.I)),
    ("for_now", re.compile(r"(?:#|//)\s*[^\n]{0,30}\b(?:simplified|stubbed|hardcoded|hard-coded|fake|mock(?:ed)?|dummy)\b[^\n]{0,30}(?:for now|until)", re.I)),
    ("ellipsis_body", re.compile(r"^\s*(?:#|//)\s*\.\.\.\s*(?:rest|remaining|more|other|etc)", re.I)),
)
_PROSE_STUBS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("exercise", re.compile(r"\bleft as an exercise\b|\bas an exercise for the reader\b", re.I)),
    ("omitted", re.compile(r"\b(?:omitted|elided|left out|skipped)\s+(?:here\s+)?(?:for brevity|to keep|for space|for readability)|\bfor brevity\b", re.I)),
    ("same_pattern", re.compile(r"\b(?:follow(?:ing)?|using|apply|with)\s+(?:the\s+)?(?:same|this exact|this|that)\s+(?:pattern|register|approach|structure|shape)\b", re.I)),
    ("remaining", re.compile(r"\b(?:the\s+)?(?:remaining|rest of the|other)\s+(?:\d+\s+|\w+\s+){0,2}(?:methods|functions|endpoints|conversions|sections|paragraphs|handlers|transitions|tests|cases|fields|pieces)\b[^.\n]{0,80}\b(?:same|similar|pattern|yourself|you can|left|omitted|follow)", re.I)),
    ("you_can_add", re.compile(r"\byou can (?:implement|add|fill in|write|finish|complete) (?:the |them|these|it|those|remaining|rest)", re.I)),
    ("deferral", re.compile(r"\b(?:i'll|i will|let me)\s+(?:look into|get back to you|follow up|circle back|check on)\b", re.I)),
)
_DISCLOSURE = re.compile(
    r"\b(?:not (?:yet )?(?:finished|done|complete|implemented|working|wired)|have not (?:finished|implemented|done)|haven't (?:finished|implemented|done)|"
    r"still (?:a )?stubs?\b|(?:is|are) (?:still )?stubs?\b|\bBLOCKED\b|remaining work|do not rely|don't rely|TODO stubs?)",
    re.I,
)
_MARKER_WORD = re.compile(r"\b(TODO|FIXME|TBD|XXX|HACK|PLACEHOLDER)\b")
_PASS_BODY = re.compile(r"^(\s*)(?:async\s+)?def\s+\w+\s*\([^)]*\)[^:]*:\s*$")
_ABSTRACT = re.compile(r"@abstractmethod|@abc\.abstractmethod|@overload|Protocol\)")


@dataclass(frozen=True, slots=True)
class StubHit:
    name: str
    start: int
    end: int


def _lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pos = 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def find_stubs(output: str, ask: str, markers: tuple[str, ...]) -> list[StubHit]:
    hits: list[StubHit] = []
    ask_low = ask.lower()
    marker_is_deliverable = any(w in ask_low for w in ("todo", "fixme", "stub", "placeholder", "tbd"))
    custom = [m for m in markers if m.upper() not in {"TODO", "FIXME", "TBD", "XXX", "HACK", "PLACEHOLDER"}]
    in_doc = False
    in_code = False
    diffish = "```diff" in output or "\n@@ " in output
    lines = _lines(output)
    for idx, (pos, line) in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            continue
        if stripped.count('"""') + stripped.count("'''") == 1:
            in_doc = not in_doc
            continue
        if in_doc:
            continue
        if diffish and line.startswith("-"):
            continue
        if not marker_is_deliverable:
            for m in _MARKER_WORD.finditer(line):
                hits.append(StubHit(m.group(1).lower(), pos + m.start(), pos + m.end()))
            low = line.lower()
            for mk in custom:
                i = low.find(mk.lower())
                if i >= 0:
                    hits.append(StubHit("marker", pos + i, pos + i + len(mk)))
        for name, rx in _CODE_STUBS:
            m = rx.search(line)
            if m and not (name == "not_implemented" and any(_ABSTRACT.search(lines[j][1]) for j in range(max(0, idx - 4), idx))):
                hits.append(StubHit(name, pos + m.start(), pos + m.end()))
        if in_code and stripped in ("pass", "...") and idx > 0:
            prev = next((lines[j][1] for j in range(idx - 1, -1, -1) if lines[j][1].strip()), "")
            if _PASS_BODY.match(prev) and not any(_ABSTRACT.search(lines[j][1]) for j in range(max(0, idx - 4), idx)):
                hits.append(StubHit("empty_body", pos + line.index(stripped), pos + len(line)))
        for name, rx in _PROSE_STUBS:
            m = rx.search(line)
            if m:
                hits.append(StubHit(name, pos + m.start(), pos + m.end()))
    return hits


def no_stub_output(ctx: EvalContext) -> Outcome:
    markers, src = ctx.threshold("stub_markers")
    hits = find_stubs(ctx.output, ctx.input or "", tuple(markers))
    if hits and _DISCLOSURE.search(ctx.output):
        return Outcome(True, 1.0, "Unfinished parts are disclosed as such; a status report, not a stub.", [count("stub_signals", "signals", len(hits))], saw=("output",), asked=src != "default")
    if not hits:
        return Outcome(True, 1.0, "No placeholder or deferred work found.", saw=("output",), asked=src != "default")
    kinds: dict[str, int] = {}
    for h in hits:
        kinds[h.name] = kinds.get(h.name, 0) + 1
    ev = [span("output", h.start, h.end, h.name) for h in hits[:12]] + [pattern(k, n) for k, n in sorted(kinds.items())][:6]
    return Outcome(False, 0.0, f"Stub content: {', '.join(sorted(kinds))}.", ev, saw=("output",), asked=src != "default")
