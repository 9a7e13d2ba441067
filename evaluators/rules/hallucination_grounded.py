"""Grounded fabrication signals of SPEC §8.19: output claims the material contradicts.

The material is everything the agent was given — the input (ask plus any
pasted source), the expected answer and the tool results. Each signal looks
for one *shape* of contradiction rather than for "anything not in the input",
because correct answers routinely add world knowledge, derived totals and
advice; a bare "absent token" test fires on exactly those. What the signals
share is a near-miss principle: a claim is flagged when the material holds a
value *of the same kind, bound to the same thing*, and the claim disagrees
with it (a transposed figure, the same unit with another number, a date in
the same month, a flag with the other polarity, a success over a recorded
failure).

Every signal is a ``(name, start, end, detail)`` tuple whose offsets index
the raw output. All scans are linear regex passes over capped text; nothing
here backtracks on attacker-controlled material.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from evaluators.rules.scan import anchored_finditer, lowered_twin
from evaluators.text.case import lower
from evaluators.text.linear import LinearMatch, LinearPattern
from evaluators.text.literals import LOWERED_OUTPUT, FamilyMember, LiteralFamily
from evaluators.text.starts import CharStarts, tried_at

Signal = tuple[str, int, int, str]

MATERIAL_CAP = 65_536  # grounding material scanned per evaluation
OUTPUT_CAP = 32_768  # output scanned per evaluation
DERIVE_CAP = 48  # numbers used for pairwise derivations (sums, ratios)

# -- numbers -----------------------------------------------------------------

_NUM = re.compile(
    r"(?<![\w.])(?P<cur>[$€£])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<suf>[kKMB](?![a-zA-Z]))?(?P<pct>\s?%)?"
)
# Words that mark a figure as an estimate; a literal suffix test on the few
# characters before each number (no regex per number).
_APPROX_WORDS: tuple[str, ...] = (
    "roughly",
    "about",
    "around",
    "approximately",
    "approx",
    "approx.",
    "nearly",
    "almost",
    "~",
    "≈",
    "call it",
    "some",
    "over",
    "under",
    "upwards of",
    "more than",
    "less than",
    "fewer than",
)
# Unit word after a number, normalised to one dimension name; the key is the
# lowercase token as written (plural, abbreviation or hyphenated form).
_UNIT_WORDS: dict[str, str] = {
    **dict.fromkeys(("ms", "msec", "millisecond", "milliseconds"), "ms"),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "second"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "minute"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hour"),
    **dict.fromkeys(("d", "day", "days"), "day"),
    **dict.fromkeys(("week", "weeks", "wk", "wks"), "week"),
    **dict.fromkeys(("month", "months"), "month"),
    **dict.fromkeys(("year", "years", "yr", "yrs"), "year"),
    **dict.fromkeys(("request", "requests", "req", "reqs", "rps"), "request"),
    **dict.fromkeys(("kb",), "kb"),
    **dict.fromkeys(("mb",), "mb"),
    **dict.fromkeys(("g", "gb", "gib"), "gb"),
    **dict.fromkeys(("user", "users", "people", "developers", "customers"), "people"),
    **dict.fromkeys(("row", "rows", "record", "records"), "row"),
    **dict.fromkeys(("attempt", "attempts", "retry", "retries"), "attempt"),
    **dict.fromkeys(("instance", "instances", "replica", "replicas", "node", "nodes"), "instance"),
    **dict.fromkeys(("seat", "seats"), "seat"),
    **dict.fromkeys(("test", "tests"), "test"),
    **dict.fromkeys(("restart", "restarts"), "restart"),
    **dict.fromkeys(("ft-lb", "nm"), "torque"),
    **dict.fromkeys(("mph", "kph", "km/h"), "speed"),
    **dict.fromkeys(("logo", "logos"), "logo"),
}
_UNIT_AFTER = re.compile(r"\s?-?\s?([A-Za-z][A-Za-z/-]*)")
_TIME_UNITS = frozenset({"ms", "second", "minute", "hour", "day", "week"})


class Num(NamedTuple):
    """One number as written: value, scaled value, percent flag, unit, offsets.
    Immutable; a named tuple because a text holds many numbers and a frozen
    dataclass pays one ``object.__setattr__`` per field to build each."""

    value: float
    scaled: float
    pct: bool
    unit: str | None
    approx: bool
    start: int
    end: int
    digits: str

    @property
    def decimals(self) -> int:
        text = self.digits
        return len(text.split(".", 1)[1]) if "." in text else 0


_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


# Where a _NUM match can begin: it consumes a currency sign or a digit first
# (its lookbehind consumes nothing), so other positions need no attempt.
_NUM_START = re.compile(r"[$€£\d]")


_NUM_STARTS = CharStarts(_NUM_START)
# _NUM, also capturing what _UNIT_AFTER would match at its end: the lookahead
# always succeeds (its group is optional) and consumes nothing, so the
# matches are _NUM's, and one match call per number replaces two.
_NUM_UNIT = re.compile(
    _NUM.pattern + r"(?=(?:" + _UNIT_AFTER.pattern.replace("(", "(?P<unit>", 1) + r")?)"
)


def _num_matches(text: str) -> Iterator[re.Match[str]]:
    """``_NUM.finditer(text)``, attempting only where a match can start: the
    leading lookbehind keeps re from skipping ahead on its own. The matches
    also carry the ``unit`` group of ``_NUM_UNIT``."""
    return _NUM_STARTS.finditer(_NUM_UNIT, text)


# The compiled number scan (evaluators/rules/_numkernel.c); absent when the
# package was installed without a C compiler, and then the reference below
# runs instead, with the same numbers.
try:
    from evaluators.rules import _numkernel
except ImportError:  # pragma: no cover - depends on the build
    _numkernel = None  # type: ignore[assignment]
# The material-side scans (evaluators/rules/_halkernel.c): digit tests, month
# stems, flag-assignment runs; each equal to its ``_reference`` below.
try:
    from evaluators.rules import _halkernel
except ImportError:  # pragma: no cover - depends on the build
    _halkernel = None  # type: ignore[assignment]


def numbers(text: str) -> list[Num]:
    """Every number in ``text`` with the unit word that follows it (if known).

    The compiled scan when it is built: one pass over the characters instead
    of a regex match per candidate start (the rule's costliest step)."""
    if _numkernel is not None:
        return _numkernel.numbers(text, Num, _UNIT_WORDS, _APPROX_WORDS)
    return _numbers_reference(text)


def _numbers_reference(text: str) -> list[Num]:
    """:func:`numbers` in pure Python: the reference the C scan must equal."""
    out: list[Num] = []
    append = out.append
    new_num = tuple.__new__  # what Num(...) does, without its Python frame
    unit_of = _unit_of
    # lowering ASCII text keeps every offset, so the text is lowered once and
    # each number's look-behind window sliced from it (other text is lowered
    # window by window, as a lowered character may be longer than one)
    low = text.lower() if text.isascii() else None  # ASCII: the compiled lower is exact
    for m in _num_matches(text):
        raw, suf, pct_sign, unit_word = m.group("num", "suf", "pct", "unit")
        value = float(raw.replace(",", "")) if "," in raw else float(raw)
        scaled = value * _SCALE[suf] if suf else value
        start, end = m.span()
        lo = start - 24 if start > 24 else 0
        before = low[lo:start].rstrip() if low is not None else lower(text[lo:start].rstrip())
        unit = "%" if pct_sign else (unit_of(unit_word) if unit_word else None)
        approx = before.endswith(_APPROX_WORDS)
        append(new_num(Num, (value, scaled, bool(pct_sign), unit, approx, start, end, raw)))
    return out


# unit word as written -> its dimension (or None): a pure function of the
# word, asked for each number, so each distinct word is looked up once
_UNIT_OF: dict[str, str | None] = {}


def _unit_of(unit_word: str) -> str | None:
    """The dimension of the word after a number (``_UNIT_WORDS``), if known."""
    try:
        return _UNIT_OF[unit_word]
    except KeyError:
        pass
    word = lower(unit_word).rstrip("/")
    unit = _UNIT_WORDS.get(word) or _UNIT_WORDS.get(word.split("-")[0])
    if len(_UNIT_OF) < 8192:
        _UNIT_OF[unit_word] = unit
    return unit


def _within(sorted_vals: list[float], x: float, tol: float) -> bool:
    """Some value lies in ``[x - tol, x + tol]`` (rounding at the claim's precision)."""
    i = bisect_left(sorted_vals, x - tol)
    return i < len(sorted_vals) and sorted_vals[i] <= x + tol


def _digit_key(text: str) -> str:
    return "".join(sorted(c for c in text if c.isdigit()))


def _sig_digits(v: float) -> str:
    s = f"{v:.6g}".replace(".", "").lstrip("0")
    return s.rstrip("0") or "0"


# -- dates and times ---------------------------------------------------------

_MONTHS: dict[str, int] = {}
for _i in range(1, 13):
    _MONTHS[lower(calendar.month_name[_i])] = _i
    _MONTHS[lower(calendar.month_abbr[_i])] = _i
_MONTHS["sept"] = 9
# Three-letter stems then up to six letters, checked against _MONTHS after
# the match: one cheap prefix test per position instead of a 25-way branch.
_MONTH_RE = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}"
_DATE_NAMED = re.compile(
    rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<year>\d{{4}}))?",
    re.I,
)
_DATE_DAY_FIRST = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH_RE})\b(?:,?\s+(?P<year>\d{{4}}))?",
    re.I,
)
_DATE_ISO = re.compile(r"\b(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})\b")
_WEEKDAY = re.compile(
    r"\b(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+(?:the\s+)?", re.I
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TIME = re.compile(
    r"(?<![\d:.])(?P<h>\d{1,2}):(?P<m>\d{2})(?::\d{2})?(?:\s*(?P<ap>[ap])\.?m\.?\b)?", re.I
)


@dataclass(frozen=True, slots=True)
class DateClaim:
    year: int | None
    month: int
    day: int
    start: int
    end: int


_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# Case-sensitive twins of the re.I date patterns, for lowered ASCII text: no
# letter of theirs is upper-case outside group-name syntax, and on ASCII text
# lowering keeps offsets and folds exactly what re.I folds.
_DATE_NAMED_LOW = re.compile(_DATE_NAMED.pattern)
_DATE_DAY_FIRST_LOW = re.compile(_DATE_DAY_FIRST.pattern)
# Where a day, year or hour can begin (a digit).
_DIGIT_STARTS = CharStarts(re.compile(r"\d"))


def _named_date_matches(text: str, low: str | None = None) -> Iterator[re.Match[str]]:
    """``_DATE_NAMED.finditer(text)`` then ``_DATE_DAY_FIRST.finditer(text)``.

    On ASCII text both run case-sensitively on the lowered text (``low``
    when the caller has it), tried only where a match can begin: a named
    date at a month stem, a day-first date at a digit (each opens with
    ``\\b`` and then that)."""
    if not text.isascii():
        yield from _DATE_NAMED.finditer(text)
        yield from _DATE_DAY_FIRST.finditer(text)
        return
    if low is None:
        low = lower(text)
    stems, viable = (
        _halkernel.month_stems(low) if _halkernel is not None else _month_stems_reference(low)
    )
    if not viable:
        return  # no stem at a word start has what either form needs around it
    yield from tried_at(_DATE_NAMED_LOW, low, stems)
    yield from _DIGIT_STARTS.finditer(_DATE_DAY_FIRST_LOW, low)


def _month_stems_reference(low: str) -> tuple[list[int], bool]:
    """The month stems of lowered ASCII ``low`` at which a named date may open
    (stem by stem, each in text order), and whether any of them passes the
    test of a form below (``_halkernel.month_stems`` must equal this)."""
    stems: list[int] = []
    viable = False  # some stem passes the test of a form below
    for stem_ in _MONTH_STEMS:
        i = low.find(stem_)
        while i >= 0:
            # a named date opens with ``\\b`` at its stem (a letter): the
            # character before is none or a non-word one; elsewhere its
            # match attempt fails, so it is not made
            before = low[i - 1] if i else ""
            if not (before.isalnum() or before == "_"):
                stems.append(i)
                viable = (
                    viable or _named_from(low, i) or (before.isspace() and _day_before(low, i - 1))
                )
            i = low.find(stem_, i + 1)
    return stems, viable


# Both tests below read lowered ASCII text, where ``\\s`` is ``str.isspace``,
# ``\\d`` is ``str.isdecimal`` and ``[a-z]`` is the lowercase letters. Each is a
# necessary condition for a match of its form at that stem, so a text none of
# whose stems passes either holds no named or day-first date.


def _named_from(low: str, i: int) -> bool:
    """A named date with its month at ``i`` needs ``stem[a-z]{0,6}\\.?\\s+\\d``:
    the letters end within six of the stem (a longer run has a letter where the
    dot or the space must be, however the month is cut back), then an optional
    dot, whitespace and a digit."""
    n = len(low)
    j = i + 3
    stop = min(n, j + 6)
    while j < stop and "a" <= low[j] <= "z":
        j += 1
    if j < n and "a" <= low[j] <= "z":
        return False
    if j < n and low[j] == ".":
        j += 1
    if j >= n or not low[j].isspace():
        return False
    while j < n and low[j].isspace():
        j += 1
    return j < n and low[j].isdecimal()


def _day_before(low: str, k: int) -> bool:
    """A day-first date with its month right after the whitespace ending at
    ``k`` needs ``\\d(?:st|nd|rd|th)?\\s+(?:of\\s+)?`` before it: reading back over
    the whitespace, a day (a digit, or a digit and a suffix), or "of" after
    whitespace and a day before that."""
    while k >= 0 and low[k].isspace():
        k -= 1
    if _day_at(low, k):
        return True
    if k >= 2 and low[k - 1 : k + 1] == "of" and low[k - 2].isspace():
        k -= 2
        while k >= 0 and low[k].isspace():
            k -= 1
        return _day_at(low, k)
    return False


def _day_at(low: str, k: int) -> bool:
    """A day (``\\d``, with an ordinal suffix or not) ends at ``k``."""
    if k < 0:
        return False
    if low[k].isdecimal():
        return True
    return k >= 2 and low[k - 1 : k + 1] in ("st", "nd", "rd", "th") and low[k - 2].isdecimal()


_ANY_DIGIT = re.compile(r"\d")


def _any_in(hay: str, literals: tuple[str, ...]) -> bool:
    """``any(lit in hay for lit in literals)``: the signals' material gates,
    one compiled call each when the kernel is built (a generator frame per
    gate cost more than the tests)."""
    if _halkernel is not None:
        return _halkernel.any_in(hay, literals)
    return _any_in_reference(hay, literals)


def _any_in_reference(hay: str, literals: tuple[str, ...]) -> bool:
    """:func:`_any_in` in Python."""
    return any(lit in hay for lit in literals)


# -- the material's literal pass ---------------------------------------------

# The literal gates the signals test on the material, answered by one pass:
# each was ``any(lit in mat.lower for lit in gate)``, one scan of the material
# per literal (about twenty scans an evaluation, and most gates find nothing).
# Every gate's ASCII literals are members of this family, so its one pass over
# the lowered material (``Material.literals``) reports exactly which occur.
_MATERIAL_FAMILY = LiteralFamily()


class _MaterialGate:
    """``any(lit in hay for lit in literals)`` for the material, read from its
    one literal pass: ``hay`` is the lowered material, or with ``exact`` the
    material as written.

    The pass holds the gate's keys (each literal, lowered when ``exact``)
    that are ASCII; a non-ASCII key ("≥", "→") can occur only in non-ASCII
    text and is looked for there with ``in``. An exact literal occurs in the
    text only where its lowered form occurs in the lowered text (characters
    lower one by one, and no literal here holds a sigma), so a key the pass
    misses rules its literal out, and the exact test runs only when some key
    is there."""

    __slots__ = ("_ascii", "_keys", "_other", "_pairs", "exact", "literals")

    def __init__(self, literals: Iterable[str], exact: bool = False) -> None:
        self.literals: tuple[str, ...] = tuple(literals)
        if "" in self.literals:
            raise ValueError("an empty literal occurs everywhere: not a gate")
        self.exact = exact
        self._keys: tuple[str, ...] = (
            tuple([lower(lit) for lit in self.literals]) if exact else self.literals
        )
        self._ascii: frozenset[str] = frozenset([k for k in self._keys if k.isascii()])
        self._other: tuple[str, ...] = tuple([k for k in self._keys if not k.isascii()])
        # (literal, key) pairs, for candidates' loop
        self._pairs: tuple[tuple[str, str], ...] = tuple(
            zip(self.literals, self._keys, strict=True)
        )
        _MATERIAL_FAMILY.member(self._ascii)

    def holds(self, mat: Material) -> bool:
        """Whether some literal occurs in the material (lowered unless ``exact``)."""
        if mat.literals.isdisjoint(self._ascii) and not (
            self._other and _any_in(mat.lower, self._other)
        ):
            return False
        return not self.exact or _any_in(mat.text, self.literals)

    def candidates(self, mat: Material) -> tuple[str, ...]:
        """The literals, in order, less those the pass rules out: every one
        that occurs is kept (where a search for each of them finds the same
        places as a search for all)."""
        found = mat.literals
        other = self._other
        kept: list[str] = []
        for lit, key in self._pairs:
            if key in found or key in other:  # (other: the non-ASCII keys)
                kept.append(lit)
        return tuple(kept)


# A named or day-first date opens with one of these (see ``_MONTH_RE``).
_MONTH_STEM_GATE = _MaterialGate(_MONTH_STEMS)


def _has_digit(text: str) -> bool:
    """``_ANY_DIGIT.search(text) is not None`` (the compiled test when built)."""
    if _halkernel is not None:
        return _halkernel.has_digit(text)
    return _has_digit_reference(text)


def _has_digit_reference(text: str) -> bool:
    """:func:`_has_digit` in Python: on ASCII text (where ``\\d`` is 0-9) ten
    ``in`` tests at memchr speed instead of a class scan."""
    if not text.isascii():
        return _ANY_DIGIT.search(text) is not None
    return any(digit in text for digit in "0123456789")


def dates(text: str, low: str | None = None, named: bool = True) -> list[DateClaim]:
    """Every date of ``text``: named and day-first, then ISO. ``low`` is
    ``lower(text)`` when the caller has it; ``named`` False leaves out the
    first two forms (for ASCII text known to hold no month stem, where
    neither can match)."""
    found: list[DateClaim] = []
    if not _has_digit(text):
        return found  # every form holds a day (or a year) in digits
    for m in _named_date_matches(text, low) if named else ():
        day = int(m.group("day"))
        if 1 <= day <= 31 and lower(m.group("mon")) in _MONTHS:
            y = m.group("year")
            found.append(
                DateClaim(
                    int(y) if y else None,
                    _MONTHS[lower(m.group("mon")).rstrip(".")],
                    day,
                    m.start(),
                    m.end(),
                )
            )
    for m in _DIGIT_STARTS.finditer(_DATE_ISO, text) if _digit_sign_digit(text, "-") else ():
        mon, day = int(m.group("mon")), int(m.group("day"))
        if 1 <= mon <= 12 and 1 <= day <= 31:
            found.append(DateClaim(int(m.group("year")), mon, day, m.start(), m.end()))
    return found


def _digit_sign_digit(text: str, sign: str, most: int = 64) -> bool:
    """:func:`_digit_sign_digit_reference`, compiled when the kernel is built
    (one pass over the characters instead of a Python loop over the signs)."""
    if _halkernel is not None:
        return _halkernel.digit_sign_digit(text, sign, most)
    return _digit_sign_digit_reference(text, sign, most)


def _digit_sign_digit_reference(text: str, sign: str, most: int = 64) -> bool:
    """Whether ``text`` may hold ``\\d`` + ``sign`` + ``\\d`` (``re``'s ``\\d`` is
    ``str.isdecimal``).

    Every clock time holds ``\\d:\\d`` and every ISO date ``\\d-\\d``, while a
    colon or a dash mostly follows a word ("Error: ...", "- item"): testing the
    few signs with ``str.find`` costs far less than the pattern tried at every
    digit. After ``most`` signs it answers True and leaves the text to the
    scan, so the test stays cheap on sign-heavy text."""
    i = text.find(sign)
    seen = 0
    while i >= 0:
        if i and text[i - 1].isdecimal() and text[i + 1 : i + 2].isdecimal():
            return True
        seen += 1
        if seen >= most:
            return True
        i = text.find(sign, i + 1)
    return False


def times(text: str) -> list[tuple[int, int, int, int]]:
    """``(hour24, minute, start, end)`` for clock times; am/pm folded to 24h."""
    out: list[tuple[int, int, int, int]] = []
    if not _digit_sign_digit(text, ":"):
        return out  # every clock time holds "\\d:\\d"
    for m in _DIGIT_STARTS.finditer(_TIME, text):
        h, mi = int(m.group("h")), int(m.group("m"))
        if h > 23 or mi > 59:
            continue
        ap = lower(m.group("ap") or "")
        if ap == "p" and h < 12:
            h += 12
        elif ap == "a" and h == 12:
            h = 0
        out.append((h, mi, m.start(), m.end()))
    return out


# -- the material ------------------------------------------------------------

_ASK_PREFIX = re.compile(
    r"^\s*(?:user asked|user|question|ask|request)\s*:\s*(?P<q>\"[^\n]*\"|[^\n]*)\n", re.I
)
_WORD = re.compile(r"[a-z0-9][a-z0-9_-]*")


def _norm_words(text: str) -> str:
    return " ".join(_WORD.findall(lower(text)))


class Material:
    """What the agent was given. ``ask`` is the user's request line when the
    input is laid out as "User asked: ..." followed by source text; claims of
    absence are checked against the source alone, never against the ask.

    Its views (lowered text, numbers, dates, ...) are built on first read and
    kept in explicit slots: compiled, this is a native class whose properties
    are direct calls and whose slots are struct fields (a descriptor and an
    instance ``__dict__`` per view cost more than most signals' gates)."""

    text: str
    source: str
    has_source: bool

    def __init__(self, text: str, source: str, has_source: bool) -> None:
        self.text = text
        self.source = source
        self.has_source = has_source
        self._lower: str | None = None
        self._words: str | None = None
        self._nums: list[Num] | None = None
        self._values: list[float] | None = None
        self._sorted_values: list[float] | None = None
        self._sorted_derived: list[float] | None = None
        self._derived: list[float] | None = None
        self._twin_tables: tuple[dict[str, Num], dict[str, Num]] | None = None
        self._units: set[str] | None = None
        self._dates: list[DateClaim] | None = None
        self._times: list[tuple[int, int, int, int]] | None = None
        self._source_lines: list[str] | None = None
        self._literals: frozenset[str] | None = None
        # grounds_once's memo: (pct, digits, scaled) -> grounded
        self._grounded: dict[tuple[bool, str, float], bool] = {}

    @classmethod
    def build(cls, input_text: str, extra: Iterable[str] = ()) -> Material:
        input_text = input_text[:MATERIAL_CAP]
        m = _ASK_PREFIX.match(input_text)
        source = input_text[m.end() :] if m else input_text
        more = "\n".join([x for x in extra if x])[:MATERIAL_CAP]
        text = f"{input_text}\n{more}" if more else input_text
        # Absence-based signals ("appears nowhere in the material") only mean
        # something when source material was supplied, not a one-line ask.
        # (The non-blank lines are counted only when the rest does not decide.)
        has_source = (
            bool(more.strip())
            or (m is not None and bool(source.strip()))
            or sum(1 for line in input_text.splitlines() if line.strip()) >= 3
        )
        return cls(text, f"{source}\n{more}" if more else source, has_source)

    @property
    def lower(self) -> str:
        """The text lowered."""
        low = self._lower
        if low is None:
            low = self._lower = lower(self.text)
        return low

    @property
    def words(self) -> str:
        """The text's words, lowered, space-joined and space-framed."""
        words = self._words
        if words is None:
            words = self._words = f" {_norm_words(self.text)} "
        return words

    @property
    def nums(self) -> list[Num]:
        """Every number of the text (:func:`numbers`)."""
        nums = self._nums
        if nums is None:
            nums = self._nums = numbers(self.text)
        return nums

    @property
    def values(self) -> list[float]:
        """Each number's value, and its scaled value where that differs."""
        vals = self._values
        if vals is None:
            vals = []
            for n in self.nums:
                vals.append(n.value)
                if n.scaled != n.value:
                    vals.append(n.scaled)
            self._values = vals
        return vals

    @property
    def sorted_values(self) -> list[float]:
        """:attr:`values`, sorted."""
        vals = self._sorted_values
        if vals is None:
            vals = self._sorted_values = sorted(self.values)
        return vals

    @property
    def sorted_derived(self) -> list[float]:
        """:attr:`derived`, sorted."""
        vals = self._sorted_derived
        if vals is None:
            vals = self._sorted_derived = sorted(self.derived)
        return vals

    @property
    def derived(self) -> list[float]:
        """Pairwise sums, differences and ratios a correct answer may compute."""
        out = self._derived
        if out is None:
            base = sorted({n.scaled for n in self.nums})[:DERIVE_CAP]
            total = sum(n.value for n in self.nums if not n.pct and n.unit is None)
            out = [total]
            if _pair_derivations is not None:
                _pair_derivations(base, out)  # the compiled loop: up to 48²/2 pairs
            else:
                _pair_derivations_reference(base, out)
            self._derived = out
        return out

    @property
    def twin_tables(self) -> tuple[dict[str, Num], dict[str, Num]]:
        """The material's figures by sorted digits (three or more) and by
        significant digits (ten and up, or with a decimal point), years
        aside: where ``_near_miss_numbers`` looks for a claim's twin. Built
        by the C kernel when it is (every evaluation with material asks)."""
        tables = self._twin_tables
        if tables is None:
            if _numkernel is not None:
                tables = _numkernel.twin_tables(self.nums)
            else:
                tables = _twin_tables_reference(self.nums)
            self._twin_tables = tables
        return tables

    @property
    def units(self) -> set[str]:
        """The units the material measures in."""
        units = self._units
        if units is None:
            units = self._units = {n.unit for n in self.nums if n.unit}
        return units

    @property
    def literals(self) -> frozenset[str]:
        """The literals of the signals' material gates that occur in the
        lowered text: one pass answers them all (see :class:`_MaterialGate`)."""
        found = self._literals
        if found is None:
            found = self._literals = _MATERIAL_FAMILY.present(self.lower)
        return found

    @property
    def dates(self) -> list[DateClaim]:
        """Every calendar date of the text (:func:`dates`). ASCII text with no
        month stem holds only ISO dates: a named or day-first date needs one."""
        found = self._dates
        if found is None:
            named = not self.text.isascii() or _MONTH_STEM_GATE.holds(self)
            found = self._dates = dates(self.text, self.lower, named)
        return found

    @property
    def times(self) -> list[tuple[int, int, int, int]]:
        """Every clock time of the text (:func:`times`)."""
        found = self._times
        if found is None:
            found = self._times = times(self.text)
        return found

    @property
    def source_lines(self) -> list[str]:
        """The source's non-blank lines, each as its normalised words."""
        lines = self._source_lines
        if lines is None:
            lines = self._source_lines = [
                _norm_words(line) for line in self.source.splitlines() if line.strip()
            ]
        return lines

    def grounds_once(self, n: Num) -> bool:
        """:meth:`grounds`, decided once per distinct figure: it reads only the
        percent flag, the value and decimals (both fixed by the digits as
        written) and the scaled value, so those are the key."""
        key = (n.pct, n.digits, n.scaled)
        memo = self._grounded
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = self.grounds(n)
        return hit

    def grounds(self, n: Num) -> bool:
        """The material states this figure or a plain derivation of it
        (sorted lists + bisect: a claim costs O(log m), not O(m²))."""
        tol = 0.5 * 10.0 ** (-n.decimals) + 1e-9
        if n.pct:
            for s in self.nums:
                if s.pct and abs(s.value - n.value) <= tol:
                    return True
                if not s.pct and s.value < 1 and abs(s.value * 100 - n.value) <= tol:
                    return True
            return _within(self.sorted_derived, n.value, tol)
        vals = self.sorted_values
        if _within(vals, n.value, tol) or _within(vals, n.scaled, tol):
            return True
        if n.scaled >= 1000 and _within(vals, n.scaled, 0.05 * n.scaled):
            return True  # "2.9M" for 2,914,377
        return _within(self.sorted_derived, n.scaled, tol)


def _twin_tables_reference(nums: list[Num]) -> tuple[dict[str, Num], dict[str, Num]]:
    """:attr:`Material.twin_tables` in pure Python: the reference the
    kernel's ``twin_tables`` must equal."""
    src_keys: dict[str, Num] = {}
    src_sig: dict[str, Num] = {}
    for s in nums:
        if _is_year(s):
            continue
        if len(s.digits.replace(",", "").replace(".", "")) >= 3:
            src_keys.setdefault(_digit_key(s.digits), s)
        if s.value >= 10 or "." in s.digits:
            src_sig.setdefault(_sig_digits(s.value), s)
    return src_keys, src_sig


def _pair_derivations_reference(base: list[float], out: list[float]) -> None:
    """Append each pair's sum, difference and percentage ratios (``a`` before
    ``b`` in ``base``): :meth:`Material.derived`'s loop, the reference the
    kernel's ``pair_derivations`` must equal."""
    for i, a in enumerate(base):
        for b in base[i + 1 :]:
            out += [a + b, b - a]
            if a:
                out += [b / a * 100, (b - a) / a * 100]
            if b:
                out += [a / b * 100, (b - a) / b * 100]


# The compiled loop; None with an older build of the kernel (or none).
_pair_derivations: Callable[[list[float], list[float]], None] | None = getattr(
    _numkernel, "pair_derivations", None
)


# -- signal tables -----------------------------------------------------------

_ATTRIBUTION = re.compile(
    r"\b(?:per the|according to the|as the \w+ (?:says|states|advises|recommends)|from the (?:doc|"
    r"docs|report|runbook|policy|guide|manual|table|transcript|log|logs)\b"
    r"|the (?:report|doc|docs|documentation|runbook|policy|scan|audit|log|logs|table|changelog|"
    r"manual|transcript|guide|study|abstract) (?:says|states|shows|lists|reports|notes|confirms|"
    r"advises|recommends)"
    r"|verbatim|if memory serves|if i remember)",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")
# One of these (lowercase) is in every _ATTRIBUTION match: its fixed phrases,
# "from the ", and the space-led verb that ends its two "the X says" forms.
_ATTRIBUTION_LITERALS: tuple[str, ...] = (
    "per the",
    "according to the",
    "from the ",
    "verbatim",
    "if memory serves",
    "if i remember",
    " says",
    " states",
    " shows",
    " lists",
    " reports",
    " notes",
    " confirms",
    " advises",
    " recommends",
)
# What every _ATTRIBUTION match starts with (lowercase): its fixed phrases,
# "as the ", "from the " and "the " before each noun of its "the X says"
# form ("the doc" also opens "the docs" and "the documentation", "the log"
# "the logs"). The lowered twin is tried only there: a search ran the
# matcher at every character of the output.
_ATTRIBUTION_LEADS: tuple[str, ...] = (
    "per the",
    "according to the",
    "as the ",
    "from the ",
    *(
        f"the {noun}"
        for noun in (
            "report", "doc", "runbook", "policy", "scan", "audit", "log", "table", "changelog",
            "manual", "transcript", "guide", "study", "abstract",
        )
    ),
    "verbatim",
    "if memory serves",
    "if i remember",
)  # fmt: skip
_DIGIT_DOT_DIGIT = re.compile(r"\d\.\d")
# The leads in the lowered output's one pass: only those there are searched for.
_ATTRIBUTION_LEAD_SET = LOWERED_OUTPUT.member(_ATTRIBUTION_LEADS)


_ATTRIBUTION_SET = LOWERED_OUTPUT.member(_ATTRIBUTION_LITERALS)


# The last text lowered and its lowered form, as one tuple (so a reader on
# another thread sees a matching pair): the signals of one evaluation lower
# the same output up to seven times.
_LAST_LOWERED: tuple[str, str] = ("", "")


def _lowered(text: str) -> str:
    """``text.lower()``, remembered for the last text asked (by identity)."""
    global _LAST_LOWERED
    last = _LAST_LOWERED
    if last[0] is text:
        return last[1]
    low = lower(text)
    _LAST_LOWERED = (text, low)
    return low


def _remember_lowered(text: str, low: str) -> None:
    """Make ``low`` (which must be ``text.lower()``) what :func:`_lowered`
    answers for ``text``."""
    global _LAST_LOWERED
    _LAST_LOWERED = (text, low)


def _cannot_match(text: str, literals: FamilyMember) -> bool:
    """No literal of a case-insensitive pattern occurs, so it cannot match.
    Decided only for ASCII text, where re's IGNORECASE and ``str.lower``
    agree exactly; other text is left to the pattern itself."""
    if not text.isascii():
        return False
    return not literals.present(_lowered(text))


# Failure evidence in the material, with the reason it counts.
_FAILURE_EVIDENCE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\"(?:success|ok|succeeded)\"\s*:\s*false", re.I),
        "a result reports success: false",
    ),
    (re.compile(r"\"error\"\s*:\s*\"[^\"\s][^\"]*\"", re.I), "a result carries an error"),
    (re.compile(r"\b[1-9]\d* (?:failed|failures?|errors?)\b", re.I), "a run reports failures"),
    (re.compile(r"^FAILED\b", re.M), "a run lists FAILED tests"),
    (
        re.compile(
            r"\"?(?:status|state|result|last_payment_result)\"?\s*[:=]\s*\"?(?:failed|failure|error|errored|past_due"
            r"|declined|card_declined|suspended|expired|overdue|rejected|denied|unhealthy)\b",
            re.I,
        ),
        "a recorded status is a failure",
    ),
    (
        re.compile(r"\b(?:exit[_ ]?code|exitcode|returncode)\s*[:=]\s*[1-9]", re.I),
        "a non-zero exit code",
    ),
    (
        re.compile(r"(?:\b(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+\S+\s+|HTTP/[\d.]+\s+|→\s*)5\d\d\b"),
        "server errors (5xx) in the log",
    ),
)
# For each _FAILURE_EVIDENCE pattern, literals one of which every match of
# it holds, and whether they are lowered (the re.I patterns: decided on the
# lowered text only when it is ASCII, where re.I and str.lower agree) or
# exact (the case-sensitive patterns: decided on any text). Each pattern
# opens with ``\b`` or an optional quote, so a search runs the matcher at
# every character; a literal test skips the ones that cannot match.
_FAILURE_GATES: tuple[tuple[tuple[str, ...], bool], ...] = (
    (("false",), True),
    (('"error"',), True),
    ((" fail", " error"), True),
    (("FAILED",), False),
    (("status", "state", "result"), True),
    (("exit", "returncode"), True),
    (("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "HTTP/", "→"), False),
)
assert len(_FAILURE_GATES) == len(_FAILURE_EVIDENCE)


def _failure_reasons(mat: Material, first_only: bool = False) -> list[str]:
    """``[why for rx, why in _FAILURE_EVIDENCE if rx.search(mat.text)]``,
    searching only where the pattern's literals occur; with ``first_only``
    the list ends at its first reason, the later patterns not tried
    (:func:`_false_success` reads the first only).

    A pattern whose gate literals are its anchors (every match starts at one
    of them, or at an optional quote just before one, so a match exists iff
    one starts at some occurrence) is tried only at those occurrences: the
    status pattern opens with an optional quote under re.I, so a search ran
    the matcher at every character of the material, on every tool result
    holding "status" (a third of the rule on the worker's cases)."""
    reasons: list[str] = []
    text = mat.text
    ascii_text = text.isascii()
    low = mat.lower
    for rx, why, literals, lowered, anchored, gate in _FAILURE_TABLE:
        if lowered and not ascii_text:
            found = rx.search(text) is not None
        elif not gate.holds(mat):
            continue
        elif anchored is None:
            found = rx.search(text) is not None
        else:
            found = _matches_at_some(anchored, low if lowered else text, literals)
        if found:
            reasons.append(why)
            if first_only:
                break
    return reasons


def _matches_at_some(rx: re.Pattern[str], hay: str, literals: tuple[str, ...]) -> bool:
    """Whether ``rx`` matches at some occurrence of one of ``literals`` in ``hay``
    (the compiled loop when the kernel is built: a Python find and call per
    occurrence before)."""
    if _matches_at_some_kernel is not None:
        return _matches_at_some_kernel(rx.match, hay, literals)
    return _matches_at_some_reference(rx, hay, literals)


def _matches_at_some_reference(rx: re.Pattern[str], hay: str, literals: tuple[str, ...]) -> bool:
    """:func:`_matches_at_some` in Python: the reference the kernel must equal."""
    match = rx.match
    for lit in literals:
        i = hay.find(lit)
        while i >= 0:
            if match(hay, i) is not None:
                return True
            i = hay.find(lit, i + 1)
    return False


# _FAILURE_EVIDENCE beside its gates, one row per pattern, for the loop above;
# the fifth column is the pattern to try at the gate literals when they are its
# anchors (the lowered twin for a re.I pattern, read on the lowered ASCII
# text), or None when the literals only gate a plain search; the last is the
# gate read from the material's literal pass (lowered, or exact on the text).
_FAILURE_ANCHORED = (False, True, False, True, True, True, True)
_FAILURE_TABLE: tuple[
    tuple[re.Pattern[str], str, tuple[str, ...], bool, re.Pattern[str] | None, _MaterialGate],
    ...,
] = tuple(
    (
        rx,
        why,
        literals,
        lowered,
        (lowered_twin(rx) if lowered else rx) if anchored else None,
        _MaterialGate(literals, exact=not lowered),
    )
    for (rx, why), (literals, lowered), anchored in zip(
        _FAILURE_EVIDENCE, _FAILURE_GATES, _FAILURE_ANCHORED, strict=True
    )
)


# Literals at least one of which every failure-evidence pattern needs: a
# cheap gate before the regexes run.
_FAILURE_HINTS: tuple[str, ...] = (
    "false",
    "error",
    "fail",
    "status",
    "state",
    "result",
    "exit",
    "code",
    " 5",
)
_FAILURE_HINT_GATE = _MaterialGate(_FAILURE_HINTS)
# Run by RE2 (``LinearPattern``): from every newline of a long blank stretch
# ``re`` re-scanned the rest of it for the word, quadratic in its length.
_SUCCESS_CLAIM = LinearPattern(
    re.compile(
        r"(?:^|[\n.!?]\s*)(?:done|all set|you'?re all set|success)\b"
        r"|\bi(?:'ve| have)? (?:successfully )?(?:updated|deleted|removed|created|sent|changed|set|"
        r"added|moved|cleaned|cancel+ed|applied|merged|deployed|migrated|fixed)\b"
        r"|\b(?:all green|all (?:\d+ )?tests? passed|(?:the )?(?:suite|tests?|build) (?:passed|"
        r"is green|succeeded)|safe to merge"
        r"|in good standing|no payment issues|no (?:server[- ]side |backend |5xx )?(?:errors|"
        r"failures)(?: at all)?"
        r"|completed successfully|went through|nothing failed|no action needed)\b",
        re.I,
    )
)
# One of these (lowercase) is in every _SUCCESS_CLAIM match: a word of each
# alternative ("success" stands for "successfully"; "set" and "sent", which
# other words hold, come with what precedes them in the claim).
_SUCCESS_CLAIM_LITERALS: tuple[str, ...] = (
    "done", "all set", "success", "updated", "deleted", "removed", "created",
    "i sent", "'ve sent", "have sent", "changed", "i set", "'ve set", "have set",
    "added", "moved", "cleaned", "cancel", "applied", "merged", "deployed", "migrated",
    "fixed", "all green", "passed", "is green", "succeeded", "safe to merge",
    "in good standing", "no payment issues", "errors", "failures", "went through",
    "nothing failed", "no action needed",
)  # fmt: skip
_SUCCESS_CLAIM_SET = LOWERED_OUTPUT.member(_SUCCESS_CLAIM_LITERALS)
_FAILURE_ACK = re.compile(
    r"\b(?:fail(?:ed|s|ure|ures|ing)?|error(?:ed|s)?|couldn'?t|could not|unable to|denied|declined|"
    r"past[ _]due"
    r"|overdue|unpaid|lacks?|rejected|did(?:n'?t| not) go through|not (?:been )?(?:updated|deleted|"
    r"removed|changed|applied)"
    r"|5\d\d|crash(?:ed|es)?)\b",
    re.I,
)
_DENIAL = re.compile(r"\bno (?:server[- ]side |backend |5xx |server )?errors\b|\bno 5xx\b", re.I)

_EMPTY_RESULT = re.compile(
    r"\"(?:results|items|hits|matches|documents|docs|data|files|records|rows|entries)\"\s*:\s*\[\s*\]"
    r"|\"(?:total|count|total_count|num_results|hits)\"\s*:\s*0\b|\b0 (?:results|matches|hits|"
    r"documents)\b",
    re.I,
)
# One of these (lowercase) is in every _EMPTY_RESULT match: its quoted keys
# and its "0 <word>" forms.
_EMPTY_RESULT_LITERALS: tuple[str, ...] = (
    *(
        f'"{key}"'
        for key in (
            "results", "items", "hits", "matches", "documents", "docs", "data", "files",
            "records", "rows", "entries", "total", "count", "total_count", "num_results",
        )
    ),
    "0 results",
    "0 matches",
    "0 hits",
    "0 documents",
)  # fmt: skip
_EMPTY_RESULT_GATE = _MaterialGate(_EMPTY_RESULT_LITERALS)
_FINDINGS_CLAIM = re.compile(
    r"\b(?:several|multiple|many|a few|some|two|three|four|five|\d+)\s+(?:\w+\s+)?(?:documents|"
    r"docs|results|matches|hits|files|records|entries|articles|pages)\b"
    r"|\bcame back\b|\bthe (?:\w+ )?docs (?:cover|say|describe|explain)",
    re.I,
)
_EMPTY_ACK = re.compile(
    r"\b(?:no (?:results|matches|documents|hits|matching)|nothing (?:came back|was found|matched)|"
    r"returned (?:nothing|no)"
    r"|(?:did(?:n'?t| not)|could(?:n'?t| not)) find|empty|zero results|found nothing)\b",
    re.I,
)

# Run by RE2 (``LinearPattern``): from every severity word in a run like
# "low-low-low-..." ``re`` re-scanned the rest of the run for a space.
_SEVERITY = LinearPattern(
    re.compile(
        r"\b(?P<w>critical|high|moderate|medium|low)(?:\s+|-)(?:severity|(?:[\w-]+\s+)?vulnerabilit(?:y|ies))\b"
        r"|\bseverity(?:\s+(?:of|is)|:)?\s+(?P<w2>critical|high|moderate|medium|low)\b",
        re.I,
    )
)

# Where the material sets a flag: a JSON object with "enabled", an assignment
# (``key: true``, ``key=off``), or ``key (default: on)``.
_BOOL_OBJECT = re.compile(
    r"\"(?P<key>[A-Za-z][\w-]*)\"\s*:\s*\{[^{}]{0,200}?\"enabled\"\s*:\s*(?P<val>true|false)",
    re.I,
)
# The assignment form, written so that it runs in linear time. Its key is
# "``[A-Za-z][\w.-]*``, then the assignment": as a search, that tried every
# letter of a long run of word characters and scanned the rest of the run from
# each (quadratic — seconds on a 10 KB hex dump). A key can only end where its
# run of ``[\w.-]`` ends (the next character must be a quote, space, ``:`` or
# ``=``), so every start inside one run shares one fate: the run is matched
# once, possessively, from its first character, and the key is the run from
# its first letter (``_KEY_START``; with IGNORECASE that class also takes the
# letters that fold to ASCII, as the key's class did).
_BOOL_ASSIGN = re.compile(
    r"\"?(?<![\w.-])(?P<run>[\w.-]++)\"?\s*[:=]\s*\"?(?P<val>true|false|on|off|enabled|disabled)\b",
    re.I,
)
# The same form anchored where the previous setting ended: the characters
# before that point were consumed by it, so a run may start right there even
# after a word character (``a:true.b:on`` sets b).
_BOOL_ASSIGN_HERE = re.compile(
    r"\"?(?P<run>[\w.-]++)\"?\s*[:=]\s*\"?(?P<val>true|false|on|off|enabled|disabled)\b",
    re.I,
)
_KEY_START = re.compile(r"[A-Za-z]", re.I)
_BOOL_DEFAULT = re.compile(
    r"\b(?P<key>[A-Za-z][\w]*)\s*\(default:\s*(?P<val>true|false|on|off)\)", re.I
)


# What precedes an assignment's ``[:=]``, read on the reversed text from just
# before it: the spaces, an optional quote, the key's run (maximal, as the
# possessive run in _BOOL_ASSIGN is).
_ASSIGN_BEFORE = re.compile(r"\s*\"?([\w.-]+)")
_ASSIGN_SIGN = re.compile(r"[:=]")
# What _BOOL_ASSIGN needs right after its sign. A match from a run reaches
# exactly the sign that run was read back from (the run is maximal, then an
# optional quote, spaces, the sign), so a sign not followed by this starts no
# match, and its run is not listed.
_VALUE_AFTER = re.compile(r"\s*\"?(?:true|false|on|off|enabled|disabled)\b", re.I)


class _AssignStarts:
    r"""``_BOOL_ASSIGN.search(text, pos)``, attempted only where a match can start.

    A match is ``"?`` + a run of ``[\w.-]`` that its lookbehind makes a whole
    run + ``"?\s*[:=]`` + the value. So it starts at the first character of
    a run followed by an optional quote, spaces and a ``[:=]``, or at a quote
    just before such a run; each ``[:=]`` names at most one such run (read
    backwards from it), and runs between two signs hold no sign. A search
    from ``pos`` is then the first of those starts at or after ``pos`` where
    the pattern matches; a quote start before ``pos`` leaves the run start
    (where the optional quote matches empty, the lookbehind seeing the quote).
    A start inside a run, or on the spaces before a sign, is refused by the
    lookbehind or finds no run, as in the plain search."""

    __slots__ = ("_runs", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        if _halkernel is not None:
            self._runs = _halkernel.assign_runs(text, _VALUE_AFTER.match)
        else:
            self._runs = _assign_runs_reference(text)

    def search(self, pos: int) -> re.Match[str] | None:
        text, runs = self._text, self._runs
        match = _BOOL_ASSIGN.match
        for i in range(bisect_left(runs, pos), len(runs)):
            run = runs[i]
            quoted = run > pos and text[run - 1] == '"'
            found = match(text, run - 1 if quoted else run)
            if found is not None:
                return found
        return None


def _assign_runs_reference(text: str) -> list[int]:
    """The run starts of :class:`_AssignStarts`, ascending: for each sign
    followed by a value, the run read back from it (``_halkernel.assign_runs``
    must equal this)."""
    runs: list[int] = []  # run starts, ascending (one per sign at most)
    if ":" in text or "=" in text:
        n = len(text)
        rev = text[::-1]
        value_after = _VALUE_AFTER.match
        for sign in _sign_positions(text):
            if value_after(text, sign + 1) is None:
                continue  # the only match that could use this sign fails
            before = _ASSIGN_BEFORE.match(rev, n - sign)
            if before is not None:
                runs.append(n - before.end(1))
    return runs


def _sign_positions(text: str) -> list[int]:
    """``[m.start() for m in _ASSIGN_SIGN.finditer(text)]``: every ``:`` and
    ``=``, ascending, found by ``str.find`` (a one-character class gives
    ``re`` no prefix to skip by, so its scan stepped through every character)."""
    found: list[int] = []
    for sign in ":=":
        i = text.find(sign)
        while i >= 0:
            found.append(i)
            i = text.find(sign, i + 1)
    found.sort()
    return found


def _flag_settings(text: str, lowered: str | None = None) -> Iterator[tuple[str, str]]:
    """(key, value) of every flag the text sets, form by form, in text order.
    ``lowered`` is ``text.lower()`` when the caller has it already."""
    # an object form holds '"enabled"' (re.I: on ASCII text, exactly when
    # the lowered text does); its search runs the matcher at every quote
    low = (text.lower() if lowered is None else lowered) if text.isascii() else None
    if low is None or '"enabled"' in low:
        for m in _BOOL_OBJECT.finditer(text):
            yield m.group("key"), m.group("val")
    # the assignment form: compiled when built (None: a step there hangs on
    # re.IGNORECASE folding a non-ASCII letter, and the Python loop decides)
    assigned = None
    if _halkernel is not None:
        assigned = _halkernel.assign_settings(text, _VALUE_AFTER.match)
    yield from _assign_settings_reference(text) if assigned is None else assigned
    # every match holds "(default:" (re.I: on ASCII text, exactly when the
    # lowered text does); the search runs the matcher at every character
    if low is None or "(default:" in low:
        for m in _BOOL_DEFAULT.finditer(text):
            yield m.group("key"), m.group("val")


def _assign_settings_reference(text: str) -> Iterator[tuple[str, str]]:
    """(key, value) of every assignment-form setting, in text order: the
    middle form of :func:`_flag_settings` (``_halkernel.assign_settings``
    must equal this, or answer None to leave a text to it)."""
    pos = 0
    starts = _AssignStarts(text)
    while (
        found := (_BOOL_ASSIGN_HERE.match(text, pos) if pos else None) or starts.search(pos)
    ) is not None:
        run = found.group("run")
        first = _KEY_START.search(run)
        if first is None:
            # No key starts in this run; what follows it is searched afresh,
            # as the plain search would have done.
            pos = found.end("run")
            continue
        yield run[first.start() :], found.group("val")
        pos = found.end()


_BOOL_VALUE = {
    "true": True,
    "on": True,
    "enabled": True,
    "false": False,
    "off": False,
    "disabled": False,
}
_BOOL_GENERIC_KEYS = frozenset({"enabled", "enable", "active", "value", "default", "on", "flag"})
_POLARITY = re.compile(
    r"[\s`*'\"=:]*(?:(?:is|are|was|were|stays?|remains?|set to|turned|switched|gets?|"
    r"being)\s+){0,2}"
    r"(?P<neg>not\s+|n't\s+)?(?P<w>enabled|disabled|on|off|true|false|live|active|inactive)\b",
    re.I,
)
_POLARITY_VALUE = {
    "enabled": True,
    "on": True,
    "true": True,
    "live": True,
    "active": True,
    "disabled": False,
    "off": False,
    "false": False,
    "inactive": False,
}

_PROHIBITION = re.compile(
    r"\b(?:do not|don't|never|must not|should not|shouldn't)\s+(?P<verb>enable|turn on|switch on|"
    r"activate|use|run|deploy|disable|turn off|delete|remove)\s+(?P<obj>[`'\"]?[\w.-]+)",
    re.I,
)
_PROHIBITION_LEADS = ("do not", "don't", "never", "must not", "should not", "shouldn't")
# One of these (lowercase) is in every material that forbids something.
_PROHIBITION_GATE = _MaterialGate(("not ", "don't", "never", "shouldn't"))
_PROHIBITION_LEAD_GATE = _MaterialGate(_PROHIBITION_LEADS)
_VERB_CLASS = {
    "enable": "on",
    "turn on": "on",
    "switch on": "on",
    "activate": "on",
    "use": "use",
    "run": "run",
    "deploy": "deploy",
    "disable": "off",
    "turn off": "off",
    "delete": "delete",
    "remove": "delete",
}
_NEGATION_BEFORE = re.compile(
    r"\b(?:not|don't|do not|never|avoid|no|without|shouldn't|should not|won't)\b[^.]{0,25}$", re.I
)

# Run by RE2 (``LinearPattern``): ``re`` re-scanned a run of digits from
# every digit in it looking for " or more", quadratic in its length.
_INCLUSIVE_SOURCE = LinearPattern(
    re.compile(
        r"\$?(?P<n>\d[\d,]*(?:\.\d+)?)\s+or\s+(?:more|above|greater|higher|over)\b|"
        r"\bat least\s+\$?(?P<n2>\d[\d,]*(?:\.\d+)?)|(?:≥|>=)\s*\$?(?P<n3>\d[\d,]*(?:\.\d+)?)",
        re.I,
    )
)
# What each _INCLUSIVE_SOURCE form holds, on lowered ASCII text (where re.I
# and lowering agree, and "≥" cannot occur): "or" then its comparative, "at
# least", or ">=". The RE2 search (its stand-in text built first) is run only
# when one of them is there: "no such file or directory" has " or " but no
# threshold.
_OR_MORE = re.compile(r"or\s+(?:more|above|greater|higher|over)\b")


# One of these (lowercase) is in every material stating an inclusive threshold.
_THRESHOLD_GATE = _MaterialGate((" or ", "at least", "≥", ">="))


def _inclusive_possible(low: str) -> bool:
    """Whether lowered ASCII ``low`` holds what some inclusive threshold needs."""
    return "at least" in low or ">=" in low or _OR_MORE.search(low) is not None


_EXCLUSIVE_CLAIM = re.compile(
    r"\b(?:above|over|more than|greater than|exceeds?|exceeding|"
    r"past)\s+\$?(?P<n>\d[\d,]*(?:\.\d+)?)",
    re.I,
)

_QUOTE = re.compile(r"[\"“](?P<q>[^\"“”\n]{20,600})[\"”]")
_QUOTE_CUE = re.compile(
    r"\b(?:verbatim|quote|quoted|quoting|says|said|states|stated|reads|wrote|writes|according to|"
    r"own words|in the (?:report|doc|docs|transcript))\b",
    re.I,
)

_ABSENCE_CLAIM = re.compile(
    r"\b(?:do(?:es)?n['’]t|do(?:es)? not|never)\s+(?:mention|include|contain|list|reference|cover|"
    r"say anything about|talk about)\s+"
    r"(?:any(?:thing about)?\s+|a\s+|an\s+|the\s+)?(?P<what>[\w' -]{3,80}?)(?=\s*[,.;:—–()]|\s+-\s|"
    r"$)",
    re.I,
)
_ABSENCE_VERBS: tuple[str, ...] = (
    "mention",
    "include",
    "contain",
    "list",
    "reference",
    "cover",
    "say anything",
    "talk about",
)
_ABSENCE_VERB_SET = LOWERED_OUTPUT.member(_ABSENCE_VERBS)  # any of them in one pass
# Every absence claim opens with one of these (lowered): read from the same pass.
_ABSENCE_OPENER_SET = LOWERED_OUTPUT.member(("not", "n't", "never"))
_ABSENCE_STOP = frozenset(
    {
        "the",
        "for",
        "and",
        "with",
        "that",
        "this",
        "from",
        "about",
        "any",
        "was",
        "were",
        "our",
        "their",
        "into",
        "onto",
    }
)

_STATUS_SOURCE = re.compile(
    r"(?:HTTP/[\d.]+\s+|HTTP\s+|\b(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+\S+\s+|→\s*|"
    r"status[=: ]\s*)(?P<c>[1-5]\d\d)\b"
)
_STATUS_CLAIM = re.compile(
    r"\b(?:returns?|returned|returning|responds? with|HTTP|status(?: code)?|gives?|gave|"
    r"got)\s+(?:an?\s+|the\s+)?(?P<c>[1-5]\d\d)\b(?!\s*(?:ms|s\b|%|[a-z]))",
    re.I,
)
# One of these (lowercase) is in every _STATUS_CLAIM match: its leading word.
_STATUS_CLAIM_SET = LOWERED_OUTPUT.member(
    ("return", "respond", "http", "status", "give", "gave", "got")
)

_VERSION_ANY = re.compile(
    r"(?<![\w.])v?\d+\.\d+\.\d+(?:[-+][\w.]+)?(?![\w.])|(?<![\w.])v\d+\.\d+(?![\w.])"
)
# Run by RE2 (``LinearPattern``): ``re`` re-scanned a run of word characters
# (a hex dump) from every letter in it, quadratic in its length.
_VERSION_BOUND_SOURCE = LinearPattern(
    re.compile(
        r"(?P<name>[A-Za-z][\w-]*)[\"']?\s*(?:[:=@]|==|>=|\s)\s*[\"']?v?(?P<ver>\d+(?:\.\d+)+)\b"
    )
)
# A claim "name 1.2" is ``\b(?P<name>[A-Za-z][\w-]*)\s+v?(?P<ver>\d+(?:\.\d+)*)\b``
# not followed by ``[.\d]*\s*(?:%|[a-zA-Z])`` (a percentage, a unit, a word).
# As one search that tried every letter of a long run of ``[\w-]`` and scanned
# the rest of the run from each (quadratic on "x-x-x-..."). Now RE2 finds the
# claim and ``re`` checks what follows (``_version_claims``). The check was a
# lookahead; it is the same at every end the version could be cut back to, as
# the characters cut are all ``[.\d]``, which the check's run takes anyway.
_VERSION_CLAIM = LinearPattern(
    re.compile(r"\b(?P<name>[A-Za-z][\w-]*)\s+v?(?P<ver>\d+(?:\.\d+)*)\b")
)
_NOT_A_VERSION_AFTER = re.compile(r"[.\d]*+\s*+(?:%|[a-zA-Z])")

_ROLE_CLAIM = re.compile(
    r"\b(?:is|was|as)\s+(?:the\s+|a\s+|an\s+|its\s+)?(?P<role>co-?founder|founder|ceo|cto|cfo|coo|president|chair(?:man|woman)?|owner|inventor|creator)\b",
    re.I,
)

_FILE_TOKEN = re.compile(
    r"(?<![\w./-])(?P<f>\.?[A-Za-z0-9][\w-]*(?:\.[A-Za-z][\w-]*)+)(?![\w/-]|\.[A-Za-z])"
)
# Both open with a lookbehind refusing every character of their run class
# (``[\w.]``; ``[\w.-]``, whose ``/`` the lookbehind refuses too), consume
# only that class up to their anchor (a digit-dot-digit; a dot before a
# letter), so they are tried only at the start of a run holding the anchor.
_VERSION_RUN = re.compile(r"[\w.]*")
_FILE_RUN = re.compile(r"[\w.-]*")
_DOT_LETTER = re.compile(r"\.[A-Za-z]")


def _version_claims(text: str) -> Iterator[LinearMatch]:
    """What the claim pattern with its lookahead found, in linear time."""
    stand = _VERSION_CLAIM.stand_in(text)
    pos = 0
    while (m := _VERSION_CLAIM.search(text, pos, stand)) is not None:
        if _NOT_A_VERSION_AFTER.match(text, m.end()) is None:
            yield m
            pos = m.end()
        else:
            # Every later start inside the name's run reaches the same run end,
            # so the same version and the same failed check: resume after it.
            pos = m.end("name")


def _version_matches(text: str) -> Iterator[re.Match[str]]:
    return anchored_finditer(_VERSION_ANY, _DIGIT_DOT_DIGIT, text, _VERSION_RUN, b"1.1")


def _file_matches(text: str) -> Iterator[re.Match[str]]:
    return anchored_finditer(_FILE_TOKEN, _DOT_LETTER, text, _FILE_RUN)


def _version_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``_version_matches`` match: the compiled scan
    when it is built (one pass instead of a regex attempt per anchor)."""
    if _numkernel is not None:
        return _numkernel.version_spans(text)
    return [m.span() for m in _version_matches(text)]


def _file_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``_file_matches`` match (the compiled scan when built)."""
    if _numkernel is not None:
        return _numkernel.file_spans(text)
    return [m.span() for m in _file_matches(text)]


# Both run by RE2 (``LinearPattern``): from every line start of a long blank
# stretch ``re`` re-scanned the rest of it, quadratic in its length.
_TABLE_CSV = LinearPattern(
    re.compile(r"^\s*(?P<label>[A-Za-z][\w .'&-]{0,40}?)\s*,\s*(?P<rest>[^\n]*\d[^\n]*)$", re.M)
)
_TABLE_PIPE = LinearPattern(
    re.compile(r"^\s*\|\s*(?P<label>[A-Za-z][\w .'&-]{0,40}?)\s*\|(?P<rest>[^\n]*\d[^\n]*)$", re.M)
)
# A _TABLE_CSV match runs from a line start to its comma over \s, the label
# class and \s again: all in this class. Read on the reversed text from just
# before a comma, it gives the start of the longest such stretch.
_CSV_BACK = re.compile(r"[\w .'&\s-]*")


def _csv_row_possible(text: str, most: int = 32) -> bool:
    """:func:`_csv_row_possible_reference`, compiled when the kernel is built
    (one pass back from each comma instead of a regex match on the reversed
    text per comma)."""
    if _halkernel is not None:
        return _halkernel.csv_row_possible(text, most)
    return _csv_row_possible_reference(text, most)


def _csv_row_possible_reference(text: str, most: int = 32) -> bool:
    """Whether some comma of ``text`` could end a CSV row's label.

    A match's start is a line start (the text start or just after a newline)
    and everything from there to its comma is in ``_CSV_BACK``'s class, which
    holds the newline but not what precedes the stretch: so the stretch
    before that comma starts the text or holds a newline. A JSON line such as
    ``{"ok": true, "rows": 3}`` has neither before its comma, and the RE2
    search (with its stand-in text) is skipped. Past ``most`` commas the
    answer is True: the search then decides, so this stays linear."""
    n = len(text)
    rev: str | None = None
    c = text.find(",")
    seen = 0
    while c >= 0:
        seen += 1
        if seen > most:
            return True
        if rev is None:
            rev = text[::-1]
        back = _CSV_BACK.match(rev, n - c)
        assert back is not None  # a starred class always matches
        b = n - back.end()
        if b == 0 or "\n" in text[b:c]:
            return True
        c = text.find(",", c + 1)
    return False


_CLAUSE_STOP = re.compile(r"[,.;:—()\n]| with | and | while | but ")


def _sentence_of(text: str, pos: int) -> tuple[int, int]:
    start = max(
        text.rfind(". ", 0, pos),
        text.rfind("\n", 0, pos),
        text.rfind("! ", 0, pos),
        text.rfind("? ", 0, pos),
    )
    start = 0 if start < 0 else start + 1
    ends = [i for i in (text.find(". ", pos), text.find("\n", pos)) if i >= 0]
    return start, (min(ends) if ends else len(text))


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


# -- signals -----------------------------------------------------------------


def _near_miss_numbers(out: str, nums: list[Num], mat: Material) -> list[Signal]:
    """A figure the material does not state, but a transposed or tenfold
    variant of one it does (14,280 for 12,480; 2,140 for 214; 0.031 for 0.31)."""
    if not nums:
        return []  # only the output's loose figures are flagged: none, nothing to build
    src_keys, src_sig = mat.twin_tables
    if not src_keys and not src_sig:
        return []  # no twin to find: every lookup below would miss
    if _near_misses is not None:
        # the compiled loop: two key strings per figure were the rule's costliest step
        return _near_misses(out, nums, src_keys, src_sig)
    return list(_near_miss_numbers_reference(out, nums, src_keys, src_sig))


# The compiled loop; None with an older build of the kernel (or none).
_near_misses: Callable[[str, list[Num], dict[str, Num], dict[str, Num]], list[Signal]] | None = (
    getattr(_numkernel, "near_misses", None)
)


def _near_miss_numbers_reference(
    out: str, nums: list[Num], src_keys: dict[str, Num], src_sig: dict[str, Num]
) -> Iterator[Signal]:
    """The loop of :func:`_near_miss_numbers` in pure Python: the reference
    ``_numkernel.near_misses`` must equal (same signals, same order)."""
    for n in nums:
        plain = n.digits.replace(",", "").replace(".", "")
        twin = src_keys.get(_digit_key(n.digits)) if len(plain) >= 3 else None
        if twin is None and (n.value >= 100 or "." in n.digits):
            cand = src_sig.get(_sig_digits(n.value))
            if cand is not None and cand.value != n.value and not (n.pct and cand.value < 1):
                twin = cand
        if twin is not None and twin.value != n.value:
            yield (
                "figure_not_in_material",
                n.start,
                n.end,
                f"{out[n.start : n.end]} does not appear in the material, which states "
                f"{twin.digits}",
            )


def _is_year(n: Num) -> bool:
    return (
        n.unit is None
        and not n.pct
        and "." not in n.digits
        and "," not in n.digits
        and 1900 <= n.value <= 2100
    )


def _unit_mismatch(out: str, nums: list[Num], mat: Material) -> list[Signal]:
    """A figure in a unit the material also measures in, with a value the
    material never gives in any unit or derivation (90 days where the policy
    says 30 and 14 days)."""
    sigs: list[Signal] = []
    units = mat.units
    if not units:
        return sigs  # a flagged figure's unit is one the material measures in
    for n in nums:
        if n.unit is None or n.unit not in units:
            continue  # (the material measures nothing in this unit)
        same = [s for s in mat.nums if s.unit == n.unit]
        if n.unit in _TIME_UNITS and _converts(n, mat):
            continue
        shown = ", ".join(sorted({s.digits + ("%" if s.pct else "") for s in same})[:3])
        sigs.append(
            (
                "figure_contradicts_material",
                n.start,
                n.end,
                f"{out[n.start : n.end]} ({n.unit}) is not a figure the material gives; it states "
                f"{shown}",
            )
        )
    return sigs


_TO_SECONDS = {"ms": 0.001, "second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}


def _converts(n: Num, mat: Material) -> bool:
    if n.unit not in _TO_SECONDS:
        return False
    secs = n.value * _TO_SECONDS[n.unit]
    for s in mat.nums:
        if s.unit in _TO_SECONDS and s.unit != n.unit:
            other = s.value * _TO_SECONDS[s.unit]
            if other and abs(other - secs) <= 0.02 * other + 0.5 * _TO_SECONDS[n.unit]:
                return True
    return False


def _unit_swap(out: str, nums: list[Num], mat: Material) -> list[Signal]:
    """The material's number read in another time unit (ms taken as seconds)."""
    sigs: list[Signal] = []
    for n in nums:
        if n.unit not in _TIME_UNITS or n.approx:
            continue
        units = {s.unit for s in mat.nums if s.value == n.value and s.unit in _TIME_UNITS}
        if units and n.unit not in units and not _converts(n, mat):
            sigs.append(
                (
                    "unit_misread",
                    n.start,
                    n.end,
                    f"{out[n.start : n.end]}: the material gives {n.digits} in "
                    f"{', '.join(sorted(u for u in units if u))}",
                )
            )
    return sigs


def _attributed_figures(out: str, nums: list[Num], mat: Material) -> list[Signal]:
    """A figure the output attributes to the source ("per the report") that
    the source never states."""
    sigs: list[Signal] = []
    loose = nums
    if not loose or _cannot_match(out, _ATTRIBUTION_SET):
        return sigs
    if out.isascii():
        low = _lowered(out)
        there = _ATTRIBUTION_LEAD_SET.present(low)
        leads = tuple([lead for lead in _ATTRIBUTION_LEADS if lead in there])
        cues = tried_at(_ATTRIBUTION_LOWER, low, _occurrences(low, leads))
    else:
        cues = _ATTRIBUTION.finditer(out)
    for cue in cues:
        s, e = _sentence_of(out, cue.start())
        for n in loose:
            if s <= n.start < e:
                sigs.append(
                    (
                        "attributed_figure_absent",
                        n.start,
                        n.end,
                        f"{out[n.start : n.end]} is attributed to the source, "
                        "which never states it",
                    )
                )
    return sigs


def _dates(out: str, mat: Material, year_hint: int | None) -> list[Signal]:
    """A calendar date that is not in the material while the material dates
    something in that same month (September 2 against 2026-09-01)."""
    sigs: list[Signal] = []
    if not mat.dates:
        return sigs
    src = {(d.month, d.day) for d in mat.dates}
    months = {d.month for d in mat.dates}
    for d in dates(out):
        if (d.month, d.day) in src or d.month not in months:
            continue
        near = sorted(f"{calendar.month_abbr[m]} {dd}" for m, dd in src if m == d.month)
        sigs.append(
            (
                "date_contradicts_material",
                d.start,
                d.end,
                f"{out[d.start : d.end]} is not a date the material gives (it has "
                f"{', '.join(near[:3])})",
            )
        )
    for w in _WEEKDAY.finditer(out):
        for d in dates(out[w.end() : w.end() + 24]):
            if d.start != 0:
                break
            year = d.year or year_hint
            if year is None:
                break
            try:
                real = _dt.date(year, d.month, d.day).weekday()
            except ValueError:
                break
            if _WEEKDAYS[real] != lower(w.group("wd")):
                sigs.append(
                    (
                        "weekday_contradicts_date",
                        w.start(),
                        w.end() + d.end,
                        f"{calendar.month_name[d.month]} {d.day}, {year} is a "
                        f"{_WEEKDAYS[real].title()}",
                    )
                )
            break
    return sigs


def _times(out: str, mat: Material) -> list[Signal]:
    """A clock time the material lacks while it has one with the same minutes
    and another hour (4:30 PM for 14:30)."""
    sigs: list[Signal] = []
    if not mat.times:
        return sigs
    src = {(h, m) for h, m, _, _ in mat.times}
    for h, m, s, e in times(out):
        if (h, m) in src or m == 0:
            continue
        twins = sorted(f"{hh:02d}:{mm:02d}" for hh, mm in src if mm == m and hh != h)
        if twins:
            sigs.append(
                (
                    "time_contradicts_material",
                    s,
                    e,
                    f"{out[s:e]} where the material gives {twins[0]}",
                )
            )
    return sigs


# Lowered twins (see ``lowered_twin``) for ASCII output: same matches, same
# offsets, on ``out.lower()``, several times faster than re.I.
_FAILURE_ACK_LOWER = lowered_twin(_FAILURE_ACK)
_ATTRIBUTION_LOWER = lowered_twin(_ATTRIBUTION)
_DENIAL_LOWER = lowered_twin(_DENIAL)


def _false_success(out: str, mat: Material) -> list[Signal]:
    """Success or a clean bill over a failure the material records."""
    sigs: list[Signal] = []
    if not _FAILURE_HINT_GATE.holds(mat):
        return sigs
    # an output that cannot claim success (most do not) ends the signal
    # before the material's failure scan: its literals are read from the
    # lowered output's one pass, which other gates share
    if _cannot_match(out, _SUCCESS_CLAIM_SET):
        return sigs
    # only the first reason is read; then the output's tests, the claim
    # before the acknowledgement (a far cheaper scan, and it mostly fails)
    reasons = _failure_reasons(mat, first_only=True)
    if not reasons:
        return sigs
    reason = reasons[0]
    claim = _SUCCESS_CLAIM.search(out)
    if claim is None:
        return sigs
    if out.isascii():
        low = _lowered(out)
        # every _DENIAL match holds "no ": without one the substitution is the text
        if _FAILURE_ACK_LOWER.search(_DENIAL_LOWER.sub(" ", low) if "no " in low else low):
            return sigs
    elif _FAILURE_ACK.search(_DENIAL.sub(" ", out)):
        return sigs
    s, e = claim.start(), claim.end()
    while s < e and not out[s].isalnum():
        s += 1
    sigs.append(("success_over_failure", s, e, f"claims success while {reason}"))
    return sigs


def _empty_results(out: str, mat: Material) -> list[Signal]:
    """Findings described over a search that returned nothing."""
    sigs: list[Signal] = []
    if not ("[" in mat.text or "0" in mat.text):
        return sigs
    # every match holds one of the literals (re.I: on ASCII text, exactly when
    # the lowered text does); the search runs the matcher at every quote
    if mat.text.isascii() and not _EMPTY_RESULT_GATE.holds(mat):
        return sigs
    if not _EMPTY_RESULT.search(mat.text) or _EMPTY_ACK.search(out):
        return sigs
    claim = _FINDINGS_CLAIM.search(out)
    if claim is not None:
        sigs.append(
            (
                "findings_from_empty_result",
                claim.start(),
                claim.end(),
                "describes results the search never returned",
            )
        )
    return sigs


# A material naming a severity holds one of these (lowered).
_SEVERITY_GATE = _MaterialGate(("severity", "vulnerab"))


def _severity(out: str, mat: Material) -> list[Signal]:
    sigs: list[Signal] = []
    if not _SEVERITY_GATE.holds(mat):
        return sigs
    src = {lower(m.group("w") or m.group("w2")) for m in _SEVERITY.finditer(mat.text)}
    if not src:
        return sigs
    for m in _SEVERITY.finditer(out):
        w = lower(m.group("w") or m.group("w2"))
        if w not in src and w not in mat.lower:
            sigs.append(
                (
                    "severity_not_in_material",
                    m.start(),
                    m.end(),
                    f"'{w}' severity; the material says {', '.join(sorted(src))}",
                )
            )
    return sigs


# One of these (lowercase) is in every material that sets a flag.
_FLAG_HINTS = ("true", "false", "enabled", "disabled", ": on", ": off", "=on", "=off")
_FLAG_GATE = _MaterialGate(_FLAG_HINTS)


def _booleans(out: str, mat: Material) -> list[Signal]:
    """A configuration flag stated with the opposite polarity."""
    sigs: list[Signal] = []
    if not _FLAG_GATE.holds(mat):
        return sigs
    flags: dict[str, bool] = {}
    for raw_key, raw_value in _flag_settings(mat.text, mat.lower):
        key = lower(raw_key)
        if key.split(".")[-1] in _BOOL_GENERIC_KEYS:
            continue
        flags.setdefault(key, _BOOL_VALUE[lower(raw_value)])
    if not flags:
        return sigs
    low = _lowered(out)
    for key, value in flags.items():
        words = _key_words(key)
        if words and words[0] not in low:
            continue  # the key's pattern starts with this literal word
        # every match starts where that word does (a key starts with a letter,
        # so the word is not empty) and the lookbehind lets it: tried there
        # only, not at every character, and when there is no such place the
        # pattern is not even built (a short key such as "ok" mostly occurs
        # inside other words: "token", "look")
        places = _key_starts(low, words[0]) if words else None
        if places is not None and not places:
            continue
        rx = re.compile(r"(?<![\w-])" + r"[ _.-]?".join(map(re.escape, words)) + r"(?![\w-])")
        for m in tried_at(rx, low, places) if places is not None else rx.finditer(low):
            pol = _POLARITY.match(low, m.end())
            if pol is None:
                continue
            said = _POLARITY_VALUE[pol.group("w")] ^ bool(pol.group("neg"))
            before = low[max(0, m.start() - 16) : m.start()]
            if re.search(r"\b(?:not|no|isn't|never)\s*$", before):
                said = not said
            if said != value:
                sigs.append(
                    (
                        "flag_contradicts_material",
                        m.start(),
                        pol.end(),
                        f"{key} is {'true' if value else 'false'} in the material",
                    )
                )
                break
    return sigs


_KEY_SPLIT = re.compile(r"[_.\-\s]+")
# flag key -> its words: a pure function of the key, asked once per flag of
# every evaluation (the same few keys recur), so each short key is split once
_KEY_WORDS: dict[str, list[str]] = {}


def _key_words(key: str) -> list[str]:
    """``[w for w in re.split(r"[_.\\-\\s]+", key) if w]``, remembered per key
    (the list is only read)."""
    words = _KEY_WORDS.get(key)
    if words is None:
        words = [w for w in _KEY_SPLIT.split(key) if w]
        if len(key) <= 64 and len(_KEY_WORDS) < 4096:  # bounded memory
            _KEY_WORDS[key] = words
    return words


def _key_starts(text: str, word: str) -> list[int]:
    """:func:`_key_starts_reference`, compiled when the kernel is built (a
    short key such as "ok" occurs inside many words, a Python step each)."""
    if _halkernel is not None:
        return _halkernel.key_starts(text, word)
    return _key_starts_reference(text, word)


def _key_starts_reference(text: str, word: str) -> list[int]:
    """The offsets at which ``word`` (not empty) occurs in ``text``, overlaps
    included, where a key pattern's opening ``(?<![\\w-])`` holds: at the
    text start, or after a character that is neither ``\\w``
    (``str.isalnum`` or ``_``, as ``re`` reads it on str) nor ``-``."""
    found: list[int] = []
    i = text.find(word)
    while i >= 0:
        if not i or not ((c := text[i - 1]).isalnum() or c == "_" or c == "-"):
            found.append(i)
        i = text.find(word, i + 1)
    return found


def _prohibited(out: str, mat: Material) -> list[Signal]:
    """The output recommends the very action the material forbids."""
    sigs: list[Signal] = []
    if not _PROHIBITION_GATE.holds(mat):
        return sigs
    text = mat.text
    # every match starts with one of its openers (re.I: on ASCII text, where
    # the lowered text has them at the same offsets); a search ran the
    # matcher at every character
    found = (
        tried_at(
            _PROHIBITION, text, _occurrences(mat.lower, _PROHIBITION_LEAD_GATE.candidates(mat))
        )
        if text.isascii()
        else _PROHIBITION.finditer(text)
    )
    for m in found:
        verb = _VERB_CLASS[lower(m.group("verb"))]
        obj = lower(m.group("obj").strip("`'\""))
        if len(obj) < 3:
            continue
        verbs = "|".join(re.escape(v) for v, c in _VERB_CLASS.items() if c == verb)
        rx = re.compile(rf"\b(?:{verbs})\s+[`'\"]?{re.escape(obj)}\b", re.I)
        for hit in rx.finditer(out):
            if _NEGATION_BEFORE.search(out, max(0, hit.start() - 40), hit.start()):
                continue
            sigs.append(
                (
                    "recommends_what_material_forbids",
                    hit.start(),
                    hit.end(),
                    f"the material says not to {m.group('verb')} {obj}",
                )
            )
            break
    return sigs


def _thresholds(out: str, mat: Material) -> list[Signal]:
    """An inclusive threshold ("$50 or more") restated as exclusive ("above $50")."""
    sigs: list[Signal] = []
    if not _THRESHOLD_GATE.holds(mat):
        return sigs
    if mat.text.isascii() and not _inclusive_possible(mat.lower):
        return sigs
    inclusive: set[float] = set()
    for found in _INCLUSIVE_SOURCE.finditer(mat.text):
        raw = found.group("n") or found.group("n2") or found.group("n3")
        inclusive.add(float(raw.replace(",", "")))
    if not inclusive:
        return sigs
    plain = out.replace("*", " ").replace("_", " ")
    for m in _EXCLUSIVE_CLAIM.finditer(plain):
        if float(m.group("n").replace(",", "")) in inclusive:
            sigs.append(
                ("threshold_flipped", m.start(), m.end(), "the material's threshold is inclusive")
            )
    return sigs


def _quotes(out: str, mat: Material) -> list[Signal]:
    """A quotation presented as the source's words that the source lacks."""
    sigs: list[Signal] = []
    if '"' not in out and "“" not in out:
        return sigs
    for m in _QUOTE.finditer(out):
        q = m.group("q")
        if len(q.split()) < 6:
            continue
        sent_start, _ = _sentence_of(out, m.start())
        if not _QUOTE_CUE.search(out, max(sent_start, m.start() - 100), m.start()):
            continue
        if _norm_words(q) in mat.words:
            continue
        sigs.append(
            (
                "quote_not_in_material",
                m.start(),
                m.end(),
                "quoted as the source's words, which the source does not contain",
            )
        )
    return sigs


def _absences(out: str, mat: Material) -> list[Signal]:
    """ "The notes don't mention a budget decision" when they do."""
    sigs: list[Signal] = []
    low = _lowered(out)
    if not _ABSENCE_VERB_SET.present(low):
        return sigs
    if out.isascii() and not _ABSENCE_OPENER_SET.present(low):
        return sigs  # every claim opens with one of them (re.I: exact on ASCII text)
    for m in _absence_claims(out, low):
        terms = {
            _stem(w)
            for w in _WORD.findall(lower(m.group("what")))
            if len(w) > 3 and w not in _ABSENCE_STOP
        }
        if len(terms) < 2:
            continue
        for line in mat.source_lines:
            if re.search(r"\b(?:no|not|none|without)\b", line):
                continue
            have = {_stem(w) for w in line.split()}
            if len(terms & have) >= max(2, (len(terms) * 2 + 2) // 3):
                sigs.append(
                    (
                        "absence_claim_contradicted",
                        m.start(),
                        m.end(),
                        "the material does mention it",
                    )
                )
                return sigs
    return sigs


# Every _ABSENCE_CLAIM match starts with "do" (do not, does not, don't,
# doesn't) or "never"; on ASCII output its lowered twin is tried only there
# (a search ran the pattern, its lazy run and lookahead, at every character).
# The twin is built as ``lowered_twin`` builds one; that refuses the source
# only for the P of its group syntax, its one upper-case letter.
_ABSENCE_CLAIM_LOWER = re.compile(_ABSENCE_CLAIM.pattern, _ABSENCE_CLAIM.flags & ~re.IGNORECASE)
_ABSENCE_LEADS = ("do", "never")


def _absence_claims(out: str, low: str) -> Iterator[re.Match[str]]:
    """``_ABSENCE_CLAIM.finditer(out)``; ``low`` is ``out`` lowered (the
    matches on ASCII output are the twin's on ``low``: same offsets, group
    text lowered, which the caller lowers anyway)."""
    if out.isascii():
        return tried_at(_ABSENCE_CLAIM_LOWER, low, _occurrences(low, _ABSENCE_LEADS))
    return _ABSENCE_CLAIM.finditer(out)


def _statuses(out: str, mat: Material) -> list[Signal]:
    sigs: list[Signal] = []
    # an output that states no status (most do not) ends the signal before
    # the material's scans: the claim's words are read from the lowered
    # output's one pass, which other gates share
    if _cannot_match(out, _STATUS_CLAIM_SET):
        return sigs
    if not _STATUS_HINT_GATE.holds(mat) and not _STATUS_METHOD_GATE.holds(mat):
        return sigs
    text = mat.text
    leads = _STATUS_LEAD_GATE.candidates(mat)
    src = {m.group("c") for m in tried_at(_STATUS_SOURCE, text, _occurrences(text, leads))}
    if not src:
        return sigs
    for m in _STATUS_CLAIM.finditer(out):
        if m.group("c") not in src:
            sigs.append(
                (
                    "status_contradicts_material",
                    m.start("c"),
                    m.end("c"),
                    f"HTTP {m.group('c')}; the material shows {', '.join(sorted(src))}",
                )
            )
    return sigs


# Every _STATUS_SOURCE match starts with one of these (it is case-sensitive,
# and each alternative opens with its literal): finditer tried there only.
_STATUS_LEADS = ("HTTP", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "→", "status")
_STATUS_LEAD_GATE = _MaterialGate(_STATUS_LEADS, exact=True)
# A material showing a status holds one of these (lowered), or a request line.
_STATUS_HINT_GATE = _MaterialGate(("http", "status"))
_STATUS_METHOD_GATE = _MaterialGate(
    ("GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD ", "→"), exact=True
)


def _occurrences(text: str, literals: tuple[str, ...]) -> list[int]:
    """Where each of ``literals`` occurs in ``text``, overlaps included (in no
    particular order; :func:`tried_at` sorts them). The compiled loop when the
    kernel is built."""
    if _occurrences_kernel is not None:
        return _occurrences_kernel(text, literals)
    return _occurrences_reference(text, literals)


# The compiled loops; None with an older build of the kernel (or none).
_occurrences_kernel: Callable[[str, tuple[str, ...]], list[int]] | None = getattr(
    _halkernel, "occurrences", None
)
_matches_at_some_kernel: Callable[[Callable[..., Any], str, tuple[str, ...]], bool] | None = (
    getattr(_halkernel, "matches_at_some", None)
)


def _occurrences_reference(text: str, literals: tuple[str, ...]) -> list[int]:
    """:func:`_occurrences` in Python: the reference the kernel must equal
    (literal by literal, each in text order)."""
    found: list[int] = []
    for lit in literals:
        i = text.find(lit)
        while i >= 0:
            found.append(i)
            i = text.find(lit, i + 1)
    return found


def _versions(out: str, mat: Material) -> list[Signal]:
    """Versions absent from the material, or a package put on a major the
    material pins differently (React 18 where package.json pins 17.0.2)."""
    sigs: list[Signal] = []
    src_low = mat.lower
    for start, end in _version_spans(out):
        written = out[start:end]
        if lower(written).lstrip("v") not in src_low:
            sigs.append(
                (
                    "version_not_in_material",
                    start,
                    end,
                    f"{written} appears nowhere in the material",
                )
            )
    bound: dict[str, set[str]] = {}
    if not _digit_sign_digit(mat.text, "."):
        return sigs  # every bound version has a dotted number (``\d\.\d``)
    for found in _VERSION_BOUND_SOURCE.finditer(mat.text):
        bound.setdefault(lower(found.group("name")), set()).add(found.group("ver"))
    if not bound:
        return sigs
    for claim in _version_claims(out):
        name = lower(claim.group("name"))
        if name not in bound:
            continue
        ver = claim.group("ver")
        parts = ver.split(".")
        if not any(b.split(".")[: len(parts)] == parts for b in bound[name]):
            sigs.append(
                (
                    "version_contradicts_material",
                    claim.start(),
                    claim.end(),
                    f"{claim.group(0)}; the material pins {name} at "
                    f"{', '.join(sorted(bound[name]))}",
                )
            )
    return sigs


_ROLE_WORDS: tuple[str, ...] = (
    "founder",
    "ceo",
    "cto",
    "cfo",
    "coo",
    "president",
    "chair",
    "owner",
    "inventor",
    "creator",
)
_ROLE_WORD_SET = LOWERED_OUTPUT.member(_ROLE_WORDS)  # any of them in one pass


def _roles(out: str, mat: Material) -> list[Signal]:
    sigs: list[Signal] = []
    low = _lowered(out)
    if not _ROLE_WORD_SET.present(low):
        return sigs
    for m in _ROLE_CLAIM.finditer(out):
        role = lower(m.group("role")).replace("-", "")
        if role not in mat.lower.replace("-", ""):
            sigs.append(
                (
                    "role_not_in_material",
                    m.start("role"),
                    m.end("role"),
                    f"'{m.group('role')}' appears nowhere in the material",
                )
            )
    return sigs


def _rows(out: str, mat: Material) -> list[Signal]:
    """A row label given another row's figure (Berlin at Austin's 214)."""
    sigs: list[Signal] = []
    rows: dict[str, set[float]] = {}
    # a CSV row holds a comma and a pipe row a pipe: skip a scan that cannot match
    for rx, sep in ((_TABLE_CSV, ","), (_TABLE_PIPE, "|")):
        if sep not in mat.source:
            continue
        if sep == "," and not _csv_row_possible(mat.source):
            continue
        for row in rx.finditer(mat.source):
            vals = {n.value for n in numbers(row.group("rest"))}
            if vals:
                rows.setdefault(lower(row.group("label").strip()), set()).update(vals)
    if len(rows) < 2:
        return sigs
    owner: dict[float, set[str]] = {}
    for label, vals in rows.items():
        for v in vals:
            owner.setdefault(v, set()).add(label)
    low = _lowered(out)
    label_rx = re.compile(
        r"(?<![\w-])(?:"
        + "|".join(re.escape(k) for k in sorted(rows, key=len, reverse=True))
        + r")(?![\w-])"
    )
    hits = list(label_rx.finditer(low))
    for i, m in enumerate(hits):
        stop = hits[i + 1].start() if i + 1 < len(hits) else len(out)
        cl = _CLAUSE_STOP.search(low, m.end())
        if cl is not None:
            stop = min(stop, cl.start())
        for n in numbers(out[m.end() : stop]):
            label = m.group(0)
            if n.value not in rows[label] and owner.get(n.value, set()) - {label}:
                other = sorted(owner[n.value] - {label})[0]
                sigs.append(
                    (
                        "row_binding_contradicts_material",
                        m.start(),
                        m.end() + n.end,
                        f"{out[m.start() : m.end()]} is given {n.digits}, "
                        f"which is {other}'s figure",
                    )
                )
            break
    return sigs


def _files(out: str, mat: Material) -> list[Signal]:
    """A file the material's listing lacks while it lists its siblings
    (``.env.production`` beside ``.env.development`` and ``.env.test``)."""
    sigs: list[Signal] = []
    text = mat.text
    present = {lower(text[s:e]) for s, e in _file_spans(text)}
    if not present:
        return sigs
    stems: dict[str, set[str]] = {}
    for f in present:
        stems.setdefault(f.rsplit(".", 1)[0], set()).add(f)
    # A flagged file, lowered, is one of these stems, a dot and more; on ASCII
    # output lowering keeps each character's place, so that is a substring of
    # the lowered output, and without one the output's files need no scan.
    if out.isascii() and not _any_in(_lowered(out), tuple(stem + "." for stem in stems)):
        return sigs
    for start, end in _file_spans(out):
        written = out[start:end]
        f = lower(written)
        if f in present:
            continue
        siblings = stems.get(f.rsplit(".", 1)[0], set())
        if siblings:
            sigs.append(
                (
                    "file_not_in_material",
                    start,
                    end,
                    f"{written} is not in the material, which lists "
                    f"{', '.join(sorted(siblings)[:3])}",
                )
            )
    return sigs


def _loose(out_nums: list[Num], mat: Material) -> list[Num]:
    """``[n for n in out_nums if not n.approx and not _is_year(n) and not
    mat.grounds_once(n)]``: an output holds dozens of figures, and two Python
    calls each were a tenth of the rule. The compiled loop when it is built,
    with :meth:`Material.grounds` done in C as well (a Python call per
    distinct figure was most of the loop's remaining cost)."""
    if _grounded_loose is not None:
        return _grounded_loose(out_nums, mat, mat._grounded)
    if _numkernel is not None:
        return _numkernel.loose(out_nums, mat._grounded, mat.grounds)
    return _loose_reference(out_nums, mat)


# The kernel's loop with grounding compiled too; None with an older build of
# the kernel (or none), and then ``loose`` or the reference runs instead.
_grounded_loose: Callable[[list[Num], Material, dict[Any, bool]], list[Num]] | None = getattr(
    _numkernel, "grounded_loose", None
)


def _loose_reference(out_nums: list[Num], mat: Material) -> list[Num]:
    """:func:`_loose` in pure Python, both tests inlined."""
    memo = mat._grounded
    grounds = mat.grounds
    loose: list[Num] = []
    for n in out_nums:
        value, scaled, pct, unit, approx, _, _, digits = n
        if approx:
            continue
        if (
            unit is None
            and not pct
            and "." not in digits
            and "," not in digits
            and 1900 <= value <= 2100
        ):
            continue  # _is_year(n)
        key = (pct, digits, scaled)  # grounds_once(n)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = grounds(n)
        if not hit:
            loose.append(n)
    return loose


def _twin_candidates(out: str, out_nums: list[Num], mat: Material) -> list[Num]:
    """The output figures a figure signal could read, in order: all of them
    when the output may attribute a figure to the source (any figure in a
    cue's sentence is read), else those whose twin-table lookup in
    ``_near_miss_numbers`` finds an entry or whose unit the material measures
    in (``_unit_mismatch``). Why: the loose figures are grounded against the
    material (its pairwise derivations built and sorted) before those
    signals read them, and on the varied cases 3 of ~8,700 output figures
    could be read at all; the other signals that read figures take
    ``out_nums``. The compiled filter when it is built."""
    if mat.has_source and not _cannot_match(out, _ATTRIBUTION_SET):
        return out_nums
    src_keys, src_sig = mat.twin_tables
    if _twin_candidates_kernel is not None:
        return _twin_candidates_kernel(out_nums, src_keys, src_sig, mat.units)
    return _twin_candidates_reference(out_nums, src_keys, src_sig, mat.units)


# The compiled filter; None with an older build of the kernel (or none).
_twin_candidates_kernel: (
    Callable[[list[Num], dict[str, Num], dict[str, Num], set[str]], list[Num]] | None
) = getattr(_numkernel, "twin_candidates", None)


def _twin_candidates_reference(
    nums: list[Num], src_keys: dict[str, Num], src_sig: dict[str, Num], units: set[str]
) -> list[Num]:
    """The filter of :func:`_twin_candidates` in pure Python: the reference
    ``_numkernel.twin_candidates`` must equal (same figures, same order)."""
    kept: list[Num] = []
    for n in nums:
        digits = n.digits
        by_digits = len(digits.replace(",", "").replace(".", "")) >= 3
        if (
            (by_digits and _digit_key(digits) in src_keys)
            or ((n.value >= 100 or "." in digits) and _sig_digits(n.value) in src_sig)
            or (n.unit is not None and n.unit in units)
        ):
            kept.append(n)
    return kept


def _figures_matter(out: str, mat: Material) -> bool:
    """Whether a signal could read the output's figures, decided from the
    material (and one literal test of the output) before they are scanned:
    a near miss needs a twin table of the material not empty, a unit misread
    or mismatch a unit the material measures in, and an attributed figure
    source material and an attribution cue in the output. When none can
    fire, the output's figures (a C scan and a Num per figure, then the
    grounding of each) are not needed at all."""
    src_keys, src_sig = mat.twin_tables
    if src_keys or src_sig or mat.units:
        return True
    return mat.has_source and not _cannot_match(out, _ATTRIBUTION_SET)


def signals(
    output: str, input_text: str, extra: Iterable[str] = (), lowered: str | None = None
) -> list[Signal]:
    """Grounded signals for ``output`` against the input and other material.
    ``lowered`` is ``output.lower()`` when the caller has it (the context's
    shared view): the signals then read it instead of lowering again."""
    mat = Material.build(input_text, extra)
    if not mat.text.strip():
        return []
    out = output[:OUTPUT_CAP]
    if lowered is not None and out is output:
        _remember_lowered(out, lowered)
    # figures the material neither states nor derives, estimates and years
    # aside: computed once, read by every numeric signal
    out_nums: list[Num] = []
    nums: list[Num] = []
    if _figures_matter(out, mat):
        out_nums = numbers(out)
        # only the figures those signals could read are grounded (the same
        # ones are flagged: each signal filters the loose figures one by one)
        nums = _loose(_twin_candidates(out, out_nums, mat), mat)
    # Each signal below returns a list (as generators, compiled, each cost an
    # object, its helper and a resumption per signal found or not, eighteen
    # times per evaluation), and is called only when its first test (repeated
    # here, a cheap one) lets it find something. The order is kept, as ties
    # in the sort below keep it.
    found: list[Signal] = []
    if nums:
        found += _near_miss_numbers(out, nums, mat)
    if mat.units & _TIME_UNITS:
        found += _unit_swap(out, out_nums, mat)
    if mat.has_source:
        if nums:
            if mat.units:
                found += _unit_mismatch(out, nums, mat)
            found += _attributed_figures(out, nums, mat)
        if '"' in out or "“" in out:
            found += _quotes(out, mat)
        found += _versions(out, mat)
        found += _roles(out, mat)
    if mat.dates:
        years = {d.year for d in mat.dates if d.year}
        found += _dates(out, mat, next(iter(years)) if len(years) == 1 else None)
    if mat.times:
        found += _times(out, mat)
    found += _false_success(out, mat)
    if "[" in mat.text or "0" in mat.text:
        found += _empty_results(out, mat)
    if _SEVERITY_GATE.holds(mat):
        found += _severity(out, mat)
    found += _booleans(out, mat)
    found += _prohibited(out, mat)
    found += _thresholds(out, mat)
    found += _absences(out, mat)
    found += _statuses(out, mat)
    found += _rows(out, mat)
    found += _files(out, mat)
    # one signal per output region: overlapping findings name the same claim
    found.sort(key=lambda s: (s[1], -s[2]))
    kept: list[Signal] = []
    seen: set[tuple[str, str]] = set()
    for sig in found:
        if (kept and sig[1] < kept[-1][2]) or (sig[0], sig[3]) in seen:
            continue
        seen.add((sig[0], sig[3]))
        kept.append(sig)
    return kept
