"""Bounded patterns as programs for a small backtracking matcher (the C kernel).

Why: the injection lexicon's phrase patterns allow one optional space
between any two letters and carry long ordered alternations (``build`` in
:mod:`evaluators.detectors.injection_patterns`). Python's ``re`` spends
3-5 µs on each place where one of them is tried, most of the detector's
cost. The same pattern, run by ``evaluators/text/_matchkernel.c`` as a short
program of character tests and ordered choices, gives the same match in a
fraction of that.

:func:`program` reads the pattern's own parse tree (``re._parser``), so the
program is the pattern, not a second spelling of it. Only the constructs the
lexicon uses are taken: literals, character sets, ordered alternation,
bounded greedy and lazy repeats of items that cannot match empty,
non-capturing or capturing groups (captures are not reported), and
lookarounds of fixed width. Anything else (an unbounded repeat, a back
reference, ``\\b``, flags other than the default) makes :func:`program`
return None and the caller keeps ``re``.

A backtracking matcher that takes, at each choice, the alternatives in the
pattern's order finds the same match as ``re`` (leftmost, first by
priority). The kernel also stops a single attempt after a step budget and
then asks ``re`` itself, so no input makes it slower than the pattern it
stands for by more than that constant.
"""

from __future__ import annotations

import re
import re._constants as _c
import re._parser as _sre_parse
from collections.abc import Sequence
from typing import Any, NamedTuple

try:
    from evaluators.text import _matchkernel
except ImportError:  # pragma: no cover - depends on the build
    _matchkernel = None  # type: ignore[assignment]

# Instruction codes, as the kernel reads them (three ints each: op, a, b).
MATCH, CHAR, CLASS, SPLIT, JMP, NOT_AHEAD, AHEAD, NOT_BEHIND, BEHIND, REPEAT = range(10)
#: Largest program accepted (instructions); a larger one keeps ``re``.
MAX_INSTRUCTIONS = 1 << 16
_DEFAULT_FLAGS = re.UNICODE


class Unsupported(ValueError):
    """The pattern uses a construct the matcher does not have."""


class Program(NamedTuple):
    """A pattern as the kernel runs it.

    ``code``: flat ``(op, a, b)`` triples; instruction 0 starts the match.
    ``classes``: per character set, ``(table, negate, ranges)``: ``table`` is
    128 bytes (1 where the ASCII character is in the set, negation applied),
    ``ranges`` the set's flat ``lo, hi`` code point pairs before negation
    (read for characters >= 128).
    """

    code: tuple[int, ...]
    classes: tuple[tuple[bytes, bool, tuple[int, ...]], ...]


def _has(cls: tuple[bytes, bool, tuple[int, ...]], c: int) -> bool:
    table, negate, ranges = cls
    if c < 128:
        return bool(table[c])
    inside = any(ranges[k] <= c <= ranges[k + 1] for k in range(0, len(ranges), 2))
    return inside != negate


def _one_char_class(op: Any, av: Any) -> tuple[bytes, bool, tuple[int, ...]] | None:
    """The character set of a one-character item (a literal or a set), else None."""
    if op is _c.LITERAL:
        return _class([(_c.LITERAL, av)])
    if op is _c.NOT_LITERAL:
        return _class([(_c.NEGATE, None), (_c.LITERAL, av)])
    if op is _c.IN:
        return _class(av)
    return None


def _class(items: Any) -> tuple[bytes, bool, tuple[int, ...]]:
    negate = False
    ranges: list[int] = []
    for op, av in items:
        if op is _c.NEGATE:
            negate = True
        elif op is _c.LITERAL:
            ranges += (av, av)
        elif op is _c.RANGE:
            ranges += (av[0], av[1])
        else:
            raise Unsupported(f"set item {op}")
    # table[i] = (i is in some range) != negate, filled range by range: the
    # patterns are compiled at import, and a test of every range for each of
    # the 128 entries of ~2,500 sets cost most of a second there
    table = bytearray([negate]) * 128
    for k in range(0, len(ranges), 2):
        for i in range(ranges[k], min(ranges[k + 1], 127) + 1):
            table[i] = not negate
    return bytes(table), negate, tuple(ranges)


class _Emitter:
    def __init__(self) -> None:
        self.code: list[list[int]] = []
        self.classes: list[tuple[bytes, bool, tuple[int, ...]]] = []
        self.subs: list[tuple[int, Any]] = []  # (instruction to patch, sub-pattern)

    def add(self, op: int, a: int = 0, b: int = 0) -> int:
        if len(self.code) >= MAX_INSTRUCTIONS:
            raise Unsupported("program too long")
        self.code.append([op, a, b])
        return len(self.code) - 1

    def seq(self, items: Any) -> None:
        items = list(items)
        for k, (op, av) in enumerate(items):
            nxt = items[k + 1] if k + 1 < len(items) else None
            if not self.possessive(op, av, nxt):
                self.item(op, av)

    def possessive(self, op: Any, av: Any, nxt: Any) -> bool:
        """Emit a greedy repeat of one-character set S that the sequence follows
        with a literal c outside S as REPEAT (no choice points), and say so.

        Why it is the same match: stopping the repeat before it has to leaves
        a character of S where c must be, so every shorter count fails at c;
        only the longest count can lead to a match, and REPEAT takes only it.
        (" ?" before a letter and the gap's word-then-space are such.)"""
        if op is not _c.MAX_REPEAT or nxt is None or nxt[0] is not _c.LITERAL:
            return False
        lo, hi, sub = av
        if hi is _c.MAXREPEAT or hi >= int(_c.MAXREPEAT) or len(sub) != 1:
            return False
        cls = _one_char_class(*sub[0])
        if cls is None or _has(cls, nxt[1]):
            return False
        self.classes.append(cls)
        index = len(self.classes) - 1
        for _ in range(lo):
            self.add(CLASS, index)
        if hi > lo:
            self.add(REPEAT, index, hi - lo)
        return True

    def item(self, op: Any, av: Any) -> None:
        if op is _c.LITERAL:
            self.add(CHAR, av)
        elif op is _c.NOT_LITERAL:
            self.classes.append(_class([(_c.NEGATE, None), (_c.LITERAL, av)]))
            self.add(CLASS, len(self.classes) - 1)
        elif op is _c.IN:
            self.classes.append(_class(av))
            self.add(CLASS, len(self.classes) - 1)
        elif op is _c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise Unsupported("inline flags")
            self.seq(sub)
        elif op is _c.BRANCH:
            alts = av[1]
            jumps: list[int] = []
            for k, alt in enumerate(alts):
                if k == len(alts) - 1:
                    self.seq(alt)
                    break
                split = self.add(SPLIT, len(self.code) + 1)
                self.seq(alt)
                jumps.append(self.add(JMP))
                self.code[split][2] = len(self.code)
            for j in jumps:
                self.code[j][1] = len(self.code)
        elif op is _c.MAX_REPEAT or op is _c.MIN_REPEAT:
            lo, hi, sub = av
            if hi is _c.MAXREPEAT or hi >= int(_c.MAXREPEAT):
                raise Unsupported("unbounded repeat")
            if sub.getwidth()[0] == 0:
                raise Unsupported("repeat of an item that can match empty")
            for _ in range(lo):
                self.seq(sub)
            splits: list[int] = []
            for _ in range(hi - lo):
                splits.append(self.add(SPLIT))
                self.seq(sub)
            end = len(self.code)
            for s in splits:
                # greedy: one more copy first; lazy: the rest of the pattern first
                self.code[s][1:] = [s + 1, end] if op is _c.MAX_REPEAT else [end, s + 1]
        elif op is _c.ASSERT or op is _c.ASSERT_NOT:
            direction, sub = av
            lo, hi = sub.getwidth()
            if direction < 0:
                if lo != hi:
                    raise Unsupported("lookbehind of varying width")
                kind = NOT_BEHIND if op is _c.ASSERT_NOT else BEHIND
            else:
                kind = NOT_AHEAD if op is _c.ASSERT_NOT else AHEAD
            at = self.add(kind, 0, lo if direction < 0 else 0)
            self.subs.append((at, sub))
        else:
            raise Unsupported(f"construct {op}")


def program(rx: re.Pattern[str]) -> Program | None:
    """``rx`` as a kernel program, or None when it uses a construct the kernel lacks."""
    if rx.flags != _DEFAULT_FLAGS:
        return None
    try:
        em = _Emitter()
        em.seq(_sre_parse.parse(rx.pattern, rx.flags))
        em.add(MATCH)
        while em.subs:  # lookaround bodies, each its own MATCH-terminated part
            at, sub = em.subs.pop(0)
            em.code[at][1] = len(em.code)
            em.seq(sub)
            em.add(MATCH)
    except (Unsupported, RecursionError):
        return None
    return Program(tuple(v for ins in em.code for v in ins), tuple(em.classes))


def compiled(patterns: Sequence[re.Pattern[str]]) -> tuple[_matchkernel.Program, ...] | None:
    """The kernel's compiled programs for ``patterns``, or None when the kernel
    is not built or one of them has no program (the caller then keeps ``re``
    for all of them, so a family is never split between two matchers)."""
    if _matchkernel is None:
        return None
    out: list[_matchkernel.Program] = []
    for rx in patterns:
        prog = program(rx)
        if prog is None:
            return None
        out.append(_matchkernel.compile(prog.code, prog.classes))
    return tuple(out)
