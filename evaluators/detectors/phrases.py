"""Compile literal phrases into disguise-tolerant, linear regular expressions.

Why: after normalisation a tab or line break inserted *inside* a word becomes
a space ("how to h ack"). A plain substring test misses that, and stripping
all spaces would merge unrelated words. Instead each phrase is compiled so
that one optional space may sit between any two of its characters, and the
phrase must start and end on a word boundary ("hackathon" is not "hack").

The generated patterns contain only literals, single-character classes and
``?`` - no nested or unbounded quantifiers - so matching is linear in the
length of the text for any input.
"""

from __future__ import annotations

import re

from evaluators.text.normalize import normalize

_WORDISH = re.compile(r"[a-z0-9]")


def tolerant_source(phrase: str) -> str:
    """Regex source for ``phrase`` (already normalised) allowing one space per char gap."""
    pieces: list[str] = []
    prev_space = False
    for ch in phrase:
        if ch == " ":
            if pieces and not prev_space:
                pieces.append(" ")
            prev_space = True
            continue
        if pieces and not prev_space:
            pieces.append(" ?")
        pieces.append(re.escape(ch))
        prev_space = False
    body = "".join(pieces).rstrip(" ")
    if not body:
        return ""
    head = "(?<![a-z0-9])" if _WORDISH.match(phrase.lstrip()[:1]) else ""
    tail = "(?![a-z0-9])" if _WORDISH.match(phrase.rstrip()[-1:]) else ""
    return head + body + tail


def phrase_key(phrase: str) -> str:
    """The normalised form of a configured phrase (same fold as the scanned text)."""
    return normalize(phrase).text.strip()


def compile_phrases(phrases: list[str]) -> re.Pattern[str] | None:
    """One alternation over all phrases; each alternative is a named-free group index."""
    sources = [f"({tolerant_source(p)})" for p in phrases if p]
    if not sources:
        return None
    return re.compile("|".join(sources))
