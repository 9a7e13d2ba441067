"""The seven disguises of the corpus README, applied inside a span."""

from __future__ import annotations

from collections.abc import Callable

_HOMO = str.maketrans(
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


def _mid(s: str, ins: str) -> str:
    m = len(s) // 2
    return s[:m] + ins + s[m:]


def _fullwidth(s: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in s)


def _swapcase(s: str) -> str:
    return "".join(c.swapcase() if c.isascii() and c.isalpha() else c for c in s)


TRANSFORMS: dict[str, Callable[[str], str]] = {
    "zero_width": lambda s: _mid(s, "\u200b"),
    "homoglyph": lambda s: s.translate(_HOMO),
    "fullwidth": _fullwidth,
    "nbsp": lambda s: s.replace(" ", "\u00a0"),
    "tab": lambda s: _mid(s, "\t"),
    "linebreak": lambda s: _mid(s, "\n"),
    "case": _swapcase,
}


def applies(name: str, segment: str) -> bool:
    """A disguise is only measured where it changes the text."""
    return TRANSFORMS[name](segment) != segment


def rewrite(text: str, spans: list[tuple[int, int]], name: str) -> str:
    fn = TRANSFORMS[name]
    out = text
    for s, e in sorted(set(spans), reverse=True):
        out = out[:s] + fn(out[s:e]) + out[e:]
    return out
