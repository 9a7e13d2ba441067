"""The evidence record every detector returns, and the shared plumbing to build it.

Detectors work in normalised coordinates and produce :class:`Candidate` values;
:func:`finalize` resolves overlaps and maps every survivor back to the raw
text, so the invariant ``raw[f.start:f.end] == f.matched`` holds by construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from evaluators.text.normalize import NormalizedText, normalize


@dataclass(frozen=True, slots=True)
class Finding:
    """One detected span. ``start``/``end`` index the RAW text the caller sent."""

    kind: str
    category: str
    start: int
    end: int
    matched: str
    detail: str


@dataclass(frozen=True, slots=True)
class Candidate:
    """A detection in normalised coordinates, before overlap resolution.

    ``priority`` decides which of two overlapping candidates survives (higher
    wins, then the longer span): a vendor-specific token beats a generic
    ``key=value`` match on the same characters.
    """

    kind: str
    category: str
    start: int
    end: int
    detail: str
    priority: int = 0


@lru_cache(maxsize=16)
def normalized(raw: str) -> NormalizedText:
    """Normalise once per text: the three detectors usually run on the same output."""
    return normalize(raw)


def mask(value: str, keep: int = 4) -> str:
    """Show only the first ``keep`` characters of a secret, so receipts never carry it."""
    value = value.strip()
    if len(value) <= keep + 2:
        return value[:1] + "…"
    return value[:keep] + "…"


def _wins(a: Candidate, b: Candidate) -> bool:
    return (a.priority, a.end - a.start) > (b.priority, b.end - b.start)


def resolve_overlaps(cands: Iterable[Candidate]) -> list[Candidate]:
    """Keep a non-overlapping subset, preferring higher priority then longer spans.

    Single sweep over candidates sorted by start: only the last kept span can
    overlap the next one, so this stays O(k log k) even for adversarial input.
    """
    kept: list[Candidate] = []
    for c in sorted(cands, key=lambda c: (c.start, -c.priority, c.start - c.end)):
        if c.end <= c.start:
            continue
        if kept and c.start < kept[-1].end:
            if _wins(c, kept[-1]):
                kept[-1] = c
            continue
        kept.append(c)
    return kept


def finalize(norm: NormalizedText, cands: Iterable[Candidate]) -> list[Finding]:
    """Resolve overlaps and map to raw offsets; drop any raw-level overlap left by
    NFKC expansions (two normalised chars from one raw char)."""
    out: list[Finding] = []
    last_end = -1
    raw = norm.raw
    for c in resolve_overlaps(cands):
        s, e = norm.raw_span(c.start, c.end)
        if s < last_end or e <= s:
            continue
        out.append(Finding(c.kind, c.category, s, e, raw[s:e], c.detail))
        last_end = e
    return out
