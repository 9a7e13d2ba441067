"""Which of many literals occur in a text, found in one pass.

Why: a detector family gates dozens of patterns on a few hundred literals.
Testing each with ``lit in text`` costs one C-level scan per literal - about
200 scans of the same 3 KB for the injection lexicon. RE2's ``Set`` matches
all of them in a single DFA pass (Aho-Corasick in effect) and reports which
ones matched, so the gate costs one scan however many literals there are.

The answer is exactly ``{lit for lit in literals if lit in text}``: literals
are ASCII and the text is searched as its UTF-8 bytes read as Latin-1, where
an ASCII literal occurs at a byte offset exactly when it occurs in the
string (multi-byte sequences hold no ASCII bytes).

RE2's DFA gives up when its state cache outgrows the memory budget, and a
``Set`` then reports no match at all. For a set of plain literals searched
unanchored the DFA is the Aho-Corasick automaton: at most two states (with
and without a pending match) per distinct literal prefix, each at most 257
transition pointers plus its instruction list - a few KB. The total literal
length is capped so that bound stays below the budget, which makes a silent
give-up impossible rather than unlikely. The budget is a ceiling, not an
allocation: states are built as texts reach them (typically a few hundred).
"""

from __future__ import annotations

from collections.abc import Iterable

import re2

# The compiled presence scan (evaluators/text/_litkernel.c); absent when the
# extension was not built, and then the RE2 set (``_present_reference``) answers.
try:
    from evaluators.text import _litkernel
except ImportError:  # pragma: no cover - depends on the build
    _litkernel = None  # type: ignore[assignment]

_MAX_MEM = 256 << 20  # ceiling for the DFA cache
# Literal characters allowed in one set: <= 2 states per prefix at <= 4 KB each
# is 64 MB at this cap, within the half of the budget RE2 gives the DFA.
_MAX_CHARS = 8192


class LiteralSet:
    """A fixed set of ASCII literals and a one-pass ``present(text)`` test."""

    __slots__ = ("_matcher", "_set", "literals")

    def __init__(self, literals: Iterable[str]) -> None:
        self.literals: tuple[str, ...] = tuple(sorted({lit for lit in literals if lit}))
        if not all(lit.isascii() for lit in self.literals):
            raise ValueError("LiteralSet takes ASCII literals only")
        if sum(map(len, self.literals)) > _MAX_CHARS:
            raise ValueError("too many literal characters for one set (see _MAX_CHARS)")
        opts = re2.Options()
        opts.encoding = re2.Options.Encoding.LATIN1
        opts.max_mem = _MAX_MEM
        self._set = re2.Set.SearchSet(opts)
        for lit in self.literals:
            self._set.Add(re2.escape(lit))
        self._set.Compile()
        self._matcher = _litkernel.compile(self.literals) if _litkernel is not None else None

    def present(self, text: str) -> frozenset[str]:
        """The literals that occur in ``text`` (same as testing each with ``in``).

        By the C kernel when built: one call with a trigram filter, instead of
        the RE2 set's wrapper, encode and DFA (whose states are cold by the
        time the next rule asks); :meth:`_present_reference` otherwise."""
        matcher = self._matcher
        if matcher is not None:
            found: frozenset[str] = _litkernel.present(matcher, text)
            return found
        return self._present_reference(text)

    def _present_reference(self, text: str) -> frozenset[str]:
        """:meth:`present` by the RE2 set (the kernel's reference and the fallback)."""
        if not self.literals:
            return frozenset()
        data = text.encode("ascii") if text.isascii() else text.encode("utf-8", "surrogatepass")
        hits = self._set.Match(data)
        if not hits:
            return frozenset()
        lits = self.literals
        return frozenset(lits[i] for i in hits)


class LiteralFamily:
    """Literal sets that are all asked about the same text, answered by one pass.

    Why: several rules gate on literals of the lowered output (stub needs,
    proposal wording, absence and role words, attribution phrases), each with
    its own set, so the same 3 KB was scanned once per set. A family compiles
    the union of its members' literals into one set and keeps the last text it
    scanned with what occurred there; each member reads its own literals out
    of that. ``member.present(text)`` is exactly ``LiteralSet(literals)
    .present(text)``: the union reports every literal of it that occurs, and
    the member keeps those that are its own. The last-text memo is one tuple,
    replaced whole, and compared by value, so it is never stale.
    """

    __slots__ = ("_last", "_members", "_union")

    def __init__(self) -> None:
        self._members: list[tuple[str, ...]] = []
        self._union: LiteralSet | None = None
        self._last: tuple[str, frozenset[str]] | None = None

    def member(self, literals: Iterable[str]) -> FamilyMember:
        """A literal set of this family (the union is rebuilt to include it)."""
        m = FamilyMember(self, LiteralSet(literals).literals)
        self._members.append(m.literals)
        self._union = None
        self._last = None
        return m

    def present(self, text: str) -> frozenset[str]:
        """The literals of every member that occur in ``text``."""
        last = self._last
        if last is not None and last[0] == text:
            return last[1]
        union = self._union
        if union is None:
            union = self._union = LiteralSet(lit for m in self._members for lit in m)
        found = union.present(text)
        self._last = (text, found)
        return found


class FamilyMember:
    """One literal set of a :class:`LiteralFamily`; reads like a LiteralSet."""

    __slots__ = ("_own", "family", "literals")

    def __init__(self, family: LiteralFamily, literals: tuple[str, ...]) -> None:
        self.family = family
        self.literals = literals
        self._own = frozenset(literals)

    def present(self, text: str) -> frozenset[str]:
        """The literals of this set that occur in ``text``."""
        if not self.literals:
            return frozenset()
        return self.family.present(text) & self._own


# The lowered output (``output.lower()``): the family its literal gates share.
LOWERED_OUTPUT = LiteralFamily()
