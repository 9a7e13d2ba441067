"""``finditer`` for patterns that open with a lookbehind, tried only where a
match can begin.

re cannot skip ahead on a pattern that starts with a lookbehind (or ``\\b``),
so ``finditer`` runs the matcher at every character. Many of the engine's
token patterns have two properties that make almost every attempt pointless:

* the lookbehind refuses every character of some run class (say ``[\\w.]``),
  and every character a match consumes before its anchor is of that class,
  so a match can only begin where a maximal run of the class begins;
* every match holds a short, cheaply found *anchor* (a dot before a letter,
  a digit-dot-digit) inside that run.

:func:`anchored_finditer` finds the anchors, walks back to the start of the
run holding each and attempts the pattern there, once per run, in order. It
yields exactly the matches ``pattern.finditer(text)`` yields, provided the
two properties hold for the pattern (each caller states why they do).
``Pattern.match(text, pos)`` sees the characters before ``pos``, so the
pattern's own lookbehind still decides at the run start.

Two more shortcuts with the same contract (the same matches, at the same
offsets): :func:`prefiltered_finditer` attempts a ``\b``-led pattern only
where a case-sensitive literal it opens with occurs, and
:func:`lowered_twin` turns an all-lowercase ``re.I`` pattern into a
case-sensitive one for lowered ASCII text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache

from evaluators.text.case import lower
from evaluators.text.starts import class_mask

# The compiled run finder (evaluators/text/_scankernel.c); without it the run
# around each anchor is walked by ``run`` itself, with the same bounds.
try:
    from evaluators.text import _scankernel
except ImportError:  # pragma: no cover - depends on the build
    _scankernel = None  # type: ignore[assignment]


def _reach(extent: Callable[[str, int], re.Match[str] | None], text: str, i: int) -> int:
    """Where the run that starts at ``i`` ends (a starred class always matches)."""
    m = extent(text, i)
    return m.end() if m is not None else i


@lru_cache(maxsize=64)
def run_table(run: re.Pattern[str]) -> bytes:
    """The ASCII characters of the starred one-class pattern ``run``, as a
    128-byte table (1 = in the class) for ``_scankernel.run_bounds``: on
    ASCII text a run of ``run`` is a run of those characters."""
    marks = bytearray(128)
    for c in range(128):
        m = run.match(chr(c))
        marks[c] = m is not None and m.end() == 1
    return bytes(marks)


def anchored_finditer(
    pattern: re.Pattern[str],
    anchor: re.Pattern[str],
    text: str,
    run: re.Pattern[str],
    anchor_shape: bytes | None = None,
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` when each match starts where a maximal run
    of ``run`` characters starts (``run`` is one character class, starred:
    ``[\\w.]*``) and holds an ``anchor`` match in that run; the pattern must
    not match the empty string. Run starts are found on the reversed text,
    so every walk over a run is re's, not a Python loop.

    ``anchor_shape`` (optional) is where ``anchor`` matches on ASCII text, as
    a :func:`~evaluators.text.starts.class_mask` shape (``b"1.1"`` for
    ``\\d\\.\\d``): the anchors are then found with ``bytes.find``."""
    mask = class_mask(text) if anchor_shape is not None else None
    if mask is not None and anchor_shape is not None:
        shape, shape_find = anchor_shape, mask.find

        def next_anchor(pos: int) -> int:
            return shape_find(shape, pos)
    else:
        search = anchor.search

        def next_anchor(pos: int) -> int:
            a = search(text, pos)
            return -1 if a is None else a.start()

    match = pattern.match
    run_of = _run_finder(run, text)
    pos = 0  # as in finditer: every start before ``pos`` is settled
    scan = 0
    while True:
        i = next_anchor(scan)
        if i < 0:
            return
        p, run_end = run_of(i)  # the run's first character, and where it ends
        # every later anchor of this run shares its start: skip past the run
        scan = max(run_end, i + 1)
        if p < pos:  # tried already, or inside a match
            continue
        m = match(text, p)
        if m is None:
            pos = p + 1
            continue
        yield m
        pos = m.end()
        scan = max(scan, pos)


def _run_finder(run: re.Pattern[str], text: str) -> Callable[[int], tuple[int, int]]:
    """``i -> (start, end)`` of the maximal ``run`` around anchor ``i``: by the
    C kernel on ASCII text, else by :func:`run_bounds_plain`."""
    if _scankernel is not None and text.isascii():
        table = run_table(run)
        bounds = _scankernel.run_bounds

        def of(i: int) -> tuple[int, int]:
            return bounds(text, table, i)

        return of
    rev: list[str] = []

    def plain(i: int) -> tuple[int, int]:
        if not rev:
            rev.append(text[::-1])
        return run_bounds_plain(run, text, i, rev[0])

    return plain


def run_bounds_plain(
    run: re.Pattern[str], text: str, i: int, rev: str | None = None
) -> tuple[int, int]:
    """Where the run of ``run`` characters holding the anchor at ``i`` starts
    (walking back from ``i - 1``, on the reversed text ``rev``, so the walk is
    re's) and where the run starting at ``i`` ends: the reference of
    ``_scankernel.run_bounds``."""
    n = len(text)
    back = text[::-1] if rev is None else rev
    return n - _reach(run.match, back, n - i), _reach(run.match, text, i)


def _candidates(
    pattern: re.Pattern[str], starts: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    find = starts.search
    match = pattern.match
    pos = 0
    while True:
        c = find(text, pos)
        if c is None:
            return
        m = match(text, c.start())
        if m is None:
            pos = c.start() + 1
            continue
        yield m
        pos = m.end() if m.end() > m.start() else m.start() + 1


def prefiltered_finditer(
    pattern: re.Pattern[str], starts: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern that opens with ``\\b`` or a
    lookbehind and never matches the empty string: ``starts`` (a literal
    alternation re can scan for quickly, same flags) matches at every
    position a match of ``pattern`` can begin, and ``pattern`` is attempted
    only there."""
    return _candidates(pattern, starts, text)


def prefiltered_search(
    pattern: re.Pattern[str], starts: re.Pattern[str], text: str
) -> re.Match[str] | None:
    """``pattern.search(text)`` under the contract of :func:`prefiltered_finditer`."""
    return next(_candidates(pattern, starts, text), None)


def lowered_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The same all-lowercase ``re.I`` pattern, case-sensitive, for lowered
    ASCII text. On ASCII text ``str.lower`` folds exactly the letters re.I
    folds and keeps every offset, so the twin on ``text.lower()`` matches
    where the pattern matches on ``text``, at the same offsets (group text
    comes back lowercased). A case-sensitive scan is several times faster.
    Only an all-lowercase source qualifies: an uppercase letter in a class
    range or an escape (``\\W``) would change meaning when lowered."""
    src = pattern.pattern
    if not pattern.flags & re.IGNORECASE or src != lower(src):
        raise ValueError(f"not an all-lowercase re.I pattern: {src[:60]!r}")
    return re.compile(src, pattern.flags & ~re.IGNORECASE)
