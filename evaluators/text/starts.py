"""Where a match can begin, found at memchr speed on ASCII text.

Why: a pattern that opens with a character class (``[.!?]+``, ``[$\\d]``) or
a lookbehind gets no help from ``re``'s literal prefix scan, so ``finditer``
walks the text one character at a time inside the matcher - about 15 ns a
character, 40 µs for a 2.5 KB output, however few matches there are.

:class:`CharStarts` marks the characters a match can start with in one
``bytes.translate`` and jumps between them with ``bytes.find``; the pattern
is attempted only there. The start characters are read off a one-character
class pattern (every ASCII character it matches), so the two cannot
disagree; text that is not ASCII goes through that class pattern instead.
"""

from __future__ import annotations

import re
import re._parser as _sre_parse
from collections.abc import Iterator


class CharStarts:
    """The ASCII characters a one-character class pattern matches, as a byte table."""

    __slots__ = ("_table", "klass")

    def __init__(self, klass: re.Pattern[str]) -> None:
        if _sre_parse.parse(klass.pattern, klass.flags).getwidth() != (1, 1):
            raise ValueError(f"not a one-character class: {klass.pattern!r}")
        marks = bytearray(256)
        for i in range(128):
            if klass.match(chr(i)) is not None:
                marks[i] = 1
        self._table = bytes(marks)
        self.klass = klass

    def finditer(self, pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
        """``pattern.finditer(text)`` for a pattern that never matches the empty
        string and can only begin where ``klass`` matches; ``match`` sees the
        characters before its start, so a leading lookbehind decides as it
        would in the full scan."""
        match = pattern.match
        if text.isascii():
            find = text.encode("ascii").translate(self._table).find

            def next_start(pos: int) -> int:
                return find(1, pos)
        else:
            search = self.klass.search

            def next_start(pos: int) -> int:
                hit = search(text, pos)
                return -1 if hit is None else hit.start()

        pos = 0
        while (c := next_start(pos)) >= 0:
            m = match(text, c)
            if m is None:
                pos = c + 1
                continue
            yield m
            pos = m.end() if m.end() > c else c + 1


# b"1" for an ASCII digit byte, b"0" for every other byte.
_DIGIT_MASK = bytes(0x31 if 0x30 <= i <= 0x39 else 0x30 for i in range(256))
# b"1" for an ASCII digit, b"a" for a-z, b"." for a dot and NUL for anything else.
_CLASS_MASK = bytes(
    0x31 if 0x30 <= i <= 0x39 else 0x61 if 0x61 <= i <= 0x7A else 0x2E if i == 0x2E else 0
    for i in range(256)
)


def class_mask(text: str) -> bytes | None:
    """``text`` with each ASCII digit as ``1``, each ``a``-``z`` as ``a``, each
    dot as ``.`` and anything else as NUL, one byte per character, so a shape
    such as "two letters then two digits" is one ``bytes.find`` for
    ``b"aa11"`` (a shape never holds NUL, so it only meets these classes).
    None when ``text`` is not ASCII (its offsets would not be character
    offsets)."""
    if not text.isascii():
        return None
    return text.encode("ascii").translate(_CLASS_MASK)


def digit_led_finditer(pattern: re.Pattern[str], text: str, lead: int) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)`` for a pattern whose every match opens with
    ``lead`` digits (``\\d{5}``, ``\\d\\d(?=…)``) and is longer than nothing.

    On ASCII text ``\\d`` means ``[0-9]``, so a digit mask searched with
    ``bytes.find`` for ``lead`` ones finds every place a match can begin;
    other text (where ``\\d`` also takes other scripts' digits) is scanned by
    the pattern itself."""
    if not text.isascii():
        yield from pattern.finditer(text)
        return
    find = text.encode("ascii").translate(_DIGIT_MASK).find
    run = b"1" * lead
    match = pattern.match
    pos = 0
    while True:
        c = find(run, pos)
        if c < 0:
            return
        m = match(text, c)
        if m is None:
            pos = c + 1
            continue
        yield m
        pos = m.end() if m.end() > c else c + 1


def class_runs(text: str, lead: str, body: str, min_len: int) -> Iterator[tuple[int, int]] | None:
    """Spans of ``re.finditer(f"[{lead}][{body}]{{{min_len - 1},}}", text)`` for
    ASCII ``text``, where ``lead`` is a subset of ``body`` (both plain ASCII
    characters, no class syntax); None for other text, which the caller
    scans with its own pattern.

    A match is greedy, so it runs from a ``lead`` character to the end of the
    maximal ``body`` run holding it, and the leftmost one starts at the first
    ``lead`` of a run: a run too short from there is too short from any later
    ``lead``. Runs of ``min_len`` are found with ``bytes.find`` on a mask, so
    text with few long runs costs a few C-level searches.
    """
    if not text.isascii():
        return None
    data = text.encode("ascii")
    in_body = bytearray(b" " * 256)
    for ch in body:
        in_body[ord(ch)] = 0x78  # "x"
    is_lead = bytearray(256)
    for ch in lead:
        is_lead[ord(ch)] = 1
    return _runs(data.translate(bytes(in_body)), data.translate(bytes(is_lead)), min_len)


def _runs(body: bytes, lead: bytes, min_len: int) -> Iterator[tuple[int, int]]:
    n = len(body)
    least = b"x" * min_len
    pos = 0
    while (a := body.find(least, pos)) >= 0:
        # ``a`` starts a body run: everything from ``pos`` up to it is outside one
        b = body.find(b" ", a)
        if b < 0:
            b = n
        p = lead.find(1, a, b)
        if p >= 0 and b - p >= min_len:
            yield p, b
        pos = b


def tried_at(rx: re.Pattern[str], t: str, places: list[int]) -> Iterator[re.Match[str]]:
    """``rx.finditer(t)`` when every match starts at one of ``places`` and none
    is empty: the leftmost match at or after the resume point is the first
    place there at which ``rx`` matches, and ``match`` sees the characters
    before its start, so lookbehinds decide as they would in the full scan."""
    resume = 0
    match = rx.match
    for p in sorted(set(places)):
        if p < resume:
            continue
        m = match(t, p)
        if m is not None:
            yield m
            resume = max(m.end(), p + 1)
