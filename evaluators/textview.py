"""Folded views of raw text with a way back to raw offsets.

Rules match on a normalised copy so disguises (zero-width characters,
homoglyphs, full-width forms, odd whitespace, case) do not hide a match, and
report evidence as offsets into the raw text the caller sent. The colleague's
``evaluators.text.normalize`` is the source of truth; until it is importable a
small local fold with the same contract stands in, so the engine never breaks
on a missing module.
"""

from __future__ import annotations

import importlib
import unicodedata
from collections.abc import Callable
from typing import Any, Protocol

from evaluators.text.case import lower


class Folded(Protocol):
    raw: str
    text: str

    def raw_span(self, start: int, end: int) -> tuple[int, int]: ...


_ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e")
_CONFUSABLES = {
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "х": "x",
    "у": "y",
    "і": "i",
    "ј": "j",
    "ѕ": "s",
    "А": "a",
    "Е": "e",
    "О": "o",
    "Р": "p",
    "С": "c",
    "Х": "x",
    "В": "b",
    "Н": "h",
    "К": "k",
    "М": "m",
    "Т": "t",
}


class _LocalFolded:
    """Fallback fold: NFKC, zero-width dropped, confusables and case folded,
    whitespace runs collapsed to one space. ``offsets[i]`` is the raw index of
    folded character ``i``."""

    __slots__ = ("offsets", "raw", "text")

    def __init__(self, raw: str) -> None:
        out: list[str] = []
        offs: list[int] = []
        prev_space = False
        for i, ch in enumerate(raw):
            if ch in _ZERO_WIDTH:
                continue
            ch = _CONFUSABLES.get(ch, ch)
            if ord(ch) > 127:
                ch = unicodedata.normalize("NFKC", ch)
            for c in ch:
                if c.isspace():
                    if prev_space:
                        continue
                    c = " "
                    prev_space = True
                else:
                    prev_space = False
                low = lower(c)
                if len(low) != 1:
                    low = c
                out.append(low)
                offs.append(i)
        self.raw = raw
        self.text = "".join(out)
        self.offsets = offs

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        if not self.offsets:
            return (0, 0)
        start = min(max(start, 0), len(self.offsets) - 1)
        end = min(max(end, start + 1), len(self.offsets))
        return self.offsets[start], self.offsets[end - 1] + 1


def _resolve() -> Callable[[str], Any]:
    try:
        mod = importlib.import_module("evaluators.text.normalize")
        fn = mod.normalize
    except (ImportError, AttributeError):
        return _LocalFolded
    resolved: Callable[[str], Any] = fn
    return resolved


_NORMALIZE = _resolve()


def fold(raw: str) -> Folded:
    """Normalise once; callers share the result via the evaluation context."""
    result: Folded = _NORMALIZE(raw)
    return result
