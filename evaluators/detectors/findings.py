"""The evidence record every detector returns, and the shared plumbing to build it.

Detectors work in normalised coordinates and produce :class:`Candidate` values;
:func:`finalize` resolves overlaps and maps every survivor back to the raw
text, so the invariant ``raw[f.start:f.end] == f.matched`` holds by construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from operator import itemgetter
from typing import NamedTuple

from evaluators.text.case import lower
from evaluators.text.normalize import NormalizedText, normalize

# The compiled plain-ASCII fold (evaluators/detectors/_piikernel.c); without
# it :func:`_ascii_view` is the reference and :func:`normalize` does the work.
try:
    from evaluators.detectors import _piikernel
except ImportError:  # pragma: no cover - depends on the build
    _piikernel = None  # type: ignore[assignment]

# The overlap sweep and the identity view's findings
# (evaluators/detectors/_findkernel.c); without it the Python below runs.
try:
    from evaluators.detectors import _findkernel
except ImportError:  # pragma: no cover - depends on the build
    _findkernel = None  # type: ignore[assignment]

# Printable ASCII and the ASCII whitespace ``normalize`` folds to a space.
_PLAIN = frozenset(map(chr, range(0x20, 0x7F))) | frozenset("\t\n\r\x0b\x0c")
_FOLD = str.maketrans("\t\n\r\x0b\x0c", "     ")


class Finding(NamedTuple):
    """One detected span. ``start``/``end`` index the RAW text the caller sent.

    A NamedTuple rather than a frozen dataclass: a detector builds several per
    evaluation and a tuple is built in C, well over twice as fast. Fields,
    keyword construction, equality between findings, hashing and pickling are
    as before; being a tuple it also unpacks.
    """

    kind: str
    category: str
    start: int
    end: int
    matched: str
    detail: str


class Candidate(NamedTuple):
    """A detection in normalised coordinates, before overlap resolution.

    ``priority`` decides which of two overlapping candidates survives (higher
    wins, then the longer span): a vendor-specific token beats a generic
    ``key=value`` match on the same characters. A NamedTuple for the same
    reason as :class:`Finding`: detectors build dozens per evaluation.
    """

    kind: str
    category: str
    start: int
    end: int
    detail: str
    priority: int = 0


# ``tuple.__new__`` on the class skips the NamedTuple's Python-level __new__.
_new_tuple = tuple.__new__


def _ascii_view(raw: str) -> str | None:
    """The text of ``normalize(raw)`` when that view is the identity on plain
    ASCII (every character printable or ASCII whitespace, and no run of two
    spaces after folding), else None: the reference for
    ``_piikernel.ascii_fold``."""
    if not raw.isascii() or not _PLAIN.issuperset(raw):
        return None
    text = lower(raw).translate(_FOLD)
    return None if "  " in text else text


@lru_cache(maxsize=16)
def normalized(raw: str) -> NormalizedText:
    """Normalise once per text: the three detectors usually run on the same output.

    Most outputs are plain ASCII whose view is the identity; the kernel folds
    those in one pass and the view is built without ``normalize``'s several
    passes (which it would build the same way)."""
    if _piikernel is not None:
        text = _piikernel.ascii_fold(raw)
        if text is not None:
            return NormalizedText.identity(raw, text)
    return normalize(raw)


def mask(value: str, keep: int = 4) -> str:
    """Show only the first ``keep`` characters of a secret, so receipts never carry it."""
    value = value.strip()
    if len(value) <= keep + 2:
        return value[:1] + "…"
    return value[:keep] + "…"


# Candidate.start, read in C by the sort.
_by_start = itemgetter(2)


def resolve_overlaps(cands: Iterable[Candidate]) -> list[Candidate]:
    """:func:`resolve_overlaps_reference`, by the C kernel when ``cands`` is a
    list of Candidate records with plain int fields (what the detectors
    build); the sweep is a Python step per candidate, several dozen a text."""
    if _findkernel is not None and type(cands) is list:
        kept: list[Candidate] | None = _findkernel.resolve(cands, Candidate)
        if kept is not None:
            return kept
    return resolve_overlaps_reference(cands)


def resolve_overlaps_reference(cands: Iterable[Candidate]) -> list[Candidate]:
    """Keep a non-overlapping subset, preferring higher priority then longer spans.

    Single sweep over candidates sorted by start: only the last kept span can
    overlap the next one, so this stays O(k log k) even for adversarial input.
    The kept list therefore holds non-empty spans, each starting at or after
    the end of the one before.

    The sort is on ``start`` alone (stable), not on ``(start, -priority,
    -length)``: candidates sharing a start all overlap one another, so the
    sweep's replace-if-strictly-better keeps the first of the best of them
    either way, and an earlier span is beaten by that best or by none. Same
    survivors, without a Python key function per candidate.
    """
    kept: list[Candidate] = []
    last: Candidate | None = None
    for c in sorted(cands, key=_by_start):
        start = c.start
        end = c.end
        if end <= start:
            continue
        if last is not None and start < last.end:
            # c wins on (priority, length); ties keep the one seen first.
            if (c.priority, end - start) > (last.priority, last.end - last.start):
                kept[-1] = last = c
            continue
        kept.append(c)
        last = c
    return kept


def finalize(norm: NormalizedText, cands: Iterable[Candidate]) -> list[Finding]:
    """Resolve overlaps and map to raw offsets; drop any raw-level overlap left by
    NFKC expansions (two normalised chars from one raw char).

    When the view is the identity (plain ASCII, the common case) normalised
    spans are raw spans and the kept spans cannot overlap, so no mapping or
    overlap check is needed (a span outside the text still takes the checked
    path, which raises).
    """
    raw = norm.raw
    kept = resolve_overlaps(cands)
    if norm.is_identity and (not kept or (kept[0].start >= 0 and kept[-1].end <= len(norm.text))):
        if _findkernel is not None and len(raw) == len(norm.text):
            found: list[Finding] = _findkernel.spans(kept, raw, Finding)
            return found
        return [
            _new_tuple(Finding, (kind, category, s, e, raw[s:e], detail))
            for kind, category, s, e, detail, _ in kept
        ]
    out: list[Finding] = []
    last_end = -1
    raw_span = norm.raw_span
    for c in kept:
        s, e = raw_span(c.start, c.end)
        if s < last_end or e <= s:
            continue
        out.append(_new_tuple(Finding, (c.kind, c.category, s, e, raw[s:e], c.detail)))
        last_end = e
    return out
