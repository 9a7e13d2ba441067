"""A ``re`` pattern run in linear time by RE2, with ``re``'s exact results.

Why: some rule patterns backtrack - a quantified run followed by something
that then fails is re-scanned from every start inside the run, so ``finditer``
over a long run of digits or blank lines is quadratic. RE2 never backtracks,
and for patterns without lookaround or back-references it picks the same
leftmost-first match and the same groups as ``re``. What differs is the
character classes: RE2's ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII-only
(and its ``\\s`` lacks ``\\x0b`` and ``\\x1c``-``\\x1f``), and ``re.I`` folds
four non-ASCII letters (``İ ı ſ`` and the Kelvin sign) onto ASCII ones.

So RE2 reads an ASCII stand-in for the text: every character ``re`` would
treat differently from RE2 is replaced, one for one (offsets unchanged), by an
ASCII character of the same classes - a letter that folds to ``s`` by ``s``,
another Unicode digit by a digit, another word character by a letter (``_``
when the pattern has an ASCII range, which tells a letter from ``é``), a space
by ``\\f``, anything else by a punctuation mark. The stand-ins are chosen
absent from the pattern source, so no literal can match them. A non-ASCII
symbol the pattern names (``≥``, ``•``) becomes a control character in both
the pattern and the text (the text's own control characters of that kind
become the punctuation stand-in). Group text is read back from the original.

Only a pattern this reasoning covers is accepted (see ``_refusal``).
"""

from __future__ import annotations

import re
import re._parser as _sre_parse
from collections.abc import Iterator, Mapping
from typing import Any

import re2

from evaluators.text.case import lower

# Non-ASCII letters ``re.I`` matches to an ASCII letter (all of them: checked
# against every code point in the tests).
_FOLDS = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}  # İ ı ſ K
# ASCII whitespace that is ``\s`` for ``re`` but not for RE2.
_RE_ONLY_SPACE = "\x0b\x1c\x1d\x1e\x1f"
# Control characters (no class but their own in either engine) that stand for
# the non-ASCII symbols a pattern names.
_SYMBOL_CODES = [*range(0x01, 0x09), *range(0x0E, 0x1C)]
_RANGES = ("A-Z", "a-z", "0-9")


def _absent(candidates: str, src: str) -> str:
    for ch in candidates:
        if lower(ch) not in lower(src) and ch.upper() not in src:
            return ch
    raise ValueError(f"no stand-in among {candidates!r} is absent from the pattern")


def _refusal(pattern: re.Pattern[str]) -> str | None:
    """Why the stand-in reasoning does not cover this pattern, if it does not."""
    src = pattern.pattern
    if pattern.flags & ~(re.IGNORECASE | re.MULTILINE | re.UNICODE):
        return "a flag other than re.I and re.M"
    if re.search(r"(?<!\\)(?:\\\\)*\$", src) and not pattern.flags & re.MULTILINE:
        return "$ without re.M (RE2's means the end of the text only)"
    if re.search(r"\(\?<?[=!]", src):
        return "lookaround"
    if re.search(r"\\[fxuUN0-7]", src) or not all(ch.isprintable() for ch in src):
        return "an escaped or control character (a stand-in could be one)"
    if any(not ch.isascii() and re.match(r"[\w\s]", ch) for ch in src):
        return "a non-ASCII letter, digit or space in the source"
    if [r for r in re.findall(r"\w-\w", src) if r not in _RANGES]:
        return "a class range other than A-Z, a-z, 0-9"
    if "0-9" in src and re.search(r"\\[dD]", src):
        return "both 0-9 and \\d (no ASCII stand-in is one and not the other)"
    if _sre_parse.parse(src, pattern.flags).getwidth()[0] == 0:
        return "an empty match (the engines step past one differently)"
    if len({ch for ch in src if not ch.isascii()}) > len(_SYMBOL_CODES):
        return "too many non-ASCII symbols"
    return None


class _StandIn(dict[int, int]):
    """``str.translate`` table that classifies each code point once, on demand."""

    def __init__(self, src: str, fold: bool) -> None:
        super().__init__()
        self.fold = fold
        ranged = any(r in src for r in _RANGES)
        self.word = ord(_absent("_" if ranged else "qjzxvwykfbgphmu", src))
        # A Unicode digit is in \d but not in 0-9; with 0-9 (and so no \d)
        # it is just a word character.
        self.digit = self.word if "0-9" in src else ord(_absent("7305986421", src))
        self.other = ord(_absent("~%^&`;", src))
        self.space = 0x0C
        symbols = sorted({ch for ch in src if not ch.isascii()})
        self.symbols = {ord(ch): code for ch, code in zip(symbols, _SYMBOL_CODES, strict=False)}
        for code in _SYMBOL_CODES:
            self[code] = self.other
        self.update(self.symbols)

    def __missing__(self, code: int) -> int:
        ch = chr(code)
        if code < 128 and ch not in _RE_ONLY_SPACE:
            out = code
        elif self.fold and ch in _FOLDS:
            out = ord(_FOLDS[ch])
        elif re.match(r"\s", ch):
            out = self.space
        elif re.match(r"\d", ch):
            out = self.digit
        elif re.match(r"\w", ch):
            out = self.word
        else:
            out = self.other
        self[code] = out
        return out


class LinearMatch:
    """The parts of ``re.Match`` the rules use: spans and group text."""

    __slots__ = ("_index", "_spans", "_text")

    def __init__(self, text: str, spans: list[tuple[int, int]], index: Mapping[str, int]) -> None:
        self._text = text
        self._spans = spans
        self._index = index

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._spans[group if isinstance(group, int) else self._index[group]]

    def start(self, group: int | str = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self.span(group)[1]

    def group(self, group: int | str = 0) -> str | Any:
        # ``str | Any`` as typeshed types ``re.Match.group``: callers know
        # which groups always take part.
        s, e = self.span(group)
        return None if s < 0 else self._text[s:e]


class LinearPattern:
    """``finditer``/``search`` of a ``re`` pattern, by RE2 over a stand-in text."""

    __slots__ = ("_bytes_table", "_groups", "_rx", "_table", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        src = pattern.pattern
        why = _refusal(pattern)
        if why is not None:
            raise ValueError(f"{why}: {src[:60]!r}")
        fold = bool(pattern.flags & re.IGNORECASE)
        self._table = _StandIn(src, fold)
        for code, stand in self._table.symbols.items():
            src = src.replace(chr(code), f"\\x{stand:02x}")
        flags = ("i" if fold else "") + ("m" if pattern.flags & re.MULTILINE else "")
        self.pattern = pattern
        self._rx = re2.compile((f"(?{flags})" if flags else "") + src)
        self._bytes_table = bytes(self._table[c] for c in range(128)) + bytes(128)
        self._groups = range(pattern.groups + 1)

    def stand_in(self, text: str) -> bytes:
        """The ASCII text RE2 reads; pass it back when searching one text often."""
        if text.isascii():
            return text.encode("ascii").translate(self._bytes_table)
        return text.translate(self._table).encode("ascii")

    def search(self, text: str, pos: int = 0, stand_in: bytes | None = None) -> LinearMatch | None:
        """``pattern.search(text, pos)``."""
        stand = self.stand_in(text) if stand_in is None else stand_in
        m = self._rx.search(stand, pos)
        if m is None:
            return None
        return LinearMatch(text, [m.span(g) for g in self._groups], self.pattern.groupindex)

    def finditer(self, text: str) -> Iterator[LinearMatch]:
        """``pattern.finditer(text)``."""
        index = self.pattern.groupindex
        for m in self._rx.finditer(self.stand_in(text)):
            yield LinearMatch(text, [m.span(g) for g in self._groups], index)
