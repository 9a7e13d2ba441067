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


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return ``(start, end)`` spans of non-empty sentences in ``text``."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        end = m.end()
        if m.group(0) == ".":
            before = text[start : m.start()].rsplit(None, 1)
            last = before[-1].lower().rstrip(".") if before else ""
            if last in _ABBREV or (len(last) == 1 and last.isalpha()):
                continue
        if text[start:end].strip(" \t\r\n.!?"):
            spans.append(_trim(text, start, end))
        start = end
    if text[start:].strip(" \t\r\n.!?"):
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
