"""Cheap pre-filters that let a detector run its regex on a few windows, not the whole text.

Why: Python's ``re`` only scans quickly when a pattern begins with a literal
(it then jumps between occurrences in C). A pattern that begins with a
lookbehind, a character class or an alternation is *tried at every
position* - about 30 ns per character, i.e. ~60 µs per 2 KB per pattern.
The detectors have dozens of such patterns, so the cost is dominated by
trying them where they cannot possibly match.

The tools here keep every detector's results identical while skipping that
work:

* :func:`windowed_finditer` yields exactly what ``rx.finditer(text)`` yields,
  given the positions of something every match must contain (an *anchor*):
  the pattern only runs in windows around those positions.
* :class:`Anchors` finds anchor positions with literal-led searches (C speed),
  optionally tolerating the one-space-per-letter gap the phrase patterns allow.
* :func:`free_start` emulates a leading negative lookbehind in Python, so a
  pattern can begin with its literal part and keep the C fast path.
* :class:`GateFamily` answers the gate and start-place questions of many
  :class:`GatedPattern` values (and plain literal groups) in one pass over
  the text, by the C scan kernel when it is built.
"""

from __future__ import annotations

import re
import re._parser as _sre_parse
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import NamedTuple

from evaluators.text.starts import tried_at

# The compiled literal scans (evaluators/text/_scankernel.c); absent when the
# package was installed without a C compiler, and then GateFamily runs its
# Python reference instead, with the same results.
try:
    from evaluators.text import _scankernel
except ImportError:  # pragma: no cover - depends on the build
    _scankernel = None  # type: ignore[assignment]


def max_width(rx: re.Pattern[str]) -> int:
    """Longest text ``rx`` can match (raises for unbounded patterns)."""
    width = int(_sre_parse.parse(rx.pattern, rx.flags).getwidth()[1])
    if width >= int(_sre_parse.MAXREPEAT):
        raise ValueError(f"pattern is unbounded: {rx.pattern[:60]!r}")
    return width


def windows(positions: Iterable[int], before: int, after: int, n: int) -> list[tuple[int, int]]:
    """Merged, sorted ``[lo, hi)`` windows ``[p - before, p + after]`` clipped to ``[0, n]``."""
    out: list[tuple[int, int]] = []
    for p in sorted(positions):
        lo, hi = max(0, p - before), min(n, p + after + 1)
        if out and lo <= out[-1][1]:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return out


def windowed_finditer(
    rx: re.Pattern[str], t: str, positions: Iterable[int], width: int, pad: int = 0
) -> Iterator[re.Match[str]]:
    """Exactly the matches of ``rx.finditer(t)``, provided every match of ``rx``
    contains one of ``positions`` (within ``pad`` characters) and is at most
    ``width`` long.

    Each window is searched with ``endpos`` at its end; a match found that way
    is re-matched on the whole text at the same start (the cut-off end could
    have let a lookahead pass), so lookarounds see the real neighbours.
    """
    reach = width + pad
    spans = windows(positions, reach, reach, len(t))
    if sum(hi - lo for lo, hi in spans) > len(t) // 2:
        yield from rx.finditer(t)  # windows cover most of the text: one plain pass is cheaper
        return
    last = 0
    for lo, hi in spans:
        pos = max(lo, last)
        while pos < hi:
            m = rx.search(t, pos, hi)
            if m is None:
                break
            full = rx.match(t, m.start())
            if full is None:
                pos = m.start() + 1
                continue
            yield full
            last = pos = max(full.end(), full.start() + 1)


def free_start(
    rx: re.Pattern[str], t: str, not_after: frozenset[str], pos: int = 0, endpos: int | None = None
) -> Iterator[re.Match[str]]:
    """``finditer`` of ``(?<![not_after])rx`` while ``rx`` keeps a literal-led fast path.

    A match whose start follows a character in ``not_after`` is rejected and
    the search resumes one character later, exactly as the lookbehind would.
    """
    end = len(t) if endpos is None else endpos
    while True:
        m = rx.search(t, pos, end)
        if m is None:
            return
        s = m.start()
        if s > 0 and t[s - 1] in not_after:
            pos = s + 1
            continue
        yield m
        pos = max(m.end(), s + 1)


@lru_cache(maxsize=1024)
def tolerant_re(literal: str) -> re.Pattern[str]:
    """``literal`` with one optional space allowed between any two characters."""
    return re.compile(" ?".join(re.escape(c) for c in literal))


def occurrences(t: str, literal: str, tolerant: bool = False) -> list[int]:
    """Start of every occurrence of ``literal`` (overlapping ones included).

    ``tolerant`` also finds it with single spaces between characters (the
    normalised trace of a tab or line break inserted into a word).
    """
    out: list[int] = []
    if tolerant and len(literal) > 1:
        rx = tolerant_re(literal)
        pos = 0
        while True:
            m = rx.search(t, pos)
            if m is None:
                return out
            out.append(m.start())
            pos = m.start() + 1
    i = t.find(literal)
    while i >= 0:
        out.append(i)
        i = t.find(literal, i + 1)
    return out


@lru_cache(maxsize=4096)
def _has_border(literal: str) -> bool:
    """Some proper prefix of ``literal`` is also its suffix ("abab"), so two of
    its occurrences can overlap and ``str.count`` would undercount them."""
    return any(literal[:k] == literal[-k:] for k in range(1, len(literal)))


def spaced_occurrences(t: str, compact: str, literal: str) -> list[int]:
    """``occurrences(t, literal, tolerant=True)``, usually by ``str.find`` alone.

    ``compact`` is ``t`` with its spaces removed. Every tolerant occurrence
    in ``t`` is an occurrence in ``compact`` (distinct ones at distinct
    places), and every plain occurrence is a tolerant one. So when the plain
    occurrences are as many as ``compact`` holds, they are all of them; for a
    literal that cannot overlap itself ``str.count`` gives that number. Only
    a literal really split by a space (or one with a border) takes the
    one-optional-space regex.
    """
    if len(literal) > 1 and " " not in literal and not _has_border(literal):
        plain = occurrences(t, literal)
        if len(plain) == compact.count(literal):
            return plain
    return occurrences(t, literal, tolerant=True)


def _common_prefix(words: list[str]) -> str:
    first, last = min(words), max(words)
    k = 0
    while k < len(first) and first[k] == last[k]:
        k += 1
    return first[:k]


def compress(literals: Iterable[str], key: int = 6) -> tuple[str, ...]:
    """A smaller set of literals implied by ``literals``: alternatives sharing their
    first ``key`` characters are replaced by their common prefix, and a literal
    containing another one is dropped (finding the shorter one suffices)."""
    groups: dict[str, list[str]] = {}
    for lit in literals:
        groups.setdefault(lit[:key], []).append(lit)
    out = [_common_prefix(g) if len(g) > 1 else g[0] for g in groups.values()]
    return tuple(lit for lit in out if not any(o != lit and o in lit for o in out))


class Anchors:
    """Literal alternatives one of which every match of a pattern contains.

    ``present(hay)`` is a C-speed test on ``hay`` - the space-free text for
    tolerant anchors, the text itself otherwise; ``positions(t, hay)`` lists
    where the present ones occur in ``t``.
    """

    __slots__ = ("literals", "tolerant")

    def __init__(self, literals: Iterable[str], tolerant: bool = True) -> None:
        self.literals = compress(dict.fromkeys(lit for lit in literals if lit))
        self.tolerant = tolerant

    def present(self, hay: str) -> bool:
        return any(lit in hay for lit in self.literals)

    def positions(self, t: str, hay: str) -> list[int]:
        out: list[int] = []
        for lit in self.literals:
            if lit in hay:
                out.extend(self._at(t, hay, lit))
        return out

    def positions_of(self, t: str, hay: str, present: AbstractSet[str]) -> list[int]:
        """:meth:`positions` when the literals present in ``hay`` are already known."""
        out: list[int] = []
        for lit in self.literals:
            if lit in present:
                out.extend(self._at(t, hay, lit))
        return out

    def _at(self, t: str, hay: str, lit: str) -> list[int]:
        return spaced_occurrences(t, hay, lit) if self.tolerant else occurrences(t, lit)

    def min_len(self) -> int:
        return min((len(lit) for lit in self.literals), default=0)

    def max_len(self) -> int:
        longest = max((len(lit) for lit in self.literals), default=0)
        return 2 * longest if self.tolerant else longest


class GatedPattern:
    """A pattern plus the literal runs every one of its matches contains.

    ``finditer(t, compact)`` returns the same matches as ``rx.finditer(t)``:
    when a required run is absent from the space-free text nothing can match;
    otherwise the pattern runs only in windows around the most selective run.
    Runs shorter than ``min_len`` are ignored (too common to gate anything).

    ``head`` (optional) lists literals one of which every match *starts*
    with (as it reads with spaces removed). Then the pattern is only tried
    where a head literal begins, once per place, which is cheaper than
    searching windows whenever those places are few. ``not_after`` holds
    characters no match can follow (the pattern opens with a lookbehind
    refusing them), so places right after one are dropped before counting.
    """

    __slots__ = ("gate_sets", "gates", "head", "locator", "not_after", "rx", "width")

    #: More head places than this and the windowed search is the cheaper one.
    MAX_HEAD_PLACES = 48

    def __init__(
        self,
        rx: re.Pattern[str],
        runs: Iterable[tuple[str, ...]],
        tolerant: bool = True,
        min_len: int = 4,
        max_gates: int = 3,
        head: Iterable[str] = (),
        not_after: frozenset[str] = frozenset(),
    ) -> None:
        self.rx = rx
        self.width = max_width(rx)
        usable = [Anchors(r, tolerant) for r in runs if r and min(map(len, r)) >= min_len]
        self.gates = sorted(usable, key=lambda a: (len(a.literals), -a.min_len()))[:max_gates]
        self.locator = max(usable, key=lambda a: (a.min_len(), -len(a.literals)), default=None)
        self.gate_sets = tuple(frozenset(g.literals) for g in self.gates)
        heads = tuple(dict.fromkeys(h for h in head if h))
        # a literal that starts with another one adds no place of its own
        self.head = (
            tuple(h for h in heads if not any(o != h and h.startswith(o) for o in heads)),
            tolerant,
        )
        self.not_after = not_after

    def literals(self) -> frozenset[str]:
        """Every literal the gates, the locator and the head test for presence."""
        out = {lit for g in self.gates for lit in g.literals}
        if self.locator is not None:
            out.update(self.locator.literals)
        out.update(self.head[0])
        return frozenset(out)

    def finditer(
        self, t: str, hay: str, present: AbstractSet[str] | None = None
    ) -> Iterator[re.Match[str]]:
        """Matches of the pattern in ``t``; ``hay`` is the space-free ``t`` (or ``t``
        itself when the anchors are not tolerant). ``present``, when given, is
        the set of this pattern's :meth:`literals` that occur in ``hay``
        (computed for many patterns at once, e.g. by a ``LiteralSet``)."""
        if self.locator is None:
            yield from self.rx.finditer(t)
            return
        if not self.gates_hold(hay, present):
            return
        heads, tolerant = self.head
        if heads:
            places: list[int] = []
            for lit in heads:
                if (lit in present) if present is not None else (lit in hay):
                    places.extend(
                        spaced_occurrences(t, hay, lit) if tolerant else occurrences(t, lit)
                    )
            if self.not_after:
                refused = self.not_after
                places = [p for p in places if p == 0 or t[p - 1] not in refused]
            if len(places) <= self.MAX_HEAD_PLACES:
                yield from tried_at(self.rx, t, places)
                return
        if present is None:
            found = self.locator.positions(t, hay)
        else:
            found = self.locator.positions_of(t, hay, present)
        if found:
            yield from windowed_finditer(self.rx, t, found, self.width, self.locator.max_len())

    def gates_hold(self, hay: str, present: AbstractSet[str] | None = None) -> bool:
        """Whether every required run occurs in ``hay`` (read off ``present``
        when given, as in :meth:`finditer`): when one does not, nothing matches."""
        if present is None:
            return all(g.present(hay) for g in self.gates)
        return all(not gate.isdisjoint(present) for gate in self.gate_sets)

    def group(self) -> ScanGroup:
        """What a :class:`GateFamily` must find for :meth:`finditer_at`: the gates
        and the head places. Only a pattern with a locator and a head has one."""
        if self.locator is None or not self.head[0]:
            raise ValueError("only a pattern with a locator and a head literal has a scan group")
        heads, tolerant = self.head
        return ScanGroup(
            tuple(tuple(sorted(g)) for g in self.gate_sets), heads, tolerant, self.not_after
        )

    def finditer_at(self, t: str, places: list[int] | None) -> Iterator[re.Match[str]]:
        """:meth:`finditer`'s matches, given this pattern's item of ``GateFamily.scan(t)``.

        None means a gate literal is absent (nothing can match); otherwise
        every match starts at one of ``places`` (the head literals' places),
        which is the contract of :func:`tried_at`. It also holds with more
        than ``MAX_HEAD_PLACES`` places: those are only slower to try than a
        windowed search, never different."""
        if places:
            yield from tried_at(self.rx, t, places)


class ScanGroup(NamedTuple):
    """One question a :class:`GateFamily` answers about a text.

    ``gates``: every gate needs one of its literals in the space-free text,
    else the answer is None. Otherwise it is the sorted, distinct starts of
    the ``heads`` literals' occurrences in the text itself - ``tolerant``
    ones may hold one space between two characters, as
    :func:`spaced_occurrences` finds them - that do not follow a character of
    ``not_after`` and are not followed by one of ``not_before``. Literals are
    ASCII, non-empty and space-free; the character sets are ASCII.
    """

    gates: tuple[tuple[str, ...], ...]
    heads: tuple[str, ...]
    tolerant: bool = True
    not_after: frozenset[str] = frozenset()
    not_before: frozenset[str] = frozenset()


class GateFamily:
    """Many :class:`ScanGroup` questions about one text, answered in one pass.

    Why: a detector with dozens of gated patterns asked each its questions in
    turn - a presence test per gate literal on the space-free text, a search
    per head literal - a few hundred small Python steps per text, most of
    the detector's cost. The C kernel walks the text once over a trie of all
    the literals and answers every group; :meth:`scan_reference` is the plain
    Python statement of the same answer (and the fallback without the kernel).
    """

    __slots__ = ("_compiled", "groups", "literals")

    def __init__(self, groups: Sequence[ScanGroup]) -> None:
        self.groups = tuple(groups)
        lits = {lit for g in self.groups for gate in g.gates for lit in gate}
        lits.update(lit for g in self.groups for lit in g.heads)
        self.literals = tuple(sorted(lits))
        for lit in self.literals:
            if not lit or not lit.isascii() or " " in lit:
                raise ValueError(f"a scan literal must be ASCII, non-empty and space-free: {lit!r}")
        for g in self.groups:
            if not all(ch.isascii() for ch in (*g.not_after, *g.not_before)):
                raise ValueError("a scan group's character sets must be ASCII")
        self._compiled: _scankernel.Family | None = (
            None if _scankernel is None else _scankernel.compile(self.literals, self._spec())
        )

    def _spec(self) -> tuple[_scankernel.Group, ...]:
        """The groups as the kernel reads them: literal indices, sets as strings."""
        index = {lit: i for i, lit in enumerate(self.literals)}
        return tuple(
            (
                tuple(tuple(index[lit] for lit in gate) for gate in g.gates),
                tuple(index[lit] for lit in g.heads),
                g.tolerant,
                "".join(sorted(g.not_after)),
                "".join(sorted(g.not_before)),
            )
            for g in self.groups
        )

    def scan(self, t: str) -> list[list[int] | None]:
        """Per group (in order): None when a gate fails, else its places in ``t``."""
        compiled = self._compiled
        if compiled is None:
            return self.scan_reference(t)
        return _scankernel.scan(compiled, t)

    def scan_reference(self, t: str) -> list[list[int] | None]:
        """:meth:`scan` in plain Python: the contract of :class:`ScanGroup`, spelled out."""
        compact = t.replace(" ", "")
        n = len(t)
        out: list[list[int] | None] = []
        for g in self.groups:
            if not all(any(lit in compact for lit in gate) for gate in g.gates):
                out.append(None)
                continue
            places: set[int] = set()
            for lit in g.heads:
                if g.tolerant:
                    starts = spaced_occurrences(t, compact, lit)
                    rx = tolerant_re(lit)
                    spans = [(p, _end(rx.match(t, p), p)) for p in starts]
                else:
                    spans = [(p, p + len(lit)) for p in occurrences(t, lit)]
                for p, e in spans:
                    if p > 0 and t[p - 1] in g.not_after:
                        continue
                    if e < n and t[e] in g.not_before:
                        continue
                    places.add(p)
            out.append(sorted(places))
        return out


def _end(m: re.Match[str] | None, p: int) -> int:
    if m is None:  # pragma: no cover - an occurrence found at p matches at p
        raise AssertionError(f"no tolerant occurrence at {p}")
    return m.end()
