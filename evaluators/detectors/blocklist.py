"""``no_blocklist_words``: deployment-prohibited phrases, found as a reader reads them.

Phrases are matched case-insensitively on the normalised view (so zero-width
characters, look-alike letters, full-width forms, doubled spaces and wrapped
lines do not hide them), on word boundaries (so "hackathon" does not contain
"how to hack"), and tolerate one space inserted inside a word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from evaluators.detectors.findings import Candidate, Finding, finalize, normalized
from evaluators.detectors.gates import max_width, occurrences, windowed_finditer
from evaluators.detectors.phrases import compile_phrases, phrase_key

# The compiled gate (evaluators/detectors/_piikernel.c); without it the
# reference below does the same in Python.
try:
    from evaluators.detectors import _piikernel
except ImportError:  # pragma: no cover - depends on the build
    _piikernel = None  # type: ignore[assignment]

DEFAULT_BLOCKLIST: tuple[str, ...] = (
    "kill yourself",
    "how to make a bomb",
    "how to hack",
    "illegal drugs",
    "child exploitation",
)

_MAX_PHRASES = 1000
_MAX_PHRASE_LEN = 200


@lru_cache(maxsize=64)
def _compiled(
    phrases: tuple[str, ...],
) -> tuple[re.Pattern[str] | None, tuple[str, ...], tuple[str, ...]]:
    """Tolerant alternation, normalised keys, and space-free keys used as a fast gate."""
    keys = tuple(k for k in (phrase_key(p[:_MAX_PHRASE_LEN]) for p in phrases[:_MAX_PHRASES]) if k)
    return compile_phrases(list(keys)), keys, tuple(k.replace(" ", "") for k in keys)


# The last tuple of exact str phrases and its cache key: the rule passes the
# same configured tuple on every evaluation, and a tuple of str cannot change.
_last_phrases: tuple[tuple[str, ...], tuple[str, ...]] | None = None


def _phrases_key(phrases: Sequence[str]) -> tuple[str, ...]:
    """``tuple(str(p) for p in phrases)``, reused while the same tuple of str comes back."""
    global _last_phrases
    last = _last_phrases
    if last is not None and last[0] is phrases:
        return last[1]
    key = tuple(str(p) for p in phrases)
    if type(phrases) is tuple and all(type(p) is str for p in phrases):
        _last_phrases = (phrases, key)
    return key


def _spaceless_present(text: str, gates: tuple[str, ...]) -> list[str]:
    """The gates that occur in ``text`` once its spaces are removed, in order:
    the reference for ``_piikernel.spaceless_present``, which finds the same
    without building the space-free copy run by run or searching for gates
    whose first three characters never occur in it."""
    compact = text.replace(" ", "")
    return [g for g in gates if g in compact]


@lru_cache(maxsize=64)
def _width(pattern: re.Pattern[str]) -> int:
    return max_width(pattern)


def find_blocklist(raw: str, phrases: Sequence[str] = DEFAULT_BLOCKLIST) -> list[Finding]:
    """Every occurrence of a listed phrase in ``raw`` (spans into ``raw``, sorted).

    The detail names which list entry matched by its index, not its text, so
    the evaluation message can report a count without repeating the phrase.
    """
    pattern, keys, gates = _compiled(_phrases_key(phrases))
    if pattern is None:
        return []
    norm = normalized(raw)
    if _piikernel is not None:
        present = _piikernel.spaceless_present(norm.text, gates)
    else:
        present = _spaceless_present(norm.text, gates)
    if not present:
        return []  # no phrase present even with every space removed: skip the regex
    # Every match starts with a present phrase (spaces optional): search only there.
    starts = [p for g in present for p in occurrences(norm.text, g, tolerant=True)]
    cands = []
    for m in windowed_finditer(pattern, norm.text, starts, _width(pattern)):
        idx = (m.lastindex or 1) - 1
        cands.append(
            Candidate(
                "blocklist",
                "blocklist",
                m.start(),
                m.end(),
                f"blocklisted phrase #{idx + 1} of {len(keys)}",
            )
        )
    return finalize(norm, cands)
