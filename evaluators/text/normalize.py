"""The normalised view every text detector reads, with a map back to the raw text.

Why: the same secret or attack phrase can be written in many byte sequences
that a reader cannot tell apart (zero-width characters, Cyrillic look-alikes,
full-width digits, odd whitespace, swapped case). Detectors match one
canonical view and report offsets into the *raw* string the caller sent, so
evidence always quotes exactly what was in the output.

Normalisation is done one source code point at a time, which keeps the offset
map trivial: every normalised character comes from exactly one raw code point
(NFKC expansions such as "ﬁ" -> "fi" share the same source index), and
dropped characters simply have no normalised counterpart.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import FrozenInstanceError
from functools import lru_cache

from evaluators.text.confusables import CONFUSABLES

# Invisible characters that are not Unicode category Cf but still render as nothing.
_EXTRA_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u034f\u180b\u180c\u180d\u180e")


class NormalizedText:
    """A normalised view of ``raw`` plus the offset table back to it.

    ``offsets`` has ``len(text) + 1`` entries: ``text[i]`` came from
    ``raw[offsets[i]]`` and the last entry is ``len(raw)``.

    Why not a dataclass: most outputs are plain ASCII with no whitespace run,
    where the table is the identity. Building that tuple cost more than the
    fold itself, so an identity view stores no table (``_offsets`` is None),
    maps spans without one, and only materialises ``offsets`` if a caller
    reads it. Equality, hashing, repr and pickling behave as the former
    frozen dataclass over ``(raw, text, offsets)`` did.
    """

    __slots__ = ("_offsets", "raw", "text")

    raw: str
    text: str
    _offsets: tuple[int, ...] | None

    def __init__(self, raw: str, text: str, offsets: tuple[int, ...]) -> None:
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_offsets", offsets)

    @classmethod
    def identity(cls, raw: str, text: str) -> NormalizedText:
        """A view whose ``text[i]`` came from ``raw[i]`` (same length, no table built)."""
        self = object.__new__(cls)
        object.__setattr__(self, "raw", raw)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "_offsets", None)
        return self

    @property
    def is_identity(self) -> bool:
        """True when ``text[i]`` came from ``raw[i]`` for every ``i`` (no table kept)."""
        return self._offsets is None

    @property
    def offsets(self) -> tuple[int, ...]:
        """The offset table (built on first read for an identity view)."""
        offsets = self._offsets
        if offsets is None:
            offsets = _index_range(0, len(self.raw) + 1)
            object.__setattr__(self, "_offsets", offsets)
        return offsets

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """Map normalised ``[start, end)`` to the raw span covering whole source chars."""
        n = len(self.text)
        if not 0 <= start <= end <= n:
            raise ValueError(f"span [{start}, {end}) outside normalised text of length {n}")
        offsets = self._offsets
        if offsets is None:
            return start, end
        if start == end:
            pos = offsets[start]
            return pos, pos
        return offsets[start], offsets[end - 1] + 1

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NormalizedText) or other.__class__ is not self.__class__:
            return NotImplemented
        if self.raw != other.raw or self.text != other.text:
            return False
        if self._offsets is None and other._offsets is None:
            return True
        return self.offsets == other.offsets

    def __hash__(self) -> int:
        return hash((self.raw, self.text, self.offsets))

    def __repr__(self) -> str:
        return f"NormalizedText(raw={self.raw!r}, text={self.text!r}, offsets={self.offsets!r})"

    def __reduce__(self) -> tuple[type[NormalizedText], tuple[str, str, tuple[int, ...]]]:
        return (NormalizedText, (self.raw, self.text, self.offsets))


@lru_cache(maxsize=8192)
def _fold_char(ch: str) -> str:
    """Normalised replacement for one non-ASCII code point ("" drops it, " " is whitespace)."""
    if ch.isspace():
        return " "
    if ch in _EXTRA_INVISIBLE or unicodedata.category(ch) in ("Cf", "Cc", "Co", "Cs"):
        return ""
    out = []
    for c in unicodedata.normalize("NFKC", ch).lower():
        if c.isspace():
            out.append(" ")
            continue
        cat = unicodedata.category(c)
        if cat in ("Mn", "Me", "Cf", "Cc") or c in _EXTRA_INVISIBLE:
            continue
        out.append(CONFUSABLES.get(c, c))
    return "".join(out)


def _ascii_fold(chunk: str) -> str:
    """Lower-case printable ASCII and turn its whitespace into spaces (1:1, in C)."""
    return (
        chunk.lower()
        .replace("\n", " ")
        .replace("\t", " ")
        .replace("\r", " ")
        .replace("\x0b", " ")
        .replace("\x0c", " ")
    )


# Characters handled one at a time: everything outside printable ASCII + ASCII whitespace.
_SPECIAL = re.compile(r"[^\x20-\x7e\t\n\r\x0b\x0c]")
_SPACE_RUN = re.compile(r"  +")
# Printable ASCII and ASCII whitespace: an ASCII text made only of these needs no
# per-character work (checked with one C-level bytes.translate).
_PLAIN_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r\x0b\x0c"


_identity: tuple[int, ...] = tuple(range(4096))


def _index_range(start: int, stop: int) -> tuple[int, ...]:
    """``tuple(range(start, stop))`` served from a shared table (avoids boxing ints)."""
    global _identity
    if stop > len(_identity):
        _identity = tuple(range(max(stop, 2 * len(_identity))))
    return _identity[start:stop]


def _fold_special(ch: str) -> str:
    """Replacement for a non-printable or non-ASCII code point."""
    if ch.isascii():
        return " " if ch in "\x1c\x1d\x1e\x1f" else ""
    return _fold_char(ch)


def _collapse_spaces(text: str, offsets: list[int]) -> tuple[str, list[int]]:
    """Fold runs of spaces to the first one, keeping the offset table aligned."""
    if "  " not in text:  # the common case: skip the regex pass
        return text, offsets
    runs = list(_SPACE_RUN.finditer(text))
    if not runs:
        return text, offsets
    parts: list[str] = []
    new_offsets: list[int] = []
    pos = 0
    for m in runs:
        keep_to = m.start() + 1
        parts.append(text[pos:keep_to])
        new_offsets.extend(offsets[pos:keep_to])
        pos = m.end()
    parts.append(text[pos:])
    new_offsets.extend(offsets[pos:])
    return "".join(parts), new_offsets


def normalize(raw: str) -> NormalizedText:
    """Build the detector view of ``raw``.

    Steps, per source code point: NFKC, lower-case, drop zero-width/format/
    control characters and combining marks, fold Cyrillic/Greek look-alikes
    to Latin, and fold every run of whitespace (NBSP, tabs, line breaks, ...)
    to one ASCII space. Printable ASCII is processed in bulk (it only changes
    case); other code points go through a cached per-character fold.
    """
    if raw.isascii() and not raw.encode("ascii").translate(None, _PLAIN_BYTES):
        text = _ascii_fold(raw)
        if "  " not in text:
            return NormalizedText.identity(raw, text)
        text, offsets = _collapse_spaces(text, list(_index_range(0, len(raw))))
        offsets.append(len(raw))
        return NormalizedText(raw, text, tuple(offsets))
    parts: list[str] = []
    offsets = []
    pos = 0
    for m in _SPECIAL.finditer(raw):
        i = m.start()
        if i > pos:
            parts.append(_ascii_fold(raw[pos:i]))
            offsets.extend(_index_range(pos, i))
        rep = _fold_special(raw[i])
        if rep:
            parts.append(rep)
            offsets.extend([i] * len(rep))
        pos = i + 1
    if pos < len(raw):
        parts.append(_ascii_fold(raw[pos:]))
        offsets.extend(_index_range(pos, len(raw)))
    text, offsets = _collapse_spaces("".join(parts), offsets)
    offsets.append(len(raw))
    return NormalizedText(raw, text, tuple(offsets))
