"""Declared parts of an ask (SPEC §8.7): bullets, enumerations, ordinal words.

Only declared structure splits an ask; a bare "and" or a full stop never does,
because prose requests are whole and splitting them invents parts.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from itertools import pairwise

from evaluators.lexical.terms import STOPWORDS, stem, words
from evaluators.text.case import lower
from evaluators.text.linear import LinearPattern

# Run by RE2 (``LinearPattern``): on a bullet line with a long run of blanks
# inside, ``re`` re-scanned the rest of the run after every character the lazy
# item took, quadratic in its length.
_BULLET = LinearPattern(
    re.compile(r"^[ \t]*(?:[-*•+]|\d{1,2}[.)]|[a-zA-Z][.)])[ \t]+(.+?)[ \t]*$", re.M)
)
_ENUM = re.compile(r"(?:\((\d{1,2}|[a-z]|[ivx]{1,4})\)|(?<![\w(])(\d{1,2}|[a-z])\))\s+")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "finally", "lastly", "then")
_ORD_WORDS = ("first", "second", "third", "fourth", "fifth", "finally", "lastly")
_ORD_RE = re.compile(rf"\b({'|'.join(_ORD_WORDS)})\b[,:]?\s*", re.I)
MANNER_WORDS = frozenset(
    [
        "cite",
        "source",
        "sources",
        "point",
        "points",
        "spec",
        "example",
        "examples",
        "format",
        "tone",
        "style",
        "brief",
        "concise",
        "short",
        "long",
        "plain",
        "simple",
        "clear",
        "markdown",
        "bullet",
    ]
)
_MANNER_CLAUSE = re.compile(
    r"^\s*(?:answer|respond|reply)\s+(?:from|in|with|using)\b|^\s*keep\s+it\b|^\s*(?:be|use)\s+(?:brief|concise|plain)",
    re.I,
)
PRODUCE_VERBS = frozenset(
    ["draft", "write", "summarise", "summarize", "compose", "rewrite", "translate", "outline"]
)


@dataclass(frozen=True, slots=True)
class AskPart:
    text: str
    start: int
    end: int
    marker: str | None  # "1", "a", "first" … used for ordinal mirroring


def _part_terms(text: str) -> list[str]:
    return [w for w in words(text) if len(w) > 2 and w not in STOPWORDS]


def _rstrip_joiners(text: str) -> str:
    end = len(text)
    while end and (text[end - 1] in ",;" or text[end - 1].isspace()):
        end -= 1
    return text[:end]


def _trim_joiner(seg: str) -> str:
    r"""``re.sub(r"[\s,;]*(?:and|or)?\s*$", "", seg)`` in linear time.

    The search tried every start in a long run of blanks and commas and
    scanned the rest of the run from each (quadratic). It removes the longest
    tail that is ``[\s,;]*``, an optional "and"/"or", then ``\s*`` (``str``'s
    whitespace is ``re``'s ``\s``). The word, if any, must end where the
    trailing blanks begin (it ends in a letter), so: strip the blanks, drop a
    final "and"/"or", then strip blanks and commas; with no word, strip blanks
    and commas from the end."""
    head = seg.rstrip()
    for word in ("and", "or"):
        if head.endswith(word):
            return _rstrip_joiners(head[: -len(word)])
    return _rstrip_joiners(seg)


_BULLET_SIGNS = frozenset("-*•+")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _bullet_item(line: str) -> tuple[int, int] | None:
    r"""The span of ``_BULLET``'s item group in ``line`` (one line, no
    newline), or ``None`` when the line is no bullet.

    The pattern, read line by line: blanks, a marker (a sign, one or two
    ``\d`` then ``.``/``)``, an ASCII letter then ``.``/``)``), one blank or
    more, then the lazy item up to the trailing blanks. So the item is the
    rest with its trailing blanks removed; when the rest is blanks only the
    greedy ``[ \t]+`` gives its last blank back to the item, if it took two."""
    i = len(line) - len(line.lstrip(" \t"))
    c = line[i : i + 1]
    if not c:
        return None
    if c in _BULLET_SIGNS:
        j = i + 1
    else:
        if c.isdecimal():  # re's \d on str is Py_UNICODE_ISDECIMAL
            d = line[i + 1 : i + 2]
            j = i + 2 if d and d.isdecimal() else i + 1
        elif c in _ASCII_LETTERS:
            j = i + 1
        else:
            return None
        if line[j : j + 1] not in (".", ")") or j == len(line):
            return None
        j += 1
    rest = line[j:]
    item = rest.lstrip(" \t")
    k = len(rest) - len(item)  # the blanks [ \t]+ takes
    if k == 0:
        return None
    item = item.rstrip(" \t")
    if item:
        return j + k, j + k + len(item)
    return (j + k - 1, j + k) if k >= 2 else None


def bullet_items(ask: str) -> list[tuple[int, int, str]]:
    """``[(m.start(1), m.end(1), m.group(0)) for m in _BULLET.finditer(ask)]``
    by string methods, one line at a time: RE2's search over a stand-in copy,
    and a match object per line, cost ~100 µs on a bulleted ask. A match
    never crosses a newline and starts at a line's start, so the lines can
    be matched one by one; ``_BULLET`` stays as the reference."""
    out: list[tuple[int, int, str]] = []
    pos = 0
    for line in ask.split("\n"):
        got = _bullet_item(line)
        if got is not None:
            out.append((pos + got[0], pos + got[1], line))
        pos += len(line) + 1
    return out


def _may_have_ordinals(ask: str) -> bool:
    """Whether ``_ORD_RE`` can match ``ask``. On ASCII text a case-insensitive
    match of an ordinal word is that word in the lowered text; on other text
    ``re.I`` also matches letters such as "ſ" (for "s"), so only the search
    itself can tell."""
    if not ask.isascii():
        return True
    low = lower(ask)
    return any(w in low for w in _ORD_WORDS)


def split_ask(ask: str) -> list[AskPart]:
    """Return declared parts, or ``[]`` when the ask declares none.

    Each pattern is searched only when the ask can hold two of its matches,
    by a test of a few native string passes: most asks are one line of prose
    with no ``)`` and no ordinal word, and the searches (RE2's over a stand-in
    copy above all) were most of ask_coverage's cost."""
    # ``^`` (re.M) starts a bullet only at the start or after a newline, and
    # ``.`` stops at one: without a newline there is at most one bullet
    bullets = bullet_items(ask) if "\n" in ask else []
    if len(bullets) >= 2:
        return [AskPart(ask[s:e], s, e, _marker_of(line)) for s, e, line in bullets]
    # every enumeration marker holds a ")", and the matches do not overlap
    enums = list(_ENUM.finditer(ask)) if ask.count(")") >= 2 else []
    if len(enums) >= 2 and _ascending([e.group(1) or e.group(2) for e in enums]):
        parts: list[AskPart] = []
        for i, m in enumerate(enums):
            end = enums[i + 1].start() if i + 1 < len(enums) else len(ask)
            seg = ask[m.end() : end]
            seg_stripped = _trim_joiner(seg.rstrip(" .?!\n"))
            parts.append(
                AskPart(
                    seg_stripped,
                    m.end(),
                    m.end() + len(seg_stripped),
                    lower(m.group(1) or m.group(2)),
                )
            )
        return parts
    ords = list(_ORD_RE.finditer(ask)) if _may_have_ordinals(ask) else []
    if len(ords) >= 2:
        parts = []
        for i, m in enumerate(ords):
            end = ords[i + 1].start() if i + 1 < len(ords) else len(ask)
            seg = ask[m.end() : end].rstrip(" .?!\n,;")
            parts.append(AskPart(seg, m.end(), m.end() + len(seg), lower(m.group(1))))
        return parts
    return []


def _marker_of(bullet_line: str) -> str | None:
    m = re.match(r"\s*(\d{1,2}|[a-zA-Z])[.)]", bullet_line)
    return lower(m.group(1)) if m else None


def _ascending(markers: list[str]) -> bool:
    vals: list[int] = []
    for mk in markers:
        mk = lower(mk)
        if mk.isdigit():
            vals.append(int(mk))
        elif len(mk) == 1:
            vals.append(ord(mk) - 96)
        else:
            vals.append({"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6}.get(mk, 0))
    return all(b == a + 1 for a, b in pairwise(vals)) and vals[0] == 1


def measurable(part: AskPart, terms: list[str] | None = None) -> bool:
    """Whether the part can be measured: no manner clause, two distinct
    content words or more, one of them no manner word. ``terms`` are
    ``_part_terms(part.text)`` when the caller has them (ask_coverage keeps
    them for the part, so the words pass need not run twice)."""
    if _MANNER_CLAUSE.search(part.text):
        return False
    if terms is None:
        terms = _part_terms(part.text)
    if len(set(terms)) < 2:
        return False
    return any(t not in MANNER_WORDS for t in terms)


_ORD_WORD = {"1": "first", "2": "second", "3": "third", "4": "fourth", "5": "fifth"}
# A line opening with the ordinal word. Run by RE2 (``LinearPattern``): from
# every line start of a long blank or punctuation stretch ``re`` re-scanned the
# rest of it with ``\W*``, quadratic in its length.
_LEAD_WORD = {w: LinearPattern(re.compile(rf"^\W*{w}\b", re.I | re.M)) for w in _ORD_WORD.values()}
_LETTER_NUM = {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5"}


def mirrors_marker(marker: str | None, output: str, low: str | None = None) -> bool:
    """The output repeats the part's numbering ("(2)", "2.", "Second,").

    ``low`` is ``output.lower()`` when the caller has it. Then, on ASCII
    output and an ASCII marker, a search runs only when the lowered output
    holds what it must match (the marker before ``)``, ``.`` or ``:``, the
    ordinal word): ``re.I`` on ASCII text is a lowered comparison, and the
    ordinal-word search runs RE2 over a stand-in copy of the whole output."""
    if not marker:
        return False
    # the lowered output when the substring tests below may stand for re.I
    ascii_low = low if low is not None and output.isascii() and marker.isascii() else None
    if marker in _ORDINALS:
        if ascii_low is not None and marker not in ascii_low:
            return False
        return re.search(rf"\b{marker}\b", output, re.I) is not None
    esc = re.escape(marker)
    m = lower(marker)
    if (ascii_low is None or any(m + c in ascii_low for c in ").:")) and re.search(
        rf"(?:^|\s|\()\(?{esc}[).:]", output, re.I | re.M
    ):
        return True
    word = _ORD_WORD.get(_LETTER_NUM.get(marker, marker))
    if not word or (ascii_low is not None and word not in ascii_low):
        return False
    return bool(_LEAD_WORD[word].search(output))


def engaged_terms(
    part_terms: list[str],
    out_words: AbstractSet[str],
    out_stems: set[str],
    out_prefixes: set[str],
) -> int:
    hit = 0
    for t in set(part_terms):
        if t in out_words or stem(t) in out_stems or (len(t) >= 4 and t[:4] in out_prefixes):
            hit += 1
    return hit


def is_produce(part: AskPart) -> bool:
    return any(w in PRODUCE_VERBS for w in words(part.text)[:3])
