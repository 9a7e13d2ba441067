"""One shared sentence splitter (SPEC §8.5): no split on decimals or abbreviations."""

from __future__ import annotations

import re

from evaluators.text.case import lower

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

# The compiled kernel (evaluators/lexical/_lexkernel.c); absent when the
# package was installed without a C compiler, and then the Python reference
# below runs instead, with the same spans.
try:
    from evaluators.lexical import _lexkernel
except ImportError:  # pragma: no cover - depends on the build
    _lexkernel = None  # type: ignore[assignment]


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
    """Return ``(start, end)`` spans of non-empty sentences in ``text``.

    The C kernel when it was built (~10x faster), else
    :func:`split_sentences_py`, the reference it must equal."""
    if _lexkernel is not None:
        return _lexkernel.split_sentences(text, _ABBREV)
    return split_sentences_py(text)


def split_sentences_py(text: str) -> list[tuple[int, int]]:
    """:func:`split_sentences` in Python: the reference and the fallback.

    Runs once per output, with a loop step per sentence, so the step is kept
    to C-level string calls: the content test and the trim are ``str.strip``
    on the stretch (see :func:`_trimmed`) rather than a regex search and a
    character loop, and the abbreviation test reads a short window."""
    spans: list[tuple[int, int]] = []
    append = spans.append
    abbrev = _ABBREV
    start = 0
    for m in _END.finditer(text):
        stop, end = m.span()
        if end - stop == 1 and text[stop] == ".":
            # A word of _LONG letters before the dot is no abbreviation and no
            # initial; only a shorter last word needs the full test.
            tail = text[stop - _LONG : stop] if stop - _LONG >= start else ""
            if not tail.isalpha():
                # whitespace inside the window precedes the last word, so the
                # window holds all of it (the argument of _last_word)
                parts = tail.rsplit(None, 1)
                word = parts[1] if len(parts) == 2 else _last_word(text, start, stop)
                last = lower(word).rstrip(".")
                if last in abbrev or (len(last) == 1 and last.isalpha()):
                    continue
        piece = text[start:end]
        if piece.strip(_NOT_CONTENT):
            body = piece.lstrip()
            s = start + len(piece) - len(body)
            append((s, s + len(body.rstrip())))
        start = end
    piece = text[start:]
    if piece.strip(_NOT_CONTENT):
        append(_trimmed(piece, start))
    return spans


# The characters _CONTENT refuses: a stretch holds content (a _CONTENT match)
# exactly when stripping these from both of its ends leaves something.
_NOT_CONTENT = " \t\r\n.!?"


def _trimmed(piece: str, offset: int) -> tuple[int, int]:
    """``_trim`` of the stretch ``piece`` that starts at ``offset``.
    ``str.strip`` drops exactly the characters ``str.isspace`` accepts (both
    read the same Unicode whitespace table), so the trimmed ends follow from
    the stripped lengths. :func:`split_sentences` inlines it in its loop."""
    body = piece.lstrip()
    s = offset + len(piece) - len(body)
    return s, s + len(body.rstrip())


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def sentence_texts(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]
