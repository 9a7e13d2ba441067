"""The seven evasion rewrites the proof harness applies inside reported spans
(corpus/README.md, "Disguises"), shared by the corpus and property tests."""

from __future__ import annotations

from collections.abc import Callable

_HOMOGLYPHS = str.maketrans(
    {
        "a": "а",
        "e": "е",
        "o": "о",
        "p": "р",
        "c": "с",
        "x": "х",
        "A": "А",
        "E": "Е",
        "O": "О",
        "P": "Р",
        "C": "С",
        "X": "Х",
    }
)


def _insert_mid(s: str, ins: str) -> str:
    mid = len(s) // 2
    return s[:mid] + ins + s[mid:]


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in s)


def _swapcase(s: str) -> str:
    return "".join(c.swapcase() if c.isascii() and c.isalpha() else c for c in s)


DISGUISES: dict[str, Callable[[str], str]] = {
    "zero_width": lambda s: _insert_mid(s, "\u200b"),
    "homoglyph": lambda s: s.translate(_HOMOGLYPHS),
    "fullwidth": _fullwidth,
    "nbsp": lambda s: s.replace(" ", "\u00a0"),
    "tab": lambda s: _insert_mid(s, "\t"),
    "linebreak": lambda s: _insert_mid(s, "\n"),
    "case": _swapcase,
}


def rewrite_spans(text: str, spans: list[tuple[int, int]], fn: Callable[[str], str]) -> str:
    """Apply ``fn`` inside every span (spans must not overlap)."""
    out = text
    for s, e in sorted(spans, reverse=True):
        out = out[:s] + fn(out[s:e]) + out[e:]
    return out
