"""One shared sentence splitter (SPEC §8.5): no split on decimals or abbreviations."""

from __future__ import annotations

import re

_ABBREV = frozenset(
    [
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "fig",
        "no",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "approx",
        "est",
        "min",
        "max",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
_END = re.compile(r"[.!?]+(?=[\s\"')\]]|$|(?<=[a-z][.!?])[A-Z][a-z])")


# A character that makes a stretch a sentence rather than punctuation/space.
_CONTENT = re.compile(r"[^ \t\r\n.!?]")
# Longer than every abbreviation: a last word this long is never one.
_LONG = 1 + max(len(a) for a in _ABBREV)
_LAST_WORD_WINDOW = 32


def _last_word(text: str, start: int, end: int) -> str:
    """``text[start:end].rsplit(None, 1)[-1]`` (or ``""``) without copying
    the whole stretch: a window that holds whitespace before its last word
    holds all of that word."""
    lo = max(start, end - _LAST_WORD_WINDOW)
    parts = text[lo:end].rsplit(None, 1)
    if lo > start and len(parts) < 2:
        parts = text[start:end].rsplit(None, 1)
    return parts[-1] if parts else ""


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` spans of non-empty sentences in ``text``."""
    spans: list[tuple[int, int]] = []
    start = 0
    content = _CONTENT.search
    for m in _END.finditer(text):
        stop, end = m.span()
        if end - stop == 1 and text[stop] == ".":
            # A word of _LONG letters before the dot is no abbreviation and no
            # initial; only a shorter last word needs the full test.
            tail = text[stop - _LONG : stop] if stop - _LONG >= start else ""
            if not tail.isalpha():
                last = _last_word(text, start, stop).lower().rstrip(".")
                if last in _ABBREV or (len(last) == 1 and last.isalpha()):
                    continue
        if content(text, start, end):
            spans.append(_trim(text, start, end))
        start = end
    if content(text, start):
        spans.append(_trim(text, start, len(text)))
    return spans


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def sentence_texts(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]
